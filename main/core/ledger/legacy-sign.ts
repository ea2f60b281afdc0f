// Signing P2SH multisig inputs with a legacy-protocol app (Litecoin, Dash, Bitcoin < 2.1; app-bitcoin
// btc.asc): hw-app-btc's signP2SHTransaction, fed each input's previous transaction (GET TRUSTED
// INPUT), its redeem script and the co-signer's key path. The fork-id apps and the Zcash app (its
// ZIP-244 flow in zcash-sign.ts) speak variants of the same commands. The app returns DER
// signatures; the caller verifies each against our own hash before anything is stored. Segwit
// inputs (P2WSH, P2SH-P2WSH) of the legacy-hash apps (Litecoin, Bitcoin < 2.1) go through the
// apps' BIP143 mode with trusted inputs (signSegwit); the fork-id apps hash every input that way.
import type { Transaction } from '@ledgerhq/hw-app-btc/lib/types.js';
import { isSegwitScriptType, type MultisigScriptType } from '../../../shared/coins/multisig-script.ts';
import { bytesToHex, coinRow, concatBytes, decodeTx, encodeCompactSize, equalBytes, hexToBytes, reverseBytes, type ChainParams, type Tx } from '../../../shared/coins/index.ts';
import { serializeOutputs, u32le, u64le } from './apdu-fields.ts';
import { compareVersions, derivesAccountKeysOnly, ledgerAddressFormat, type OpenApp } from './app.ts';
import { LedgerError } from './errors.ts';
import type { LegacySignature } from './input-signature.ts';
import { getTrustedInput, hashOutputFull, signP2SHTransaction, signTransaction, splitTransaction, startUntrustedHashTransactionInput } from './hw-app-btc.ts';
import type { LedgerInput } from './payment-inputs.ts';
import { formatPath, parsePath } from './paths.ts';
import type { Transport } from './transport.ts';
import { signZcash } from './zcash-sign.ts';

/** The BIP143-style fork-id apps (Bitcoin Cash, Bitcoin Gold) get the amount with each outpoint; the app adds its fork id. */
const forkidOptions = (params: ChainParams): string[] => (ledgerAddressFormat(params.coin) === 'cashaddr' ? ['cashaddr'] : []);

/** Zcash's v5 payments are signed by the Zcash app over ZIP-244; zclassic's v4 (ZIP-243) has no Ledger app. */
const isZcashV5 = (params: ChainParams): boolean => derivesAccountKeysOnly(params.coin) && params.sighashAlgorithm === 'zip244' && params.txFormat === 'zcash-v5';

/** A fork-id coin whose app the desk drives through the BIP143-style flow. */
const isForkidApp = (params: ChainParams): boolean => params.sighashAlgorithm === 'forkid' && coinRow(params.coin).ledger !== null;

export const canSignOnLedger = (params: ChainParams): boolean => params.sighashAlgorithm === 'legacy' || isForkidApp(params) || isZcashV5(params);

/**
 * The legacy apps take a segwit input's amount only inside a trusted input (GET TRUSTED INPUT over
 * the whole previous transaction) from 1.4.0 on, the version hw-app-btc's own
 * shouldUseTrustedInputForSegwit switches at; an older app would have to be told the amount unproven.
 */
export const SEGWIT_TRUSTED_INPUT_VERSION = '1.4.0';

/**
 * Why the open legacy-protocol app cannot sign this wallet's segwit inputs, or null when it can (or
 * the wallet is not segwit). Asked right after the app is known, before any of the payment is sent.
 */
export function legacySegwitProblem(params: ChainParams, app: OpenApp, scriptType: MultisigScriptType): string | null {
  if (!isSegwitScriptType(scriptType)) return null;
  if (!params.segwit || isZcashV5(params)) return `the ${app.name} app cannot sign ${scriptType} (segwit) inputs: ${params.coin} has no segwit on the Ledger; sign with a signature file instead`;
  if (params.sighashAlgorithm === 'legacy' && compareVersions(app.version, SEGWIT_TRUSTED_INPUT_VERSION) < 0) {
    return `the ${app.name} app version ${app.version} signs segwit inputs only with amounts it cannot check: the desk needs ${SEGWIT_TRUSTED_INPUT_VERSION} or later for ${scriptType} wallets (update it with Ledger Live)`;
  }
  return null;
}

