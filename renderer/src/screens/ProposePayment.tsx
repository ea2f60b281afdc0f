import { useState, type FormEvent } from 'react';
import { go, href } from '../App.tsx';
import { call } from '../bridge.ts';
import { amount, parseUnits } from '../format.ts';
import { Alert, Card, Loading, message, useLoad } from '../ui.tsx';

export function ProposePayment({ walletId }: { walletId: string }) {
  const wallet = useLoad(() => call('wallets.get', { wallet_id: walletId }), [walletId]);
  const [to, setTo] = useState('');
  const [value, setValue] = useState('');
  const [fee, setFee] = useState('0.0002');
  const [withOperator, setWithOperator] = useState(false);
  const [opAddress, setOpAddress] = useState('');
  const [opFee, setOpFee] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const w = wallet.data;
  if (wallet.error) return <Alert>{wallet.error}</Alert>;
  if (!w) return <Loading what="the wallet" />;
  const d = w.unit.decimals;
  const units = parseUnits(value, d);
  const feeUnits = parseUnits(fee, d);
  const opUnits = withOperator ? parseUnits(opFee, d) : 0n;
  const total = units !== null && feeUnits !== null && opUnits !== null ? units + feeUnits + opUnits : null;

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    if (units === null || feeUnits === null || opUnits === null) return setError(`amounts are numbers of ${w.unit.ticker} with at most ${d} decimals`);
    setBusy(true);
    try {
      const p = await call('payments.propose', {
        wallet_id: walletId,
        to,
        amount: units,
        miners_fee: feeUnits,
        ...(withOperator ? { operator: { address: opAddress, fee_amount: opUnits } } : {}),
      });
      go(href.payment(p.id));
    } catch (err) {
      setError(message(err));
    } finally {
      setBusy(false);
    }
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
          Available: <strong>{amount(w.funds.balance, w.unit)}</strong>
          {w.funds.unconfirmed_balance !== 0n && <span className="muted"> (and {amount(w.funds.unconfirmed_balance, w.unit)} unconfirmed)</span>}
        </p>
        <label>
          Pay to (address)
          <input value={to} onChange={(e) => setTo(e.target.value)} required spellCheck={false} className="mono" data-testid="pay-to" />
        </label>
        <div className="grid-2">
          <label>
            Amount ({w.unit.ticker})
            <input value={value} onChange={(e) => setValue(e.target.value)} required inputMode="decimal" placeholder="0.00" aria-invalid={value !== '' && units === null} data-testid="pay-amount" />
          </label>
          <label>
            Miners' fee ({w.unit.ticker})
            <input value={fee} onChange={(e) => setFee(e.target.value)} required inputMode="decimal" aria-invalid={feeUnits === null} data-testid="pay-fee" />
          </label>
        </div>
        <label className="inline">
          <input type="checkbox" checked={withOperator} onChange={(e) => setWithOperator(e.target.checked)} /> Add an operator fee output
        </label>
        {withOperator && (
          <div className="grid-2">
            <label>
              Operator fee address
              <input value={opAddress} onChange={(e) => setOpAddress(e.target.value)} required className="mono" />
            </label>
            <label>
              Operator fee ({w.unit.ticker})
              <input value={opFee} onChange={(e) => setOpFee(e.target.value)} required inputMode="decimal" />
            </label>
          </div>
        )}
        <p className="total" aria-live="polite">
          Total leaving the wallet: <strong>{total === null ? '—' : amount(total, w.unit)}</strong>
        </p>
      </Card>
      {error && <Alert>{error}</Alert>}
      <div className="form-actions">
        <button type="submit" className="primary" disabled={busy} data-testid="propose">
          {busy ? 'Building and checking…' : 'Propose payment'}
        </button>
        <a className="button" href={href.wallet(w.id)}>
          Cancel
        </a>
      </div>
    </form>
  );
}
