// Endpoints 7/10 and 8 (and v1's): the caller's signatures checked against the hashes recomputed
// from the unsigned transaction, the signed transaction assembled and broadcast; or a raw
// transaction checked to be one and broadcast.
import { assembleSigned, type SuppliedSignature } from '../../shared/coins/assemble.ts';
import { assembleMultisigSpend, type MultisigInputSpend } from '../../shared/coins/assemble-multisig.ts';
import { hasWitnessPlaceholder, readUnsignedMultisigInput } from '../../shared/coins/unsigned-witness.ts';
import { bytesToHex, hexToBytes } from '../../shared/coins/bytes.ts';
import type { ChainParams } from '../../shared/coins/coin-table.ts';
import { CoinError } from '../../shared/coins/errors.ts';
import { parsePublicKeyHex } from '../../shared/coins/keys.ts';
import { type BitcoinTx, decodeTx, encodeTx, isBitcoinTx, type Tx, txidHex, txVsize } from '../../shared/coins/tx.ts';
import type { Signatures } from '../../shared/api/schemas.ts';
import { outpointKey, type UtxoBackend } from '../chains/backend.ts';
import { ApiError } from '../errors.ts';
import { assembleMiniscriptInputs, isMiniscriptTx } from './miniscript-payment.ts';
import { checkReplacementFees, distinctConflicts, signalsReplacements } from './replacement.ts';

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

/**
 * The amounts the inputs spend, from the backend, for coins whose digest commits to them (fork-id
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

/**
 * Checks every signature against the hash recomputed for its input and key, assembles the signed
 * transaction (single-signature or multi-signature inputs alike) and broadcasts it. Resolves to
 * the txid.
 */
export async function signAndSend(backend: UtxoBackend, request: Signatures): Promise<string> {
  const unsigned = decodeTxField(backend.params, request.tx, 'tx').tx;
  const signatures = request.signatures.map((s, i) => ({
    inputIndex: s.input_index,
    publicKey: parsePublicKeyHex(s.public_key, `signatures[${i}].public_key`),
    signature: hexToBytes(strip0x(s.signature), `signatures[${i}].signature`),
    ...(strip0x(s.hash_to_sign).length > 0 ? { hashToSign: hexToBytes(strip0x(s.hash_to_sign), `signatures[${i}].hash_to_sign`) } : {}),
  }));
  if (isBitcoinTx(unsigned) && unsigned.inputs.some(hasWitnessPlaceholder) && isMiniscriptTx(unsigned)) {
    return broadcastChecked(backend, await assembleMiniscriptInputs(backend, unsigned, signatures));
  }
  if (isBitcoinTx(unsigned) && unsigned.inputs.some(hasWitnessPlaceholder)) {
    return broadcastChecked(backend, await assembleWithWitnesses(backend, unsigned, signatures));
  }
  const signed = assembleSigned(backend.params, unsigned, signatures, await spentAmounts(backend, unsigned));
  return broadcastChecked(backend, signed);
}

/**
 * A transaction whose inputs replaceable mempool transactions spend is a BIP125 replacement: before
 * it goes to the node it must pay a higher absolute fee and a higher rate than those transactions,
 * as the node now sees them (docs/api-decisions.md, section 8). Otherwise broadcast as always.
 */
async function broadcastChecked(backend: UtxoBackend, tx: Tx, bytes: Uint8Array = encodeTx(tx)): Promise<string> {
  if (backend.mempoolSpenders && signalsReplacements(backend.params)) {
    const outpoints = tx.inputs.map((i) => ({ txid: bytesToHex(i.prevTxid), vout: i.vout }));
    const own = txidHex(tx);
    const conflicts = distinctConflicts((await backend.mempoolSpenders(outpoints)).values()).filter((c) => c.txid !== own);
    // A conflict that does not signal is a plain double spend: the node refuses it, as it always did (422).
    if (conflicts.length > 0 && conflicts.every((c) => c.replaceable)) {
      const known = await backend.outputs(outpoints);
      let inValue = 0n;
      for (const [i, o] of outpoints.entries()) {
        const found = known.get(outpointKey(o.txid, o.vout));
        if (!found) throw new ApiError(409, `input ${i} spends ${o.txid}:${o.vout}, an output this service does not know: the replacement's fee cannot be checked`);
        inValue += found.amount;
      }
      const fee = inValue - tx.outputs.reduce((sum, o) => sum + o.value, 0n);
      checkReplacementFees(backend.params, fee, isBitcoinTx(tx) ? txVsize(tx) : bytes.length, conflicts);
      try {
        return await backend.broadcast(bytes);
      } catch (err) {
        // Litecoin Core signals BIP125 but replaces only with -mempoolreplacement=1 (default 0).
        if (err instanceof ApiError && err.statusCode === 422 && err.message.includes('txn-mempool-conflict')) {
          throw new ApiError(422, `${err.message}: the node does not accept this replacement of ${conflicts.map((c) => c.txid).join(', ')}; a node with replacement turned off (litecoind: -mempoolreplacement=1 turns it on) keeps the first`);
        }
        throw err;
      }
    }
  }
  return backend.broadcast(bytes);
}

/**
 * A multisig payment with segwit inputs (docs/api-decisions.md, section 8): each input's script
 * type and script are read from the unsigned transaction, the amount and scriptPubKey it spends
 * from the chain (never from the caller). Every signature is checked against its input's digest
 * (BIP143 with the chain's amount for segwit inputs) before anything is broadcast.
 */
async function assembleWithWitnesses(backend: UtxoBackend, unsigned: BitcoinTx, signatures: readonly SuppliedSignature[]) {
  const outpoints = unsigned.inputs.map((i) => ({ txid: bytesToHex(i.prevTxid), vout: i.vout }));
  const known = await backend.outputs(outpoints);
  const spends: MultisigInputSpend[] = unsigned.inputs.map((input, i) => {
    const read = readUnsignedMultisigInput(input, i);
    if (!read) throw new CoinError(`input ${i} of tx is not an unsigned multisig input as create returns it (its redeem script, or its witness script as the witness)`, 'tx');
    const o = outpoints[i]!;
    const found = known.get(outpointKey(o.txid, o.vout));
    if (!found) throw new ApiError(409, `input ${i} spends ${o.txid}:${o.vout}, an output this service does not know: its amount is needed to check the signatures`);
    return { ...read, amount: found.amount, scriptPubKey: found.script };
  });
  return assembleMultisigSpend(backend.params, unsigned, spends, signatures);
}

/** Broadcasts a transaction signed elsewhere: bytes that are no transaction are a 400 before the node sees them. Resolves to the txid. */
export async function sendRaw(backend: UtxoBackend, rawtx: string): Promise<string> {
  const { tx, bytes } = decodeTxField(backend.params, rawtx, 'rawtx');
  return broadcastChecked(backend, tx, bytes);
}
