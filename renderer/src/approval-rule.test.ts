import { describe, expect, it } from 'vitest';
import { readRule, ruleWords, type RuleForm } from './approval-rule.ts';

const ltc = { ticker: 'LTC (regtest)', decimals: 8, smallest: 'litoshi' };
const form = (o: Partial<RuleForm>): RuleForm => ({ approvals: '1', when: 'above', limit: '1', period: 'day', ...o });
const error = (o: Partial<RuleForm>) => {
  const r = readRule(form(o), ltc);
  return r.ok ? null : `${r.field}: ${r.error}`;
};

describe("a wallet's approval rule as typed", () => {
  it("reads a limit in the coin's unit into smallest units, or no limit for every payment", () => {
    expect(readRule(form({ limit: '1.5', period: 'week' }), ltc)).toEqual({ ok: true, rule: { approvals: 1, limit: '150000000', period: 'week' } });
    expect(readRule(form({ when: 'always', limit: 'nonsense' }), ltc)).toEqual({ ok: true, rule: { approvals: 1, limit: null, period: null } });
    expect(readRule(form({ approvals: '0', limit: '' }), ltc)).toEqual({ ok: true, rule: { approvals: 0, limit: null, period: null } });
  });

  it("refuses a hurried treasurer's mistakes in words", () => {
    expect(error({ limit: '' })).toBe('limit: no amount: type an amount in LTC (regtest), e.g. 0.5');
    expect(error({ limit: '-1' })).toBe('limit: "-1" is negative: an amount is what is paid, so type it without a minus sign');
    expect(error({ limit: '0.123456789' })).toBe('limit: "0.123456789" has 9 decimals: an amount of LTC (regtest) has at most 8');
    expect(error({ limit: '1k' })).toBe('limit: "1k" is not an amount (it has "k"): type digits 0-9 with at most one decimal point, e.g. 1250 or 1.25');
    expect(error({ limit: '0' })).toBe('limit: "0" is zero: type the limit above which an approval is needed, more than 0 LTC (regtest)');
    expect(error({ approvals: 'two' })).toBe('approvals: "two" is not a number of approvals: type a whole number from 0 to 15');
    expect(error({ approvals: '16' })).toBe('approvals: "16" is not a number of approvals: type a whole number from 0 to 15');
  });

  it('says the rule in words', () => {
    expect(ruleWords({ approvals: 1, limit: '100000000', period: 'day' }, ltc)).toBe('1 approval needed above 1.00 LTC (regtest) spent per day.');
    expect(ruleWords({ approvals: 2, limit: null, period: null }, ltc)).toBe('2 approvals needed for every payment.');
    expect(ruleWords(null, ltc)).toBe('No approval needed: co-signers are asked as soon as a payment is sent by relay.');
  });
});
