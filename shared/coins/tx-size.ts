// Serialized sizes for fee estimation, at their largest (72-byte DER signatures + hash type).
import { encodeCompactSize } from './bytes.ts';
import type { ChainParams } from './coin-table.ts';
import type { MultisigScriptType } from './multisig-script.ts';

const MAX_SIG_PUSH = 1 + 73;
const OUTPOINT_AND_SEQUENCE = 32 + 4 + 4;

// Fields a transparent-only Zcash transaction adds: v4 version group, expiry, valueBalance and
// three empty shielded counts; v5 version group, branch id, expiry and three empty counts.
const FORMAT_OVERHEAD = { bitcoin: 0, 'zcash-v4': 4 + 4 + 8 + 3, 'zcash-v5': 4 + 4 + 4 + 3 } as const;

/** version + locktime + the two counts, plus the coin's format fields */
export function txOverheadSize(params: Pick<ChainParams, 'txFormat'>, inputs: number, outputs: number): number {
  return 4 + 4 + encodeCompactSize(inputs).length + encodeCompactSize(outputs).length + FORMAT_OVERHEAD[params.txFormat];
}

/** outpoint + scriptSig <sig> <33-byte key> + sequence */
export const P2PKH_INPUT_SIZE = OUTPOINT_AND_SEQUENCE + 1 + MAX_SIG_PUSH + 1 + 33;

function pushSize(length: number): number {
  if (length < 0x4c) return 1 + length;
  if (length <= 0xff) return 2 + length;
  return 3 + length;
}

/** outpoint + scriptSig OP_0 <sig>*m <redeemScript> + sequence */
export function multisigInputSize(required: number, redeemScriptLength: number): number {
  const scriptSig = 1 + required * MAX_SIG_PUSH + pushSize(redeemScriptLength);
  return OUTPOINT_AND_SEQUENCE + encodeCompactSize(scriptSig).length + scriptSig;
}

export function outputSize(scriptLength: number): number {
  return 8 + encodeCompactSize(scriptLength).length + scriptLength;
}

/** An input of a payment, for vsize estimation: single-sig P2PKH, or M-of-N multisig of a script type. */
export type VsizeInput =
  | { readonly scriptType: 'p2pkh' }
  | { readonly scriptType: MultisigScriptType; readonly m: number; readonly n: number }
  // A P2WSH input whose witness (count, items, script) is sized by its owner (miniscript vaults).
  | { readonly scriptType: 'witness'; readonly witness: number };

const SIG_ITEM = 73; // 72-byte DER signature + hash type, the largest low-S signature
const countLength = (k: number): number => (k <= 16 ? 1 : 2); // OP_k, or the push of 17..20

/** Length of OP_M <n compressed keys> OP_N OP_CHECKMULTISIG. */
export function multisigScriptLength(m: number, n: number): number {
  return countLength(m) + n * 34 + countLength(n) + 1;
}

/** The scriptSig and witness lengths of one input at its largest (witness 0: none). */
export function vsizeInputParts(input: VsizeInput): { scriptSig: number; witness: number } {
  if (input.scriptType === 'p2pkh') return { scriptSig: 1 + MAX_SIG_PUSH + 1 + 33, witness: 0 };
  if (input.scriptType === 'witness') return { scriptSig: 0, witness: input.witness };
  const script = multisigScriptLength(input.m, input.n);
  if (input.scriptType === 'p2sh') return { scriptSig: 1 + input.m * MAX_SIG_PUSH + pushSize(script), witness: 0 };
  // Witness: item count, the empty dummy, M signatures, the witness script; each item length-prefixed.
  const witness = encodeCompactSize(input.m + 2).length + 1 + input.m * (1 + SIG_ITEM) + encodeCompactSize(script).length + script;
  return { scriptSig: input.scriptType === 'p2sh-p2wsh' ? 1 + 34 : 0, witness };
}

/**
 * The virtual size (weight / 4, rounded up) of a payment with these inputs and outputs (the
 * outputs' scriptPubKey lengths), with every signature at its largest (73 bytes with the hash
 * type): fee = rate per vbyte x this never underpays. A real transaction is smaller by up to
 * a quarter byte per shorter segwit signature, a byte per shorter P2SH signature.
 */
export function estimateVsize(params: Pick<ChainParams, 'txFormat'>, inputs: readonly VsizeInput[], outputScriptLengths: readonly number[]): number {
  const parts = inputs.map(vsizeInputParts);
  const segwit = parts.some((p) => p.witness > 0);
  const base =
    txOverheadSize(params, inputs.length, outputScriptLengths.length) +
    parts.reduce((sum, p) => sum + OUTPOINT_AND_SEQUENCE + encodeCompactSize(p.scriptSig).length + p.scriptSig, 0) +
    outputScriptLengths.reduce((sum, len) => sum + outputSize(len), 0);
  // Marker and flag, then one stack per input (an empty one is its zero count).
  const witness = segwit ? 2 + parts.reduce((sum, p) => sum + (p.witness > 0 ? p.witness : 1), 0) : 0;
  return Math.ceil((base * 4 + witness) / 4);
}
