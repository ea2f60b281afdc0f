// Serialized sizes for fee estimation, at their largest (72-byte DER signatures + hash type).
import { encodeCompactSize } from './bytes.ts';

const MAX_SIG_PUSH = 1 + 73;
const OUTPOINT_AND_SEQUENCE = 32 + 4 + 4;

/** version + locktime + the two counts */
export function txOverheadSize(inputs: number, outputs: number): number {
  return 4 + 4 + encodeCompactSize(inputs).length + encodeCompactSize(outputs).length;
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
