/** The public API of shared/coins: coin table, keys, addresses, scripts, transactions, sighash. */
export { CoinError } from './errors.ts';
export {
  COIN_NAMES,
  EVM_COIN_NAMES,
  LEDGER_UTXO_COIN_NAMES,
  NETWORK_NAMES,
  PSBT_COIN_NAMES,
  UTXO_COIN_NAMES,
  chainParams,
  allChainParams,
  coinRow,
  describeChain,
  implementedUtxoCoins,
  isCoinName,
  isEvmCoin,
  isUtxoCoin,
  utxoCoinRow,
} from './coin-table.ts';
export type { ChainParams, CoinName, CoinRow, LedgerAppRow, NetworkName, SighashAlgorithmName, UtxoCoinName, UtxoCoinRow, UtxoLedgerAppRow } from './coin-table.ts';
export {
  ByteReader,
  ByteWriter,
  bytesToHex,
  compareBytes,
  concatBytes,
  encodeCompactSize,
  equalBytes,
  hexToBytes,
  reverseBytes,
} from './bytes.ts';
export { hash160, sha256, sha256d } from './hash.ts';
export { base58checkDecode, base58checkEncode, tryDecodeBase58Check } from './base58.ts';
export {
  isCompressedPublicKey,
  looksLikePrivateKey,
  parsePublicKey,
  parsePublicKeyHex,
  refusePrivateKey,
} from './keys.ts';
export {
  deriveXpubChild,
  deriveXpubPath,
  derivePublicKey,
  encodeXpub,
  fingerprintHex,
  parseXpub,
  parseXpubPath,
  extendedKeyIdentity,
  repeatedExtendedKey,
} from './xpub.ts';
export type { ExtendedPublicKey } from './xpub.ts';
export {
  MAX_MULTISIG_KEYS,
  MAX_WITNESS_MULTISIG_KEYS,
  OP,
  classifyOutputScript,
  compileScript,
  decodeScript,
  multisigRedeemScript,
  multisigScript,
  p2pkhScript,
  p2shScript,
  parseMultisigRedeemScript,
  pushData,
  witnessScript,
} from './script.ts';
export type { ClassifiedScript, OutputScriptType, ScriptChunk } from './script.ts';
export {
  addressToScript,
  decodeAddress,
  decodedAddressToScript,
  encodeAddress,
  isValidAddress,
  p2pkhAddressOfPublicKey,
  p2shAddressOfRedeemScript,
  scriptToAddress,
} from './address.ts';
export type { AddressType, DecodedAddress } from './address.ts';
export { decodeTx, decodeTxHex, encodeTx, encodeTxHex, hasWitness, txidHex, txVsize, txWeight, wtxidHex } from './tx.ts';
export type { Tx, TxInput, TxOutput } from './tx.ts';
export { checkWitnessScript, segwitSignatureHash, signatureHash } from './sighash/index.ts';
export type { SegwitSighashContext, SighashContext } from './sighash/index.ts';
export { bip143Sighash } from './sighash/bip143.ts';
export {
  MAX_REDEEM_SCRIPT_SIZE,
  MAX_STANDARD_WITNESS_SCRIPT_SIZE,
  MULTISIG_SCRIPT_TYPES,
  isMultisigScriptType,
  isSegwitScriptType,
  multisigScripts,
  p2wshScript,
  requireScriptType,
  sortPublicKeysBip67,
} from './multisig-script.ts';
export type { MultisigScriptOptions, MultisigScriptType, MultisigScripts, SegwitMultisigScriptType } from './multisig-script.ts';
export { assembleMultisigSpend, checkMultisigSignature, multisigInputHash } from './assemble-multisig.ts';
export type { MultisigInputSpend } from './assemble-multisig.ts';
export { estimateVsize, multisigScriptLength } from './tx-size.ts';
export type { VsizeInput } from './tx-size.ts';
export {
  SIGHASH_ALL,
  SIGHASH_ANYONECANPAY,
  SIGHASH_NONE,
  SIGHASH_SINGLE,
  legacySighash,
} from './sighash/legacy.ts';
export {
  decodeDerSignature,
  encodeDerSignature,
  isLowS,
  parseSignatureDer,
  signDer,
  splitHashType,
  verifyDerSignature,
  withHashType,
} from './signature.ts';
export { formatReport, inspectTransaction } from './inspect.ts';
export type * from './inspect.ts';
