import { useEffect, useState, type FormEvent } from 'react';
import type { FieldRefusal } from '../../../main/bridge/contract.ts';
import { go, href } from '../navigation.ts';
import { call } from '../bridge.ts';
import { SubmitActions, TextField } from '../components/form.tsx';
import { amount, parseUnits } from '../format.ts';
import { ProvisionalBadge, useSync } from '../sync.tsx';
import { Alert, Card, Loading, useAction, useLoad } from '../ui.tsx';
import { BatchRecipients, emptyRow, type BatchRow } from './BatchRecipients.tsx';
import { FeeChoice, feeArgs, type FeeMode } from './FeeChoice.tsx';
import { CoinControl } from './CoinControl.tsx';

/** How long typing pauses before the draft is checked: one check per pause, not per key. */
const CHECK_AFTER_MS = 350;

interface Draft {
  to: string;
  amount: bigint | null;
  fee: bigint | null;
  operator: { address: string; fee: bigint | null } | null;
}

/** The desk's refusals of the draft as typed, by field; stale answers are dropped. */
function useDraftCheck(walletId: string, draft: Draft): FieldRefusal[] {
  const [refusals, setRefusals] = useState<FieldRefusal[]>([]);
  const key = JSON.stringify(draft, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
  useEffect(() => {
    let live = true;
    const t = setTimeout(() => {
      const { to, amount: units, fee, operator } = draft;
      call('payments.checkDraft', {
        wallet_id: walletId,
        ...(to.trim() ? { to: to.trim() } : {}),
        ...(units !== null ? { amount: units } : {}),
        ...(fee !== null ? { miners_fee: fee } : {}),
        ...(operator ? { operator: { ...(operator.address.trim() ? { address: operator.address.trim() } : {}), ...(operator.fee !== null ? { fee_amount: operator.fee } : {}) } } : {}),
      }).then(
        (c) => live && setRefusals(c.refusals),
        // The check is a help, not a gate: a failure of it leaves the final check to Propose.
        () => live && setRefusals([]),
      );
    }, CHECK_AFTER_MS);
    return () => {
      live = false;
      clearTimeout(t);
    };
    // `key` is the draft's value: the effect runs again only when what was typed changes.
  }, [walletId, key]);
  return refusals;
}

export function ProposePayment({ walletId }: { walletId: string }) {
  const wallet = useLoad(() => call('wallets.get', { wallet_id: walletId }), [walletId]);
  const [to, setTo] = useState('');
  const [value, setValue] = useState('');
  const [fee, setFee] = useState('0.0002');
  const [withOperator, setWithOperator] = useState(false);
  const [opAddress, setOpAddress] = useState('');
  const [opFee, setOpFee] = useState('');
  const [purpose, setPurpose] = useState('');
  // A batch: several recipients in one transaction; null while paying one address.
  const [batch, setBatch] = useState<BatchRow[] | null>(null);
  const [batchRefused, setBatchRefused] = useState<number | null>(null);
  // A preset rate from the service's estimates by default; a custom rate, or a fixed fee.
  const [feeMode, setFeeMode] = useState<FeeMode>('normal');
  const [customRate, setCustomRate] = useState('');
  // Coin control: the outputs picked by hand; null lets the desk pick.
  const [picked, setPicked] = useState<string[] | null>(null);
  const presets = useLoad(() => call('payments.feePresets', { wallet_id: walletId }), [walletId]);
  const { busy, refusal, setError, run } = useAction();
  const { coins } = useSync();
  const d = wallet.data?.unit.decimals ?? 0;
  const units = value.trim() ? parseUnits(value, d) : null;
  const feeUnits = feeMode === 'fixed' ? parseUnits(fee, d) : 0n;
  const fees = feeArgs(feeMode, presets.data ?? null, feeUnits, customRate);
  const opUnits = withOperator && opFee.trim() ? parseUnits(opFee, d) : null;
  const refusals = useDraftCheck(walletId, { to: batch ? '' : to, amount: batch ? null : units, fee: feeMode === 'fixed' ? feeUnits : null, operator: withOperator ? { address: opAddress, fee: opUnits } : null });
  // A refusal from Propose stands beside its field until the draft changes.
  useEffect(() => setError(null), [to, value, fee, feeMode, customRate, withOperator, opAddress, opFee, batch, setError]);
  const w = wallet.data;
  if (wallet.error) return <Alert>{wallet.error}</Alert>;
  if (!w) return <Loading what="the wallet" />;
  const sync = coins.find((c) => c.coin === w.coin && c.network === w.network);
  const notANumber = `amounts are numbers of ${w.unit.ticker} with at most ${d} decimals`;
  const errorOf = (field: string, text: string): string | null => {
    if (text.trim() && parseUnits(text, d) === null && field !== 'to' && field !== 'operator.address') return notANumber;
    return refusals.find((r) => r.field === field)?.message ?? (refusal?.field === field ? refusal.message : null);
  };
  const errors = {
    to: batch ? null : errorOf('to', to),
    amount: batch ? null : errorOf('amount', value),
    miners_fee: feeMode === 'fixed' ? errorOf('miners_fee', fee) : null,
    fee_rate: feeMode === 'fixed' || fees !== null ? null : `a fee rate is a whole number of ${w.unit.smallest}/vB, at least 1`,
    'operator.address': withOperator ? errorOf('operator.address', opAddress) : null,
    'operator.fee_amount': withOperator ? errorOf('operator.fee_amount', opFee) : null,
  };
  const refused = Object.values(errors).some((e) => e !== null) || (batch !== null && batchRefused !== 0);
  const batchUnits = batch?.map((r) => parseUnits(r.amount, d));
  const paid = batchUnits ? (batchUnits.every((u) => u !== null) ? batchUnits.reduce<bigint>((s, u) => s + (u ?? 0n), 0n) : null) : units;
  const total = paid !== null && feeUnits !== null && (!withOperator || opUnits !== null) ? paid + feeUnits + (opUnits ?? 0n) : null;
  // In a batch the recipient fields are rows: a refusal of the amount (the wallet holds too little) stands alone.
  const fieldless = refusal && (refusal.field === null || !(refusal.field in errors) || (batch !== null && (refusal.field === 'to' || refusal.field === 'amount'))) ? refusal.message : null;

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if ((batch === null && units === null) || feeUnits === null || fees === null || (withOperator && opUnits === null)) return setError(notANumber);
    const operator = { ...(withOperator ? { operator: { address: opAddress, fee_amount: opUnits ?? 0n } } : {}), ...(picked && picked.length > 0 ? { inputs: picked } : {}) };
    if (batch) {
      return run(async () => {
        const p = await call('payments.proposeBatch', { wallet_id: walletId, rows: batch, ...fees, ...operator, ...(purpose.trim() ? { purpose: purpose.trim() } : {}) });
        go(href.payment(p.id));
      });
    }
    if (units === null) return setError(notANumber);
    return run(async () => {
      const p = await call('payments.propose', {
        wallet_id: walletId,
        to,
        amount: units,
        ...fees,
        ...operator,
        ...(purpose.trim() ? { purpose: purpose.trim() } : {}),
      });
      go(href.payment(p.id));
    });
  };

  return (
    <form onSubmit={(e) => void submit(e)}>
      <div className="page-head">
        <div>
          <a className="back" href={href.wallet(w.id)}>
            ← {w.name}
          </a>
          <h1>Propose a payment</h1>
          <p className="muted">
            The service builds the transaction; this desk decodes it and checks every input, output and hash before storing it. Nothing moves until {w.m} of {w.n} co-signers sign.
          </p>
        </div>
      </div>
      <Card>
        <p>
          {w.funds ? (
            <>
              Available: <strong className={sync && !sync.final ? 'provisional' : undefined}>{amount(w.funds.balance, w.unit)}</strong>
              {w.funds.unconfirmed_balance !== 0n && <span className="muted"> (and {amount(w.funds.unconfirmed_balance, w.unit)} unconfirmed)</span>}
              {sync && !sync.final && <> <ProvisionalBadge /></>}
            </>
          ) : (
            <>Available: not known until the service's index catches up.</>
          )}
        </p>
        <label className="inline">
          <input type="checkbox" checked={batch !== null} onChange={(e) => setBatch(e.target.checked ? [emptyRow()] : null)} data-testid="batch-mode" /> Pay several recipients in one transaction (a batch)
        </label>
        {batch ? (
          <BatchRecipients walletId={walletId} unit={w.unit} rows={batch} onRows={setBatch} onRefusals={setBatchRefused} />
        ) : (
          <TextField label="Pay to (address)" value={to} onChange={setTo} required spellCheck={false} className="mono" data-testid="pay-to" error={errors.to} errorTestId="pay-to-error" />
        )}
        <div className="grid-2">
          {!batch && <TextField label={`Amount (${w.unit.ticker})`} value={value} onChange={setValue} required inputMode="decimal" placeholder="0.00" data-testid="pay-amount" error={errors.amount} errorTestId="pay-amount-error" />}
        </div>
        <TextField
          label={
            <>
              Purpose <span className="muted small">(optional: what the payment is for, shown in the lists and the books)</span>
            </>
          }
          value={purpose}
          onChange={setPurpose}
          maxLength={255}
          placeholder="e.g. March payroll, invoice 2026-114"
          data-testid="pay-purpose"
          error={refusal?.field === 'purpose' ? refusal.message : null}
        />
        <FeeChoice unit={w.unit} presets={presets} mode={feeMode} onMode={setFeeMode} customRate={customRate} onCustomRate={setCustomRate} rateError={errors.fee_rate} />
        {feeMode === 'fixed' && <TextField label={`Miners' fee (${w.unit.ticker})`} value={fee} onChange={setFee} required inputMode="decimal" data-testid="pay-fee" error={errors.miners_fee} errorTestId="pay-fee-error" />}
        <label className="inline">
          <input type="checkbox" checked={withOperator} onChange={(e) => setWithOperator(e.target.checked)} /> Add an operator fee output
        </label>
        {withOperator && (
          <div className="grid-2">
            <TextField label="Operator fee address" value={opAddress} onChange={setOpAddress} required className="mono" error={errors['operator.address']} errorTestId="pay-operator-address-error" />
            <TextField label={`Operator fee (${w.unit.ticker})`} value={opFee} onChange={setOpFee} required inputMode="decimal" error={errors['operator.fee_amount']} errorTestId="pay-operator-fee-error" />
          </div>
        )}
        <CoinControl walletId={walletId} unit={w.unit} picked={picked} onPicked={setPicked} />
        <p className="total" aria-live="polite">
          Total leaving the wallet: <strong>{total === null ? '—' : amount(total, w.unit)}</strong>
          {feeMode !== 'fixed' && <span className="muted"> and the miners&apos; fee at the rate chosen (shown in the review)</span>}
        </p>
      </Card>
      {fieldless && <Alert>{fieldless}</Alert>}
      <SubmitActions label="Propose payment" busyLabel="Building and checking…" busy={busy} disabled={refused} testId="propose" cancelHref={href.wallet(w.id)} />
    </form>
  );
}
