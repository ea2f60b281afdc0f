// The wallet's books on its screen: the CSV of a date range (UTC days) and the balance over time
// in the coin or in dollars. The chart ends now, at the balance the screen shows above it.
import { useState } from 'react';
import type { WalletDetail } from '../../../main/bridge/contract.ts';
import { call } from '../bridge.ts';
import { BalanceChart, type ChartPoint } from '../components/BalanceChart.tsx';
import { amount, usd } from '../format.ts';
import { ProvisionalBadge } from '../sync.tsx';
import { Alert, Card, Loading, download, message, useLoad } from '../ui.tsx';

type Measure = 'coin' | 'usd';

const today = () => new Date().toISOString().slice(0, 10);

export function WalletBooks({ w }: { w: WalletDetail }) {
  // Loaded again when the balance moves: a new confirmed transaction is a new point.
  const balanceKey = w.funds ? `${w.funds.balance}` : 'none';
  const series = useLoad(() => call('books.series', { wallet_id: w.id }), [w.id, balanceKey]);
  const [measure, setMeasure] = useState<Measure>('coin');
  const [from, setFrom] = useState('');
  const [to, setTo] = useState(today());
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const scale = 10 ** w.unit.decimals;

  const exportCsv = async () => {
    setError(null);
    if (from && to && from > to) return setError(`The range starts on ${from}, after it ends on ${to}: pick a start on or before the end.`);
    setBusy(true);
    try {
      const f = await call('books.export', { wallet_id: w.id, ...(from ? { from } : {}), ...(to ? { to } : {}) });
      download(f.file_name, f.text);
    } catch (err) {
      setError(message(err));
    } finally {
      setBusy(false);
    }
  };

  const rows = series.data ?? [];
  const lastRow = rows[rows.length - 1];
  // Block times may run ahead of this clock (a node's clock, or regtest's quick blocks): now is never before the last block.
  const now = Math.max(Math.floor(Date.now() / 1000), lastRow?.time ?? 0);
  // The last point is now: the confirmed balance and its value at the service's rate, as above.
  const coinPoints: ChartPoint[] = rows.map((r) => ({ time: r.time, value: Number(r.balance) / scale }));
  const usdPoints: ChartPoint[] = rows.filter((r) => r.usd_value !== null).map((r) => ({ time: r.time, value: r.usd_value! }));
  const unrated = rows.length - usdPoints.length;
  let lastText = '';
  if (w.funds && rows.length > 0) {
    coinPoints.push({ time: now, value: Number(w.funds.balance) / scale });
    usdPoints.push({ time: now, value: w.funds.usd_balance });
    lastText = measure === 'coin' ? amount(w.funds.balance, w.unit) : usd(w.funds.usd_balance);
  } else if (lastRow) {
    lastText = measure === 'coin' ? amount(lastRow.balance, w.unit) : usd(lastRow.usd_value ?? 0);
  }
  const coinTick = (v: number) => v.toLocaleString('en-US', { maximumFractionDigits: w.unit.decimals });
  const usdTick = (v: number) => `$${v.toLocaleString('en-US', { maximumFractionDigits: 2 })}`;

  return (
    <Card
      title="Books"
      actions={
        <>
        {w.not_final !== null && <ProvisionalBadge />}
        <div className="segmented" role="group" aria-label="Chart the balance in">
          <button type="button" aria-pressed={measure === 'coin'} onClick={() => setMeasure('coin')} data-testid="books-in-coin">
            {w.unit.ticker}
          </button>
          <button type="button" aria-pressed={measure === 'usd'} onClick={() => setMeasure('usd')} data-testid="books-in-usd">
            USD
          </button>
        </div>
        </>
      }
    >
      {series.error && <Alert>{series.error}</Alert>}
      {!series.data && !series.error && <Loading what="the books" />}
      {series.data && (
        <>
          <BalanceChart
            points={measure === 'coin' ? coinPoints : usdPoints}
            lastText={lastText}
            tickText={measure === 'coin' ? coinTick : usdTick}
            unitName={measure === 'coin' ? w.unit.ticker : 'USD'}
            title={`Balance of ${w.name} over time, in ${measure === 'coin' ? w.unit.ticker : 'US dollars'}`}
            testId="books-chart"
          />
          <p className="muted small">
            {rows.length === 1 ? '1 confirmed transaction' : `${rows.length} confirmed transactions`}; each step is one, and the line ends now at the confirmed balance.
            {measure === 'usd' && ' Dollars at each day’s rate; now at the service’s rate.'}
            {measure === 'usd' && unrated > 0 && ` ${unrated} ${unrated === 1 ? 'day has' : 'days have'} no rate and ${unrated === 1 ? 'is' : 'are'} left out.`}
          </p>
        </>
      )}
      <div className="books-controls">
        <label>
          From (UTC day)
          <input type="date" value={from} max={to || undefined} onChange={(e) => setFrom(e.target.value)} data-testid="books-from" />
        </label>
        <label>
          To (UTC day)
          <input type="date" value={to} min={from || undefined} onChange={(e) => setTo(e.target.value)} data-testid="books-to" />
        </label>
        <button type="button" onClick={() => void exportCsv()} disabled={busy} data-testid="books-export">
          {busy ? 'Writing the CSV…' : 'Export CSV'}
        </button>
      </div>
      <p className="muted small">Every confirmed transaction in the range: date, amount, fee, balance after, their unit, label, and its USD value that day. An empty start means from the first.</p>
      {error && <Alert>{error}</Alert>}
    </Card>
  );
}
