// The previous transactions of a payment's inputs, from the service's extension endpoint
// GET /transaction/raw/{coin}/{txid}, checked here: the bytes must hash to the txid the input
// spends (a txid commits to every output's amount and script), and the output spent must be the
// one expected. The proposal check, PSBTs, signing requests and the Ledger all rely on this one
// check instead of the service's word on what an input holds.
import { hexToBytes, type ChainParams, type CoinName, type TxOutput } from '../../../shared/coins/index.ts';
import { readPrevious, spendMismatch, type ExpectedSpend } from '../../../shared/files/previous-transaction.ts';
import type { CoordinatorApi } from '../api.ts';
import { CoordinatorError } from '../errors.ts';

export class PreviousTransactions {
  private constructor(
    private readonly params: ChainParams,
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
    return new PreviousTransactions(params, byTxid);
  }

  raw(txid: string): Uint8Array {
    const entry = this.byTxid.get(txid.toLowerCase());
    if (!entry) throw new CoordinatorError('internal', `previous transaction ${txid} was not fetched`);
    return entry.raw;
  }

  /** spendMismatch for output `vout` of `txid`. */
  mismatch(txid: string, vout: number, expected: ExpectedSpend): string | null {
    return spendMismatch(this.params, this.output(txid, vout), txid, vout, expected);
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
