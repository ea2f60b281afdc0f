// The transaction an input spends, read from its own bytes: its txid (which commits to every
// output's amount and script) and the output spent, compared with what the input is said to hold.
// The desk checks the service's answers with it, a co-signer the transactions a request carries.
import { bytesToHex, decodeTx, equalBytes, txidHex, type ChainParams, type TxOutput } from '../coins/index.ts';
import { coinAmount } from '../coins/units.ts';
import { outputOfRaw, txidOfRaw } from './psbt.ts';

/**
 * txid and outputs of a serialized transaction. A Bitcoin-format one our codec refuses (a coin's
 * own extension after the outputs) is still read up to its outputs, its txid hashed from the bytes. Pure.
 */
export function readPrevious(raw: Uint8Array, params: ChainParams): { txid: string; output: (vout: number) => TxOutput | undefined } {
  try {
    const tx = decodeTx(raw, params);
    return { txid: txidHex(tx), output: (vout) => tx.outputs[vout] };
  } catch (err) {
    // Only Bitcoin-format transactions have a txid that is the double SHA-256 of their bytes.
    if (params.txFormat !== 'bitcoin') throw err;
    return { txid: bytesToHex(txidOfRaw(raw)), output: (vout) => outputOfRaw(raw, vout) };
  }
}

/** The output an input is expected to spend: its amount, and the script paying `payee` (words for messages). */
export interface ExpectedSpend {
  amount: bigint;
  script: Uint8Array;
  payee: string;
}

/**
 * Why `out`, output `vout` of `txid` as its own transaction has it, is not the output `expected`,
 * or null when it is. The one wording for the proposal, PSBT export, signing requests and the Ledger. Pure.
 */
export function spendMismatch(params: ChainParams, out: TxOutput | undefined, txid: string, vout: number, expected: ExpectedSpend): string | null {
  if (!out) return `transaction ${txid} has no output ${vout}`;
  if (!equalBytes(out.script, expected.script)) return `output ${vout} of ${txid} does not pay ${expected.payee}`;
  if (out.value !== expected.amount) return `output ${vout} of ${txid} holds ${coinAmount(params, out.value)}, not the ${coinAmount(params, expected.amount)} expected`;
  return null;
}
