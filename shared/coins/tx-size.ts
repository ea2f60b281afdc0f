// Serialized sizes for fee estimation, at their largest (72-byte DER signatures + hash type).
import { encodeCompactSize } from './bytes.ts';
import type { ChainParams } from './coin-table.ts';

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
