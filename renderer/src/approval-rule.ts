// A wallet's approval rule as the treasurer types it (WalletRelay.tsx): how many approvals, and
// whether for every payment or only above a limit spent per day, week or month. The limit is read
// by the desk's one amount reader, so a hurried "-1", "0.123456789" or "1k" is refused in the same
// words as in a payment. Pure.
import type { RelayApprovalsRule, Unit } from '../../main/bridge/contract.ts';
import { amountRefusalWords, parseAmount } from '../../shared/api/amount-text.ts';
import { amount } from './format.ts';

export type RuleWhen = 'always' | 'above';

export interface RuleForm {
  approvals: string;
  when: RuleWhen;
  limit: string;
  period: 'day' | 'week' | 'month';
}

export type RuleReading = { ok: true; rule: RelayApprovalsRule } | { ok: false; field: 'approvals' | 'limit'; error: string };

/** The form's rule for `relay.setRule`, or the first mistake in words, with the field it concerns. */
export function readRule(form: RuleForm, unit: Unit): RuleReading {
  const a = form.approvals.trim();
  if (!/^[0-9]{1,2}$/.test(a) || Number(a) > 15) return { ok: false, field: 'approvals', error: `"${form.approvals}" is not a number of approvals: type a whole number from 0 to 15` };
  const approvals = Number(a);
  if (approvals === 0 || form.when === 'always') return { ok: true, rule: { approvals, limit: null, period: null } };
  const r = parseAmount(form.limit, unit.decimals, unit.places ?? unit.decimals);
  if (!r.ok) return { ok: false, field: 'limit', error: r.refusal.kind === 'zero' ? `"${r.text}" is zero: type the limit above which an approval is needed, more than 0 ${unit.ticker}` : amountRefusalWords(r, unit) };
  return { ok: true, rule: { approvals, limit: r.units.toString(), period: form.period } };
}

/** A rule in words: "1 approval above 1 LTC spent per day". */
export function ruleWords(rule: RelayApprovalsRule | null, unit: Unit): string {
  if (!rule || rule.approvals === 0) return 'No approval needed: co-signers are asked as soon as a payment is sent by relay.';
  const n = `${rule.approvals} approval${rule.approvals === 1 ? '' : 's'}`;
  return rule.limit !== null && rule.period !== null ? `${n} needed above ${amount(BigInt(rule.limit), unit)} spent per ${rule.period}.` : `${n} needed for every payment.`;
}
