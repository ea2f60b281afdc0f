import { useState, type FormEvent } from 'react';
import type { AccountSendView } from '../../../main/bridge/contract.ts';
import { go, href } from '../navigation.ts';
import { call } from '../bridge.ts';
import { SubmitActions, TextField } from '../components/form.tsx';
import { formatUnits, readAmount, usd, when } from '../format.ts';
import { Alert, Amount, Card, Loading, message, useAction, useLoad } from '../ui.tsx';
import { Balance, SEND_STATE_LABELS, sendBadgeClass } from './AccountsDetail.tsx';

/** The form: what to send, to whom. The service builds it; the next screen shows what it really pays. */
export function AccountsSend({ accountId }: { accountId: string }) {
  const account = useLoad(() => call('accounts.get', { account_id: accountId }), [accountId]);
  const [asset, setAsset] = useState('ETH');
  const [to, setTo] = useState('');
  const [value, setValue] = useState('');
  const { busy, error, setError, run } = useAction();
  const a = account.data;
  if (account.error) return <Alert>{account.error}</Alert>;
  if (!a) return <Loading what="the account" />;
  const token = a.token_balances.find((t) => t.contract === asset) ?? null;
  const unit = token ? token.unit : a.unit;
  const available = token ? token.balance + token.unconfirmed_balance : a.ether.balance + a.ether.unconfirmed_balance;
  const { units, error: amountError } = readAmount(value, unit);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (units === null) return setError(amountError ?? `type the amount to send, in ${unit.ticker}`);
    return run(async () => {
      const s = await call('accounts.send', { action: 'propose', account_id: accountId, to, amount: units, ...(token ? { token: token.contract } : {}) });
      go(href.accountSendDetail(accountId, s.id));
    });
  };

  return (
    <form onSubmit={(e) => void submit(e)}>
      <div className="page-head">
        <div>
          <a className="back" href={href.account(a.id)}>
            ← {a.name}
          </a>
          <h1>Send from {a.name}</h1>
          <p className="muted">The service builds the transaction; this desk decodes it and checks the recipient, amount, token call and chain, and recomputes the hash, before you are asked to confirm. Nothing is signed until then.</p>
        </div>
      </div>
      <Card>
        <div className="grid-2">
          <label>
            Asset
            <select value={asset} onChange={(e) => setAsset(e.target.value)} data-testid="send-asset">
              <option value="ETH">{a.unit.ticker}</option>
              {a.token_balances.map((t) => (
                <option key={t.contract} value={t.contract}>
                  {t.symbol} (ERC20 {t.contract.slice(0, 8)}…)
                </option>
              ))}
            </select>
          </label>
          <p className="available">
            Available:{' '}
            <strong>
              <Balance units={available} unit={unit} testId="send-available" />
            </strong>
            {!token && <span className="muted"> ({usd(a.ether.usd_balance)})</span>}
            {token && (
              <span className="muted">
                {' '}
                · fees are paid in Ether: <Balance units={a.ether.balance + a.ether.unconfirmed_balance} unit={a.unit} />
              </span>
            )}
          </p>
        </div>
        <TextField label="Send to (address)" value={to} onChange={setTo} required spellCheck={false} className="mono" placeholder="0x…" data-testid="send-to" />
        <TextField label={`Amount (${unit.ticker})`} value={value} onChange={setValue} required inputMode="decimal" placeholder="0.00" data-testid="send-amount" error={amountError} errorTestId="send-amount-error" />
      </Card>
      {error && <Alert>{error}</Alert>}
      <SubmitActions label="Review the transaction" busyLabel="Building and checking…" busy={busy} disabled={units === null} testId="send-review" cancelHref={href.account(a.id)} />
    </form>
  );
}