/**
 * Segwit inputs on a legacy-hash app (lib-app-bitcoin's BIP143 mode, as hw-app-btc's
 * createPaymentTransaction drives it for app >= 1.4.0): a trusted input per input (the device reads
 * the previous transaction and vouches for outpoint and amount), HASH INPUT START in segwit mode
 * (P2 02) with every trusted input, the outputs once, then each input alone (P2 80) with its witness
 * script as script code, and HASH SIGN. The hash is BIP143's with the coin's SIGHASH_ALL.
 */
async function signSegwit(transport: Transport, params: ChainParams, tx: Tx, inputs: readonly LedgerInput[], account: readonly number[]): Promise<LegacySignature[]> {
  const u32 = (n: number) => {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(n >>> 0);
    return b;
  };
  const version = u32(tx.version);
  const trusted = [];
  for (const i of inputs) {
    const value = Buffer.from(await getTrustedInput(transport, i.vout, ledgerPrevious(params, i.prevTx)), 'hex');
    // The trusted input names the outpoint and amount the device read: they must be the ones we sign for.
    const named = value.subarray(4, 4 + 32 + 4 + 8);
    if (!equalBytes(named, concatBytes(reverseBytes(hexToBytes(i.prevTxid)), u32le(i.vout), u64le(i.amount)))) {
      throw new LedgerError('ledger_failed', `the Ledger read input ${i.index}'s previous transaction as another outpoint or amount: nothing was signed`);
    }
    trusted.push({ trustedInput: true, value, sequence: u32(i.sequence) });
  }
  const all = { version, inputs: inputs.map((i) => ({ prevout: Buffer.alloc(0), script: Buffer.alloc(0), sequence: u32(i.sequence) })) };
  await startUntrustedHashTransactionInput(transport, true, all, trusted, true, false, [], true);
  await hashOutputFull(transport, Buffer.from(serializeOutputs(tx.outputs)));
  const out: LegacySignature[] = [];
  for (const [k, i] of inputs.entries()) {
    const one = { version, inputs: [{ prevout: Buffer.alloc(0), script: Buffer.from(i.redeemScript), sequence: u32(i.sequence) }] };
    await startUntrustedHashTransactionInput(transport, false, one, [trusted[k]!], true, false, [], true);
    const signed = await signTransaction(transport, formatPath([...account, ...i.below]).slice(2), tx.locktime, params.hashType);
    if (signed.at(-1) !== params.hashType) throw new LedgerError('ledger_failed', `the Ledger signed input ${i.index} with hash type ${signed.at(-1)}, not ${params.hashType}: nothing was stored`);
    out.push({ inputIndex: i.index, signature: Uint8Array.from(signed.subarray(0, -1)) });
  }
  return out;
}

/**
 * Fork-id coins through hw-app-btc's lower-level calls (as its own BIP143 flow, plus the coin's
 * option on the first HASH INPUT START): every input with its amount, the outputs once, then each
 * input alone with its redeem script, signed with the coin's hash type (0x41).
 */
async function signForkid(transport: Transport, params: ChainParams, tx: Tx, inputs: readonly LedgerInput[], account: readonly number[]): Promise<LegacySignature[]> {
  const version = Buffer.alloc(4);
  version.writeUInt32LE(tx.version);
  const sequence = (n: number) => {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(n);
    return b;
  };
  const values = inputs.map((i) => ({ trustedInput: false, value: Buffer.from(concatBytes(reverseBytes(hexToBytes(i.prevTxid)), u32le(i.vout), u64le(i.amount))) }));
  const options = forkidOptions(params);
  const all = { version, inputs: inputs.map((i) => ({ prevout: Buffer.alloc(0), script: Buffer.alloc(0), sequence: sequence(i.sequence) })) };
  await startUntrustedHashTransactionInput(transport, true, all, values, true, false, options);
  await hashOutputFull(transport, Buffer.from(serializeOutputs(tx.outputs)));
  const out: LegacySignature[] = [];
  for (const [k, i] of inputs.entries()) {
    const one = { version, inputs: [{ prevout: Buffer.alloc(0), script: Buffer.from(i.redeemScript), sequence: sequence(i.sequence) }] };
    await startUntrustedHashTransactionInput(transport, false, one, [values[k]!], true, false, options);
    const signed = await signTransaction(transport, formatPath([...account, ...i.below]).slice(2), tx.locktime, params.hashType);
    // The app returns DER || hash type: the hash type must be the coin's.
    if (signed.at(-1) !== params.hashType) throw new LedgerError('ledger_failed', `the Ledger signed input ${i.index} with hash type ${signed.at(-1)}, not ${params.hashType}: nothing was stored`);
    out.push({ inputIndex: i.index, signature: Uint8Array.from(signed.subarray(0, -1)) });
  }
  return out;
}

