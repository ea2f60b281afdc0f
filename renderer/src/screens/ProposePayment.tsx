import { useState, type FormEvent } from 'react';
import { go, href } from '../navigation.ts';
import { call } from '../bridge.ts';
import { SubmitActions, TextField } from '../components/form.tsx';
import { amount, parseUnits } from '../format.ts';
import { ProvisionalBadge, useSync } from '../sync.tsx';
import { Alert, Card, Loading, useAction, useLoad } from '../ui.tsx';

export function ProposePayment({ walletId }: { walletId: string }) {
  const wallet = useLoad(() => call('wallets.get', { wallet_id: walletId }), [walletId]);
  const [to, setTo] = useState('');
  const [value, setValue] = useState('');
  const [fee, setFee] = useState('0.0002');
  const [withOperator, setWithOperator] = useState(false);
  const [opAddress, setOpAddress] = useState('');
  const [opFee, setOpFee] = useState('');
  const { busy, error, setError, run } = useAction();
  const { coins } = useSync();
  const w = wallet.data;
  if (wallet.error) return <Alert>{wallet.error}</Alert>;
  if (!w) return <Loading what="the wallet" />;
  const sync = coins.find((c) => c.coin === w.coin && c.network === w.network);
  const d = w.unit.decimals;
  const units = parseUnits(value, d);
  const feeUnits = parseUnits(fee, d);
  const opUnits = withOperator ? parseUnits(opFee, d) : 0n;
  const total = units !== null && feeUnits !== null && opUnits !== null ? units + feeUnits + opUnits : null;

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (units === null || feeUnits === null || opUnits === null) return setError(`amounts are numbers of ${w.unit.ticker} with at most ${d} decimals`);
    return run(async () => {
      const p = await call('payments.propose', {
        wallet_id: walletId,
        to,
        amount: units,
        miners_fee: feeUnits,
        ...(withOperator ? { operator: { address: opAddress, fee_amount: opUnits } } : {}),
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
        <TextField label="Pay to (address)" value={to} onChange={setTo} required spellCheck={false} className="mono" data-testid="pay-to" />
        <div className="grid-2">
          <TextField label={`Amount (${w.unit.ticker})`} value={value} onChange={setValue} required inputMode="decimal" placeholder="0.00" aria-invalid={value !== '' && units === null} data-testid="pay-amount" />
          <TextField label={`Miners' fee (${w.unit.ticker})`} value={fee} onChange={setFee} required inputMode="decimal" aria-invalid={feeUnits === null} data-testid="pay-fee" />
        </div>
        <label className="inline">
          <input type="checkbox" checked={withOperator} onChange={(e) => setWithOperator(e.target.checked)} /> Add an operator fee output
        </label>
        {withOperator && (
          <div className="grid-2">
            <TextField label="Operator fee address" value={opAddress} onChange={setOpAddress} required className="mono" />
            <TextField label={`Operator fee (${w.unit.ticker})`} value={opFee} onChange={setOpFee} required inputMode="decimal" />
          </div>
        )}
        <p className="total" aria-live="polite">
          Total leaving the wallet: <strong>{total === null ? '—' : amount(total, w.unit)}</strong>
        </p>
      </Card>
      {error && <Alert>{error}</Alert>}
      <SubmitActions label="Propose payment" busyLabel="Building and checking…" busy={busy} testId="propose" cancelHref={href.wallet(w.id)} />
    </form>
  );
}
