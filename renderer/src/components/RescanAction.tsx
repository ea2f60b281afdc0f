// "Rescan from…" on a wallet's page: read the chain again from a date or from the beginning, for
// funds from before the wallet's birthday. The desk records and audits the request, and a service
// that watches the wallet (a node connected from Settings) reads its blocks again from there.
import { useState, type FormEvent } from 'react';
import type { WalletSummary } from '../../../main/bridge/contract.ts';
import { call } from '../bridge.ts';
import { Alert, Card, useAction } from '../ui.tsx';
import { TextField } from './form.tsx';

const birthdayWords = (w: WalletSummary): string => {
  if (w.birthday_height === null) return 'unknown: the wallet is read from the beginning of the chain';
  const from = { tip: 'the tip when it was made', file: 'its set-up file', date: 'the date it was given', genesis: 'the beginning of the chain' }[w.birthday_source ?? 'genesis'];
  return `block ${w.birthday_height.toLocaleString('en-US')} (${from})`;
};

export function RescanAction({ wallet }: { wallet: WalletSummary }) {
  const [from, setFrom] = useState<'date' | 'genesis'>('date');
  const [date, setDate] = useState('');
  const [done, setDone] = useState<string | null>(null);
  const { busy, refusal, run } = useAction();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setDone(null);
    return run(async () => {
      const r = await call('wallets.rescan', { wallet_id: wallet.id, from: from === 'date' ? { source: 'date', date } : { source: 'genesis' } });
      setDone(r.message);
    });
  };
  const dateError = refusal && /(^|\.)(birthday_date|date)$/.test(refusal.field ?? '') ? refusal.message : null;
  return (
    <Card title="Birthday and rescans">
      <p data-testid="wallet-birthday">Read from {birthdayWords(wallet)}.</p>
      <form onSubmit={(e) => void submit(e)} className="inline-form" data-testid="rescan-form">
        <fieldset className="choices">
          <legend>Rescan from…</legend>
          <label className="inline">
            <input type="radio" name="rescan-from" checked={from === 'date'} onChange={() => setFrom('date')} /> a date
          </label>
          {from === 'date' && <TextField label="Date (UTC)" type="date" value={date} onChange={setDate} error={dateError} errorTestId="rescan-date-error" data-testid="rescan-date" />}
          <label className="inline">
            <input type="radio" name="rescan-from" checked={from === 'genesis'} onChange={() => setFrom('genesis')} data-testid="rescan-genesis" /> the beginning of the chain
          </label>
        </fieldset>
        <button type="submit" disabled={busy} data-testid="rescan-submit">
          {busy ? 'Finding the block…' : 'Rescan'}
        </button>
      </form>
      {refusal && !dateError && <Alert>{refusal.message}</Alert>}
      {done && (
        <Alert kind="success">
          <span data-testid="rescan-done">{done}</span>
        </Alert>
      )}
    </Card>
  );
}