/** The payload of a Dash special transaction (DIP2), or undefined for any other transaction. */
function dashPayload(params: ChainParams, prevTx: Uint8Array): Uint8Array | undefined {
  if (params.specialTx !== 'dash-dip2') return undefined;
  try {
    const tx = decodeTx(prevTx, params);
    return 'extraPayload' in tx ? tx.extraPayload : undefined;
  } catch {
    // Bytes our codec refuses were accepted by their hash alone (previous-transactions.ts): sent as
    // today; the device then names another txid and our signature check refuses the result.
    return undefined;
  }
}

/**
 * A previous transaction as hw-app-btc streams it to GET TRUSTED INPUT. A Dash special
 * transaction's txid also covers varint(payload length) || payload after its locktime. The legacy
 * app (lib-app-bitcoin transaction.c, TRANSACTION_OUTPUT_HASHING_DONE / PROCESS_EXTRA) reads, in
 * the locktime's APDU, a varint it does not hash, then hashes that many bytes. With hasExtraData,
 * hw-app-btc's extraData is everything after the locktime and getTrustedInput sends it behind a
 * varint of its own: the app then hashes exactly what the txid covers. Without it the payload is
 * dropped and the device names another txid.
 */
export function ledgerPrevious(params: ChainParams, prevTx: Uint8Array): Transaction {
  const payload = dashPayload(params, prevTx);
  // A previous transaction in segwit serialization (marker 00, flag 01 after the version): hw-app-btc
  // then keeps the witnesses aside and streams what the txid covers.
  if (payload === undefined) return splitTransaction(bytesToHex(prevTx), params.segwit && prevTx[4] === 0x00 && prevTx[5] === 0x01);
  let split: Transaction | undefined;
  try {
    split = splitTransaction(bytesToHex(prevTx), false, true);
  } catch {
    split = undefined;
  }
  // hw-app-btc's parse must find the same bytes after the locktime as our codec, or the device hashes another transaction.
  if (!split || !equalBytes(split.extraData ?? new Uint8Array(0), concatBytes(encodeCompactSize(payload.length), payload))) {
    throw new LedgerError('ledger_failed', 'the Ledger library reads the payload of this Dash special transaction differently from the desk: nothing was signed');
  }
  return split;
}

export async function signLegacy(transport: Transport, params: ChainParams, tx: Tx, inputs: readonly LedgerInput[], accountPath: string): Promise<LegacySignature[]> {
  // Fork-id apps: their BIP143-style flow is the same for P2SH and segwit inputs (the script code is the multisig script).
  if (isForkidApp(params)) return signForkid(transport, params, tx, inputs, parsePath(accountPath));
  if (inputs.some((i) => isSegwitScriptType(i.spend.scriptType))) {
    if (params.sighashAlgorithm !== 'legacy' || !params.segwit) throw new LedgerError('ledger_failed', `${params.coin} has no segwit inputs the Ledger can sign: sign with a signature file instead`);
    return signSegwit(transport, params, tx, inputs, parsePath(accountPath));
  }
  if (isZcashV5(params)) return signZcash(transport, params, tx, inputs, accountPath);
  if (params.sighashAlgorithm !== 'legacy' || tx.format !== undefined && tx.format !== 'bitcoin') {
    throw new LedgerError('ledger_failed', `signing ${params.coin} payments on a Ledger is not supported by the desk yet (its ${params.sighashAlgorithm} signature hash needs another device flow): sign with a signature file instead`);
  }
  const account = parsePath(accountPath);
  const signatures = await signP2SHTransaction(transport, {
    inputs: inputs.map((i) => [ledgerPrevious(params, i.prevTx), i.vout, bytesToHex(i.redeemScript), i.sequence]),
    // hw-app-btc takes paths without the leading "m/".
    associatedKeysets: inputs.map((i) => formatPath([...account, ...i.below]).slice(2)),
    outputScriptHex: bytesToHex(serializeOutputs(tx.outputs)),
    lockTime: tx.locktime,
    sigHashType: params.hashType,
    segwit: false,
    transactionVersion: tx.version,
  });
  return signatures.map((hex, k) => ({ inputIndex: inputs[k]!.index, signature: Uint8Array.from(Buffer.from(hex, 'hex')) }));
}