function Decoded({ s }: { s: AccountSendView }) {
  const total = s.token ? null : s.amount + s.fee_amount;
  return (
    <table data-testid="send-decoded">
      <tbody>
        <tr>
          <th scope="row">From</th>
          <td className="mono small">
            {s.from} <span className="muted">({s.account_name})</span>
          </td>
        </tr>
        <tr>
          <th scope="row">To</th>
          <td className="mono" data-testid="decoded-to">
            {s.to}
          </td>
        </tr>
        <tr>
          <th scope="row">Amount</th>
          <td data-testid="decoded-amount">
            <strong>
              <Amount units={s.amount} unit={s.unit} />
            </strong>
          </td>
        </tr>
        {s.token && (
          <tr>
            <th scope="row">Token</th>
            <td>
              {s.token.symbol} · ERC20 transfer() on contract <span className="mono small">{s.token.contract}</span>
            </td>
          </tr>
        )}
        <tr>
          <th scope="row">Network fee, at most</th>
          <td data-testid="decoded-fee">
            <Amount units={s.fee_amount} unit={s.fee_unit} /> <span className="muted small">
              ({s.gas_limit} gas × {formatUnits(BigInt(s.gas_price), 9, 0)} gwei)
            </span>
          </td>
        </tr>
        {total !== null && (
          <tr className="total-row">
            <th scope="row">Leaves the account, at most</th>
            <td>
              <Amount units={total} unit={s.unit} />
            </td>
          </tr>
        )}
        <tr>
          <th scope="row">Chain</th>
          <td>
            {s.chain_id}{' '}
            <span className="muted small">
              · nonce {s.nonce}
              {s.token ? ` · addressed to the token contract ${s.tx_to}` : ''}
            </span>
          </td>
        </tr>
        <tr>
          <th scope="row">Hash to sign</th>
          <td className="mono small">{s.hash}</td>
        </tr>
      </tbody>
    </table>
  );
}

/** A proposed send as this desk decoded it, with confirm and cancel; then its progress. */
export function AccountsSendReview({ accountId, sendId }: { accountId: string; sendId: string }) {
  const send = useLoad(() => call('accounts.send', { action: 'get', send_id: sendId }), [sendId], 3_000);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const s = send.data;
  const act = async (what: 'confirm' | 'cancel') => {
    setError(null);
    setBusy(what);
    try {
      await call('accounts.send', { action: what, send_id: sendId });
    } catch (err) {
      setError(message(err));
    } finally {
      setBusy(null);
      send.reload();
    }
  };
  if (send.error && !s) return <Alert>{send.error}</Alert>;
  if (!s) return <Loading what="the send" />;
  return (
    <>
      <div className="page-head">
        <div>
          <a className="back" href={href.account(accountId)}>
            ← {s.account_name}
          </a>
          <h1>
            Send <Amount units={s.amount} unit={s.unit} />
          </h1>
          <p className="muted">Proposed {when(s.created_at)}</p>
        </div>
        <span className={sendBadgeClass(s.state)} data-testid="send-state" data-state={s.state}>
          {SEND_STATE_LABELS[s.state]}
        </span>
      </div>
      <div className={`explain explain-${s.state === 'proposed' ? 'ready' : s.state}`} role="status">
        {s.explanation}
      </div>
      {error && <Alert>{error}</Alert>}
      <Card title="What the transaction does (decoded by this desk)">
        <Decoded s={s} />
      </Card>
      {s.state === 'proposed' && (
        <div className="form-actions">
          <button type="button" className="primary" disabled={busy !== null} onClick={() => void act('confirm')} data-testid="send-confirm">
            {busy === 'confirm' ? 'Signing and sending…' : 'Confirm and send'}
          </button>
          <button type="button" className="danger" disabled={busy !== null} onClick={() => void act('cancel')} data-testid="send-cancel">
            Cancel this send
          </button>
        </div>
      )}
      {s.txid && (
        <Card title="On the network">
          <dl className="facts">
            <dt>Transaction</dt>
            <dd className="mono" data-testid="send-txid">
              {s.txid}
            </dd>
            <dt>Confirmations</dt>
            <dd>{s.confirmations}</dd>
          </dl>
          {s.reason && s.state !== 'failed' && <Alert kind="info">{s.reason}</Alert>}
        </Card>
      )}
    </>
  );
}
