// BIP125 replacements (docs/api-decisions.md, section 8): a payment whose inputs are spent by
// mempool transactions replaces them, only when they signal replaceability and it pays both a
// higher absolute fee (rule 3, counting the descendants it evicts) and a higher fee rate than each.
import { type ChainParams, utxoCoinRow } from '../../shared/coins/coin-table.ts';
import { coinAmount } from '../../shared/coins/units.ts';
import type { MempoolConflict, UtxoBackend } from '../chains/backend.ts';
import { ApiError, badRequest } from '../errors.ts';

/** fee / vsize with two decimals, exactly rounded down (bigint). */
export function rateText(fee: bigint, vsize: number): string {
  const hundredths = (fee * 100n) / BigInt(vsize);
  return `${hundredths / 100n}.${String(hundredths % 100n).padStart(2, '0')}`;
}

/** The distinct transactions among the conflicts, in the order first met. */
export function distinctConflicts(conflicts: Iterable<MempoolConflict>): MempoolConflict[] {
  const byTxid = new Map<string, MempoolConflict>();
  for (const c of conflicts) if (!byTxid.has(c.txid)) byTxid.set(c.txid, c);
  return [...byTxid.values()];
}

/** The coin row's `bip125`: whether its nodes understand opt-in replacement signalling at all. */
export function signalsReplacements(params: Pick<ChainParams, 'coin'>): boolean {
  return utxoCoinRow(params.coin).bip125;
}

/** Whether this deployment's node relays replacements: the coin signals them and the backend says so (the operator's config or the coin's default). */
export function nodeRelaysReplacements(backend: Pick<UtxoBackend, 'params' | 'relaysReplacements'>): boolean {
  return signalsReplacements(backend.params) && backend.relaysReplacements === true;
}

/** Refuses a replacement on a coin whose nodes do not relay them, over a node that does not, or of a transaction that does not signal. */
export function checkReplaceable(backend: Pick<UtxoBackend, 'params' | 'relaysReplacements'>, conflicts: readonly MempoolConflict[]): void {
  if (conflicts.length === 0) return;
  const { params } = backend;
  const txids = conflicts.map((c) => c.txid).join(', ');
  if (!signalsReplacements(params)) throw badRequest(`${params.coin} nodes do not relay replacements (BIP125): its inputs are spent by ${txids}`);
  if (!nodeRelaysReplacements(backend)) {
    throw new ApiError(409, `this service's ${params.coin} node does not relay replacements (BIP125), so a replacement of ${txids} would be refused; pull it through by child-pays-for-parent on its change instead`);
  }
  const final = conflicts.filter((c) => !c.replaceable);
  if (final.length > 0) {
    throw new ApiError(409, `the inputs are spent by mempool transaction ${final.map((c) => c.txid).join(', ')}, which does not signal replaceability (BIP125): it cannot be replaced`);
  }
}

/**
 * BIP125 rules 3 and 4 as this service applies them: the replacement's fee above the sum of what
 * the conflicts and their descendants pay, and its rate (fee / vsize) above each conflict's own.
 * Rates are compared exactly by cross-multiplying. The refusal reaches a treasurer's screen, so
 * fees are in the coin's unit and rates in its smallest unit per vbyte ("litoshi/vB").
 */
export function checkReplacementFees(params: Pick<ChainParams, 'coin' | 'network' | 'decimals'>, fee: bigint, vsize: number, conflicts: readonly MempoolConflict[]): void {
  if (conflicts.length === 0) return;
  const oldFee = conflicts.reduce((sum, c) => sum + c.descendantFee, 0n);
  const top = conflicts.reduce((a, c) => (c.fee * BigInt(a.vsize) > a.fee * BigInt(c.vsize) ? c : a));
  const feeOk = fee > oldFee;
  const rateOk = fee * BigInt(top.vsize) > top.fee * BigInt(vsize);
  if (feeOk && rateOk) return;
  const txids = conflicts.map((c) => c.txid).join(', ');
  const perVbyte = `${utxoCoinRow(params.coin).smallestUnit}/vB`;
  throw new ApiError(
    409,
    `a replacement must pay a higher absolute fee and a higher fee rate than what it replaces (BIP125 rules 3 and 4): ` +
      `this one pays ${coinAmount(params, fee)} at ${rateText(fee, vsize)} ${perVbyte} (${vsize} vbytes); ` +
      `${txids} ${conflicts.length > 1 ? 'pay' : 'pays'} ${coinAmount(params, oldFee)} in total (with descendants) at ${rateText(top.fee, top.vsize)} ${perVbyte}` +
      `${feeOk ? '' : '; the fee is not higher'}${rateOk ? '' : '; the rate is not higher'}`,
  );
}
