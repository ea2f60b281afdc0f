// Multisig spends of every script type (P2SH, P2SH-P2WSH, P2WSH): each signature is checked against
// the digest recomputed from the transaction and the amount the input spends (BIP143 for the
// segwit types), then scriptSigs and witnesses are assembled with exactly M signatures in script
// key order. Any doubt is an error naming the input and the key.
import { derOf } from './assemble.ts';
import type { SuppliedSignature } from './assemble.ts';
import { bytesToHex, equalBytes } from './bytes.ts';
import type { ChainParams } from './coin-table.ts';
import { CoinError } from './errors.ts';
import { hash160 } from './hash.ts';
import { isSegwitScriptType, p2wshScript, requireScriptType } from './multisig-script.ts';
import type { MultisigScriptType } from './multisig-script.ts';
import { classifyOutputScript, compileScript, OP, parseMultisigRedeemScript, pushData } from './script.ts';
import { checkWitnessScript, segwitSignatureHash, signatureHash } from './sighash/index.ts';
import { verifyDerSignature, withHashType } from './signature.ts';
import type { BitcoinTx } from './tx.ts';

/** How one input of a multisig payment is spent. */
export interface MultisigInputSpend {
  scriptType: MultisigScriptType;
  /** OP_M <keys> OP_N OP_CHECKMULTISIG: the redeem script (p2sh) or the witness script (segwit types). */
  multisigScript: Uint8Array;
  /** The amount of the output this input spends, read from the chain (BIP143 commits to it). */
  amount: bigint;
  /** The spent output's scriptPubKey, when known: the script must hash to it. */
  scriptPubKey?: Uint8Array;
}

interface ParsedSpend extends MultisigInputSpend {
  m: number;
  keys: Uint8Array[];
}

function parseSpend(params: ChainParams, spend: MultisigInputSpend, inputIndex: number): ParsedSpend {
  requireScriptType(params, spend.scriptType);
  const parsed = parseMultisigRedeemScript(spend.multisigScript);
  if (!parsed) throw new CoinError(`input ${inputIndex}: its script is not a multisig script (OP_M <keys> OP_N OP_CHECKMULTISIG)`, 'tx');
  if (spend.scriptPubKey !== undefined) {
    if (isSegwitScriptType(spend.scriptType)) checkWitnessScript(inputIndex, spend.multisigScript, spend.scriptPubKey);
    else {
      const out = classifyOutputScript(spend.scriptPubKey);
      if (out.type !== 'p2sh' || !equalBytes(out.hash, hash160(spend.multisigScript))) {
        throw new CoinError(`input ${inputIndex}: the redeem script does not hash to the P2SH output this input spends`, 'tx');
      }
    }
  }
  return { ...spend, m: parsed.m, keys: parsed.pubkeys };
}

/**
 * The digest input `inputIndex` is signed with: BIP143 over the witness script for the segwit
 * types, the coin's own digest over the redeem script for P2SH; both with the spent amount.
 */
export function multisigInputHash(params: ChainParams, tx: BitcoinTx, inputIndex: number, spend: MultisigInputSpend): Uint8Array {
  const { scriptType, multisigScript, amount, scriptPubKey } = parseSpend(params, spend, inputIndex);
  if (isSegwitScriptType(scriptType)) return segwitSignatureHash(params, tx, inputIndex, { witnessScript: multisigScript, amount });
  return signatureHash(params, tx, inputIndex, { scriptCode: multisigScript, amount, ...(scriptPubKey === undefined ? {} : { scriptPubKey }) });
}

/**
 * Checks one signature of a multisig input; returns its DER form. Refuses, naming the input and
 * the key, a key that is not in the script and a signature that does not verify against the
 * digest (e.g. made over another amount).
 */
