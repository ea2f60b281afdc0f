// What a Ledger needs besides the unsigned transaction: each input's previous transaction (from
// the service's extension endpoint GET /transaction/raw/{coin}/{txid}), checked here to hash to
// its txid and to hold the output the input spends, with the amount and script we stored.
import { bytesToHex, decodeTx, type ChainParams, type CoinName, type Tx } from '../../../shared/coins/index.ts';
import type { MultisigScriptType } from '../../../shared/coins/multisig-script.ts';
import type { CoordinatorApi } from '../api.ts';
import { CoordinatorError } from '../errors.ts';
import { PreviousTransactions } from '../payments/previous-transactions.ts';
import type { PaymentInputRow, PaymentRow } from '../store/store.ts';
import { spendScripts, type SpendScripts } from './spend-scripts.ts';

export interface LedgerInput {
  index: number;
  /** Display order (as nodes show it). */
  prevTxid: string;
  vout: number;
  sequence: number;
  prevTx: Uint8Array;
  /** Proven by the previous transaction (segwit signatures commit to it). */
  amount: bigint;
  /** The multisig script: the signature hash's script code (the witness script of the segwit types). */
  redeemScript: Uint8Array;
  /** How the wallet's script type spends it. */
  spend: SpendScripts;
  /** Below each co-signer's xpub: [change, index]. */
  below: [number, number];
}

export interface LedgerPayment {
  tx: Tx;
  inputs: LedgerInput[];
}

function refuse(why: string): never {
  throw new CoordinatorError('bad_previous_tx', `cannot sign on the Ledger: ${why}`);
}

/** Decodes the payment, fetches and checks each input's previous transaction. */
export async function ledgerPayment(api: Pick<CoordinatorApi, 'rawTransaction'>, params: ChainParams, coin: CoinName, p: PaymentRow, rows: readonly PaymentInputRow[], scriptType: MultisigScriptType = 'p2sh'): Promise<LedgerPayment> {
  const tx = decodeTx(p.unsignedTx, params);
  if (tx.inputs.length !== rows.length) refuse(`the payment has ${tx.inputs.length} inputs but ${rows.length} are recorded`);
  let previous: PreviousTransactions;
  try {
    // The device trusts what it is given about amounts: the bytes must be the transaction itself.
    previous = await PreviousTransactions.fetch(api, coin, params, tx.inputs.map((input) => bytesToHex(input.prevTxid)));
  } catch (err) {
    return refuse(err instanceof Error ? err.message : String(err));
  }
  const inputs = tx.inputs.map((input, i): LedgerInput => {
    const row = rows.find((r) => r.inputIndex === i);
    if (!row) return refuse(`input ${i} is not recorded`);
    const prevTxid = bytesToHex(input.prevTxid);
    const spend = spendScripts(scriptType, row.redeemScript);
    const mismatch = previous.mismatch(prevTxid, input.vout, { amount: row.amount, script: spend.scriptPubKey, payee: "the wallet's address" });
    if (mismatch) refuse(`input ${i}: ${mismatch}`);
    return { index: i, prevTxid, vout: input.vout, sequence: input.sequence, prevTx: previous.raw(prevTxid), amount: row.amount, redeemScript: row.redeemScript, spend, below: [row.change ? 1 : 0, row.index] };
  });
  return { tx, inputs };
}
