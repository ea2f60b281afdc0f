// The previous transactions of a payment's inputs, from the service's extension endpoint
// GET /transaction/raw/{coin}/{txid}, checked here: the bytes must hash to the txid the input
// spends (a txid commits to every output's amount and script), and the output spent must be the
// one expected. The proposal check, PSBTs, signing requests and the Ledger all rely on this one
// check instead of the service's word on what an input holds.
import { bytesToHex, decodeTx, equalBytes, hexToBytes, txidHex, type ChainParams, type CoinName, type TxOutput } from '../../shared/coins/index.ts';
import { outputOfRaw, txidOfRaw } from '../../shared/files/psbt.ts';
import type { CoordinatorApi } from './api.ts';
import { CoordinatorError } from './errors.ts';

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
export function spendMismatch(out: TxOutput | undefined, txid: string, vout: number, expected: ExpectedSpend): string | null {
  if (!out) return `transaction ${txid} has no output ${vout}`;
  if (!equalBytes(out.script, expected.script)) return `output ${vout} of ${txid} does not pay ${expected.payee}`;
  if (out.value !== expected.amount) return `output ${vout} of ${txid} holds ${out.value}, not the ${expected.amount} expected`;
  return null;
}

export class PreviousTransactions {
  private constructor(
    private readonly byTxid: ReadonlyMap<string, { raw: Uint8Array; output: (vout: number) => TxOutput | undefined }>,
  ) {}

  /** Fetches each distinct txid once and checks its bytes hash to it; throws CoordinatorError('service_mismatch') otherwise. */
  static async fetch(api: Pick<CoordinatorApi, 'rawTransaction'>, coin: CoinName, params: ChainParams, txids: readonly string[]): Promise<PreviousTransactions> {
    const byTxid = new Map<string, { raw: Uint8Array; output: (vout: number) => TxOutput | undefined }>();
    for (const txid of new Set(txids.map((t) => t.toLowerCase()))) {
      let read;
      let raw: Uint8Array;
      try {
        raw = hexToBytes((await api.rawTransaction(coin, txid)).hex.toLowerCase());
        read = readPrevious(raw, params);
      } catch (err) {
        throw new CoordinatorError('service_mismatch', `the previous transaction ${txid} cannot be read from the service: ${err instanceof Error ? err.message : String(err)}`);
      }
      if (read.txid !== txid) throw new CoordinatorError('service_mismatch', `the service answered previous transaction ${txid} with another transaction (it hashes to ${read.txid})`);
      byTxid.set(txid, { raw, output: read.output });
    }
    return new PreviousTransactions(byTxid);
  }

  raw(txid: string): Uint8Array {
    const entry = this.byTxid.get(txid.toLowerCase());
    if (!entry) throw new CoordinatorError('internal', `previous transaction ${txid} was not fetched`);
    return entry.raw;
  }

  /** spendMismatch for output `vout` of `txid`. */
  mismatch(txid: string, vout: number, expected: ExpectedSpend): string | null {
    return spendMismatch(this.output(txid, vout), txid, vout, expected);
  }

  /** The output an input spends, as its own transaction says; undefined when it has no such output. */
  output(txid: string, vout: number): TxOutput | undefined {
    const entry = this.byTxid.get(txid.toLowerCase());
    if (!entry) throw new CoordinatorError('internal', `previous transaction ${txid} was not fetched`);
    try {
      return entry.output(vout);
    } catch {
      return undefined;
    }
  }
}
