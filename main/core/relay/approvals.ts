// A wallet's approval rule, pure: how many named approvers must approve a payment before its
// co-signers are asked, always or only above a spending limit per day, week or month.
import type { ApprovalRow, ApprovalRule } from '../store/relay-store.ts';

const PERIOD_MS = { day: 86_400_000, week: 7 * 86_400_000, month: 30 * 86_400_000 } as const;

/** When the period counted back from `now` starts (a rolling window: a month is 30 days). */
export function periodStart(period: NonNullable<ApprovalRule['period']>, now: Date): Date {
  return new Date(now.getTime() - PERIOD_MS[period]);
}

/**
 * Whether this payment needs approvals: always when the rule has no limit; with a limit, when what
 * the wallet already spent in the period plus this payment goes above it.
 */
export function approvalNeeded(rule: ApprovalRule | null, amount: bigint, spentInPeriod: bigint): boolean {
  if (!rule || rule.approvals === 0) return false;
  if (rule.limit === null || rule.period === null) return true;
  return spentInPeriod + amount > rule.limit;
}

export interface ApprovalState {
  needed: number;
  approved: string[];
  declined: string[];
  /** Whether co-signers may be asked now. */
  clear: boolean;
  words: string;
}

/** Approvals counted for the payment whose hash is `paymentHash`: only those that name it; any decline stops it. */
export function approvalState(rule: ApprovalRule | null, needed: boolean, approvals: readonly ApprovalRow[], paymentHash: string): ApprovalState {
  const n = needed && rule ? rule.approvals : 0;
  const forThis = approvals.filter((a) => a.requestHash === paymentHash);
  const approved = forThis.filter((a) => a.decision === 'approve').map((a) => `${a.approver}${a.binding === 'code' ? ' (verified by code)' : ''}`);
  const declined = forThis.filter((a) => a.decision === 'decline').map((a) => a.approver);
  const clear = declined.length === 0 && approved.length >= n;
  const words =
    n === 0
      ? 'no approval needed'
      : declined.length > 0
        ? `declined by ${declined.join(', ')}`
        : clear
          ? `approved by ${approved.join(', ')}`
          : `${approved.length} of ${n} approvals${approved.length ? ` (${approved.join(', ')})` : ''}: co-signers are asked once approved`;
  return { needed: n, approved, declined, clear, words };
}
