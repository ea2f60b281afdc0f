// A wallet's approval rule (issue 35): how many named approvers approve a payment by relay before
// its co-signers are asked, for every payment or only above a limit spent per day, week or month.
// The approvers themselves are invited on the Relay page.
import { useState, type FormEvent } from 'react';
import type { WalletDetail } from '../../../main/bridge/contract.ts';
import { readRule, ruleWords, type RuleForm } from '../approval-rule.ts';
import { call } from '../bridge.ts';
import { TextField } from '../components/form.tsx';
import { href } from '../navigation.ts';
import { Alert, Card, useAction, useLoad } from '../ui.tsx';

export function WalletApprovals({ w }: { w: WalletDetail }) {
  // Wrapped: a wallet without a rule answers null, which is not "not loaded yet".
  const rule = useLoad(async () => ({ rule: await call('relay.rule', { wallet_id: w.id }) }), [w.id]);
  const act = useAction();
  const [form, setForm] = useState<RuleForm>({ approvals: '1', when: 'above', limit: '', period: 'day' });
  const [mistake, setMistake] = useState<{ field: 'approvals' | 'limit'; error: string } | null>(null);
  const [saved, setSaved] = useState(false);
  const set = (o: Partial<RuleForm>) => {
    setForm({ ...form, ...o });
    setMistake(null);
    setSaved(false);
  };
  const save = (e: FormEvent) => {
    e.preventDefault();
    const read = readRule(form, w.unit);
    if (!read.ok) return setMistake(read);
    void act.run(async () => {
      await call('relay.setRule', { wallet_id: w.id, ...read.rule });
      setSaved(true);
      rule.reload();
    });
  };
  return (
    <Card title="Approvals">
      {rule.error && <Alert>{rule.error}</Alert>}
      <p data-testid="approval-rule">{rule.data ? ruleWords(rule.data.rule, w.unit) : '…'}</p>
      <p className="muted small">
        Approvers hold no key: they approve a payment by relay, signed by their device, before its co-signers are asked. Invite them on the <a href={href.relay}>Relay</a> page.
      </p>
      <form onSubmit={save} noValidate>
        <div className="rule-fields">
          <TextField label="Approvals needed" value={form.approvals} onChange={(approvals) => set({ approvals })} inputMode="numeric" size={3} data-testid="rule-approvals" error={mistake?.field === 'approvals' ? mistake.error : null} errorTestId="rule-approvals-error" />
          <label>
            When
            <select value={form.when} onChange={(e) => set({ when: e.target.value as RuleForm['when'] })} data-testid="rule-when">
              <option value="above">above a spending limit</option>
              <option value="always">for every payment</option>
            </select>
          </label>
          {form.when === 'above' && (
            <>
              <TextField label={`Limit in ${w.unit.ticker}`} value={form.limit} onChange={(limit) => set({ limit })} inputMode="decimal" placeholder="e.g. 1.5" data-testid="rule-limit" error={mistake?.field === 'limit' ? mistake.error : null} errorTestId="rule-limit-error" />
              <label>
                spent per
                <select value={form.period} onChange={(e) => set({ period: e.target.value as RuleForm['period'] })} data-testid="rule-period">
                  <option value="day">day</option>
                  <option value="week">week</option>
                  <option value="month">month (30 days)</option>
                </select>
              </label>
            </>
          )}
        </div>
        <div className="form-actions">
          <button type="submit" disabled={act.busy} data-testid="rule-save">
            Save the rule
          </button>
          {saved && <span className="muted" data-testid="rule-saved">Saved (written to the audit log).</span>}
        </div>
      </form>
      {act.error && <Alert>{act.error}</Alert>}
    </Card>
  );
}
