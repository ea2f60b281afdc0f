// The steps endpoints 6/9 and 7/10 share: coin selection over the index, building with the
// shared money code, verifying signatures and broadcasting.
import { addressToScript } from '../../shared/coins/address.ts';
import { assembleSigned } from '../../shared/coins/assemble.ts';
import { bytesToHex, hexToBytes } from '../../shared/coins/bytes.ts';
import { parsePublicKeyHex } from '../../shared/coins/keys.ts';
import { buildPayment, type PaymentSource, type SpendableOutput } from '../../shared/coins/payment.ts';
import { decodeTx, encodeTx, type Tx } from '../../shared/coins/tx.ts';
import { CoinError } from '../../shared/coins/errors.ts';
import type { ChainParams } from '../../shared/coins/coin-table.ts';
import type { Signatures } from '../../shared/api/schemas.ts';
import type { UtxoBackend } from '../chains/backend.ts';
import { ApiError } from '../errors.ts';
import { outpointKey } from '../store/utxo-index.ts';

export function strip0x(hex: string): string {
  return hex.startsWith('0x') || hex.startsWith('0X') ? hex.slice(2) : hex;
}

/** Decodes a transaction given in a request field; a bad one is a 400 naming the field. */
export function decodeTxField(params: ChainParams, hex: string, field: string): { tx: Tx; bytes: Uint8Array } {
  const bytes = hexToBytes(strip0x(hex), field);
  try {
    return { tx: decodeTx(bytes, params), bytes };
  } catch (err) {
    if (err instanceof CoinError) throw new CoinError(`${field} is not a valid transaction: ${err.message}`, field);
    throw err;
  }
}

export async function spendable(backend: UtxoBackend, scriptPubKey: Uint8Array): Promise<SpendableOutput[]> {
  const rows = await backend.unspent([scriptPubKey]);
  return rows.map((r) => ({ txid: r.txid, vout: r.vout, amount: r.amount, scriptPubKey: r.script }));
}

export interface PaymentTerms {
  to: string;
  amount: bigint;
  fee_address?: string | undefined;
  fee_amount?: bigint | undefined;
  miners_fee?: bigint | undefined;
}

export async function createPayment(backend: UtxoBackend, sources: PaymentSource[], terms: PaymentTerms) {
  const { params } = backend;
  const to = { script: addressToScript(params, terms.to, 'to'), amount: terms.amount };
  const operatorFee =
    terms.fee_address !== undefined && terms.fee_amount !== undefined
      ? { script: addressToScript(params, terms.fee_address, 'fee_address'), amount: terms.fee_amount }
      : undefined;
  const feePerKb = terms.miners_fee === undefined ? await backend.feePerKb() : 0n;
  // Zcash transactions carry the branch id of the block they are for.
  const height = ((await backend.indexedHeight()) ?? 0) + 1;
  const built = buildPayment({
    params,
    sources,
    to,
    feePerKb,
    height,
    ...(operatorFee ? { operatorFee } : {}),
    ...(terms.miners_fee !== undefined ? { minersFee: terms.miners_fee } : {}),
  });
  return {
    tx: bytesToHex(encodeTx(built.tx)),
    total_input_value: built.totalInputValue,
    hashes: built.hashes.map((h) => ({ input_index: h.inputIndex, public_key: bytesToHex(h.publicKey), hash_to_sign: bytesToHex(h.hash) })),
  };
}

/**
 * The amounts the inputs spend, from the index, for coins whose digest commits to them (fork-id
 * and Zcash coins); undefined for the legacy digest, which needs none.
 */
async function spentAmounts(backend: UtxoBackend, tx: Tx): Promise<bigint[] | undefined> {
  if (backend.params.sighashAlgorithm === 'legacy') return undefined;
  const outpoints = tx.inputs.map((i) => ({ txid: bytesToHex(i.prevTxid), vout: i.vout }));
  const known = await backend.outputs(outpoints);
  return outpoints.map((o, i) => {
    const found = known.get(outpointKey(o.txid, o.vout));
    if (!found) throw new ApiError(409, `input ${i} spends ${o.txid}:${o.vout}, an output this service does not know: its amount is needed to check the signatures`);
    return found.amount;
  });
}

export async function signAndSend(backend: UtxoBackend, body: Signatures) {
  const unsigned = decodeTxField(backend.params, body.tx, 'tx').tx;
  const signatures = body.signatures.map((s, i) => ({
    inputIndex: s.input_index,
    publicKey: parsePublicKeyHex(s.public_key, `signatures[${i}].public_key`),
    signature: hexToBytes(strip0x(s.signature), `signatures[${i}].signature`),
    ...(strip0x(s.hash_to_sign).length > 0 ? { hashToSign: hexToBytes(strip0x(s.hash_to_sign), `signatures[${i}].hash_to_sign`) } : {}),
  }));
  const signed = assembleSigned(backend.params, unsigned, signatures, await spentAmounts(backend, unsigned));
  const txid = await backend.broadcast(encodeTx(signed));
  return { status_code: 200, message: txid };
}
