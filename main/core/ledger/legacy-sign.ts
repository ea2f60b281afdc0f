// Signing P2SH multisig inputs with a legacy-protocol app (Litecoin, Dash, Bitcoin < 2.1; app-bitcoin
// btc.asc): hw-app-btc's signP2SHTransaction, fed each input's previous transaction (GET TRUSTED
// INPUT), its redeem script and the co-signer's key path. The app returns DER signatures; the caller
// verifies each against our own hash before anything is stored.
import { bytesToHex, concatBytes, encodeCompactSize, type ChainParams, type Tx } from '../../../shared/coins/index.ts';
import { LedgerError } from './errors.ts';
import { signP2SHTransaction, splitTransaction } from './hw-app-btc.ts';
import type { LedgerInput } from './payment-inputs.ts';
import { formatPath, parsePath } from './paths.ts';
import type { Transport } from './transport.ts';

export interface LegacySignature {
  inputIndex: number;
  /** DER, without the hash type byte. */
  signature: Uint8Array;
}

function u64le(v: bigint): Uint8Array {
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigUint64(0, v, true);
  return out;
}

/** The outputs as the transaction serializes them (count, then value and script of each). */
export function serializeOutputs(tx: Tx): Uint8Array {
  return concatBytes(encodeCompactSize(tx.outputs.length), ...tx.outputs.flatMap((o) => [u64le(o.value), encodeCompactSize(o.script.length), o.script]));
}

export async function signLegacy(transport: Transport, params: ChainParams, tx: Tx, inputs: readonly LedgerInput[], accountPath: string): Promise<LegacySignature[]> {
  if (params.sighashAlgorithm !== 'legacy' || tx.format !== undefined && tx.format !== 'bitcoin') {
    throw new LedgerError('ledger_failed', `signing ${params.coin} payments on a Ledger is not supported by the desk yet (its ${params.sighashAlgorithm} signature hash needs another device flow): sign with a signature file instead`);
  }
  const account = parsePath(accountPath);
  const signatures = await signP2SHTransaction(transport, {
    inputs: inputs.map((i) => [splitTransaction(bytesToHex(i.prevTx), false), i.vout, bytesToHex(i.redeemScript), i.sequence]),
    // hw-app-btc takes paths without the leading "m/".
    associatedKeysets: inputs.map((i) => formatPath([...account, ...i.below]).slice(2)),
    outputScriptHex: bytesToHex(serializeOutputs(tx)),
    lockTime: tx.locktime,
    sigHashType: params.hashType,
    segwit: false,
    transactionVersion: tx.version,
  });
  return signatures.map((hex, k) => ({ inputIndex: inputs[k]!.index, signature: Uint8Array.from(Buffer.from(hex, 'hex')) }));
}
