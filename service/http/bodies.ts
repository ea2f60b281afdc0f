// Response bodies the use cases' results become: bytes as hex, a sent transaction as SendStatus.
import { bytesToHex } from '../../shared/coins/bytes.ts';
import type { UnsignedPayment } from '../use-cases/build-payment.ts';

/**
 * HashesToSign (endpoints 6, 9); `withInputs` adds the extension's per-input statement, and a
 * treasury field in the request the fee, vsize and replaced transactions (docs/api-decisions.md).
 */
export function hashesToSignBody(p: UnsignedPayment, withInputs = false) {
  return {
    tx: bytesToHex(p.tx),
    total_input_value: p.totalInputValue,
    hashes: p.hashes.map((h) => ({ input_index: h.inputIndex, public_key: bytesToHex(h.publicKey), hash_to_sign: bytesToHex(h.hash) })),
    ...(p.extended ? { miners_fee: p.minersFee, vsize: p.vsize, replaces: p.replaces } : {}),
    ...(withInputs
      ? {
          inputs: p.inputs.map((i) => ({
            txid: i.txid,
            vout: i.vout,
            amount: i.amount,
            script_type: i.scriptType,
            script: bytesToHex(i.script),
            script_pub_key: bytesToHex(i.scriptPubKey),
            ...(i.miniscript !== undefined
              ? {
                  miniscript: i.miniscript.miniscript,
                  path: { index: i.miniscript.path.index, older: i.miniscript.path.older, keys: i.miniscript.path.keys, signatures: i.miniscript.path.signatures },
                  sequence: i.miniscript.sequence,
                  height: i.miniscript.height,
                  spendable_at_height: i.miniscript.spendableAtHeight,
                }
              : {}),
          })),
        }
      : {}),
  };
}

/** SendStatus: the txid of a broadcast transaction. */
export function sentBody(txid: string) {
  return { status_code: 200, message: txid };
}

/** Unspent outputs as endpoint 4 and v1 list them. */
export function utxoBody(rows: readonly { amount: bigint; vout: number; txid: string; script: Uint8Array }[]) {
  return rows.map((r) => ({ amount: r.amount, vout: r.vout, txid: r.txid, script_pub_key: bytesToHex(r.script) }));
}

/** v2's unspent outputs: the spec's fields and the extension's height and confirmations. */
export function utxoDepthBody(rows: readonly { amount: bigint; vout: number; txid: string; script: Uint8Array; height: number | null; confirmations: number }[]) {
  return utxoBody(rows).map((u, i) => ({ ...u, height: rows[i]!.height, confirmations: rows[i]!.confirmations }));
}
