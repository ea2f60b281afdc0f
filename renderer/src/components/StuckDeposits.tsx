// Deposits still unconfirmed, each offered a child-pays-for-parent: a payment from the deposit back
// to the vault at the rate that brings the pair to the target (the review states the package rate).
import { useState } from 'react';
import type { HistoryEntry, Unit } from '../../../main/bridge/contract.ts';
import { call } from '../bridge.ts';
import { amount, shortId } from '../format.ts';
import { cpfpReview } from './StuckPayment.tsx';
import { href } from '../navigation.ts';
import { Alert, Card, message } from '../ui.tsx';

function DepositRow({ walletId, entry, unit }: { walletId: string; entry: HistoryEntry; unit: Unit }) {
  const [rate, setRate] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState<{ id: string; text: string } | null>(null);
  const valid = /^[0-9]{1,12}$/.test(rate) && BigInt(rate) >= 1n;
  const pull = async () => {
    setError(null);
    setBusy(true);
    try {
      const c = await call('payments.cpfp', { wallet_id: walletId, txid: entry.txid, target_rate: BigInt(rate) });
      setDone({
        id: c.payment.id,
        text: cpfpReview(c, unit, 'deposit'),
      });
    } catch (err) {
      setError(message(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <li data-testid="stuck-deposit">
      <span className="mono small">{shortId(entry.txid)}</span> {amount(entry.amount, unit)}{' '}
      <label>
        target rate ({unit.smallest}/vB) <input inputMode="numeric" value={rate} onChange={(e) => setRate(e.target.value.trim())} data-testid="deposit-rate" />
      </label>{' '}
      <button type="button" disabled={!valid || busy} onClick={() => void pull()} data-testid="deposit-cpfp">
        Pull through (child pays for parent)
      </button>
      {error && <Alert>{error}</Alert>}
      {done && (
        <Alert kind="success">
          {done.text} <a href={href.payment(done.id)}>Open the child payment to collect signatures</a>.
        </Alert>
      )}
    </li>
  );
}

/** Nothing when no deposit is waiting. */
export function StuckDeposits({ walletId, entries, unit }: { walletId: string; entries: readonly HistoryEntry[]; unit: Unit }) {
  const waiting = entries.filter((e) => e.confirmations === 0 && e.amount > 0n);
  if (waiting.length === 0) return null;
  return (
    <Card title="Unconfirmed deposits">
      <p className="muted">A deposit that waits too long can be pulled through: the vault spends it back to itself, paying enough for both. Co-signers sign the child as any payment.</p>
      <ul className="stuck-deposits">
        {waiting.map((e) => (
          <DepositRow key={e.txid} walletId={walletId} entry={e} unit={unit} />
        ))}
      </ul>
    </Card>
  );
}