export function checkMultisigSignature(params: ChainParams, tx: BitcoinTx, spend: MultisigInputSpend, signature: SuppliedSignature): Uint8Array {
  const i = signature.inputIndex;
  const where = `input ${i}, public key ${bytesToHex(signature.publicKey)}`;
  if (!Number.isInteger(i) || i < 0 || i >= tx.inputs.length) {
    throw new CoinError(`${where}: the transaction has no input ${i} (it has ${tx.inputs.length})`, 'signatures');
  }
  const parsed = parseSpend(params, spend, i);
  if (!parsed.keys.some((k) => equalBytes(k, signature.publicKey))) {
    throw new CoinError(`${where}: this key is not one of the keys that can sign input ${i}`, 'signatures');
  }
  const hash = multisigInputHash(params, tx, i, spend);
  if (signature.hashToSign && !equalBytes(signature.hashToSign, hash)) {
    throw new CoinError(`${where}: hash_to_sign ${bytesToHex(signature.hashToSign)} is not the hash of this transaction's input (${bytesToHex(hash)})`, 'signatures');
  }
  const der = derOf(params, signature.signature, where);
  if (!verifyDerSignature(hash, signature.publicKey, der)) {
    const what = isSegwitScriptType(parsed.scriptType) ? `this transaction's BIP143 hash for an input of ${parsed.amount}` : "this transaction's hash";
    throw new CoinError(`${where}: the signature does not verify against ${what} (wrong key, another amount or hash, or an altered transaction)`, 'signatures');
  }
  return der;
}

/**
 * The signed transaction: P2SH inputs get `OP_0 <sigs> <redeemScript>` as scriptSig; P2WSH inputs
 * an empty scriptSig and the witness `<empty> <sigs> <witnessScript>`; P2SH-P2WSH inputs the same
 * witness and the push of 0020<sha256(witnessScript)> as scriptSig. Exactly M signatures each,
 * in the script's key order. `spends` lists every input, in order.
 */
export function assembleMultisigSpend(params: ChainParams, unsigned: BitcoinTx, spends: readonly MultisigInputSpend[], signatures: readonly SuppliedSignature[]): BitcoinTx {
  if (spends.length !== unsigned.inputs.length) {
    throw new CoinError(`${spends.length} input spend(s) given for the transaction's ${unsigned.inputs.length} input(s)`, 'tx');
  }
  const parsed = spends.map((s, i) => parseSpend(params, s, i));
  const valid: Map<string, Uint8Array>[] = spends.map(() => new Map());
  for (const sig of signatures) {
    const spend = spends[sig.inputIndex];
    if (spend === undefined) throw new CoinError(`input ${sig.inputIndex}: the transaction has no such input (it has ${spends.length})`, 'signatures');
    const der = checkMultisigSignature(params, unsigned, spend, sig);
    const keyHex = bytesToHex(sig.publicKey);
    const byKey = valid[sig.inputIndex]!;
    if (!byKey.has(keyHex)) byKey.set(keyHex, der); // two valid signatures by one key: keep the first
  }
  const inputs = unsigned.inputs.map((input, i) => {
    const spend = parsed[i]!;
    const sigs = spend.keys.map((k) => valid[i]!.get(bytesToHex(k))).filter((s): s is Uint8Array => s !== undefined);
    if (sigs.length < spend.m) throw new CoinError(`input ${i}: ${sigs.length} valid signature(s) of the ${spend.m} required`, 'signatures');
    const placed = sigs.slice(0, spend.m).map((der) => withHashType(der, params.hashType));
    const { witness: _old, ...rest } = input;
    if (!isSegwitScriptType(spend.scriptType)) return { ...rest, scriptSig: compileScript([OP.OP_0, ...placed, spend.multisigScript]) };
    const witness = [new Uint8Array(0), ...placed, spend.multisigScript];
    const scriptSig = spend.scriptType === 'p2sh-p2wsh' ? pushData(p2wshScript(spend.multisigScript)) : new Uint8Array(0);
    return { ...rest, scriptSig, witness };
  });
  return { ...unsigned, inputs };
}
