import { useState, type FormEvent } from 'react';
import type { AccountDetail, AccountSendState, Unit } from '../../../main/bridge/contract.ts';
import { href } from '../App.tsx';
import { call } from '../bridge.ts';
import { formatUnits, shortId, usd, when } from '../format.ts';
import { Alert, Amount, Card, Loading, message, useLoad } from '../ui.tsx';

/**
 * A balance at a glance: at most 6 decimals (cut, never rounded up, marked with …); the exact
 * amount is in the tooltip and everywhere money is decided (send review, history).
 */
export function Balance({ units, unit, testId }: { units: bigint; unit: Unit; testId?: string }) {
  const cut = unit.decimals > 6 ? 10n ** BigInt(unit.decimals - 6) : 1n;
  const shown = units - (units % cut);
  const exact = `${formatUnits(units, unit.decimals)} ${unit.ticker}`;
  return (
    <span className="amount" title={exact} {...(testId ? { 'data-testid': testId } : {})}>
      {formatUnits(shown, unit.decimals)}
      {shown !== units ? '…' : ''} {unit.ticker}
    </span>
  );
}

export const SEND_STATE_LABELS: Record<AccountSendState, string> = {
  proposed: 'Awaiting your confirmation',
  broadcast: 'Sent',
  confirmed: 'Confirmed',
  cancelled: 'Cancelled',
  failed: 'Failed',
};

/** Send states reuse the payment badges' colours. */
export const sendBadgeClass = (s: AccountSendState): string =>
  `badge badge-${s === 'proposed' ? 'awaiting_signatures' : s === 'broadcast' ? 'broadcast' : s === 'confirmed' ? 'confirmed' : 'failed'}`;

function AddToken({ account, onAdded }: { account: AccountDetail; onAdded: () => void }) {
  const [open, setOpen] = useState(false);
  const [contract, setContract] = useState('');
  const [symbol, setSymbol] = useState('');
  const [decimals, setDecimals] = useState('18');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  if (!open)
    return (
      <div className="form-actions">
        <button type="button" onClick={() => setOpen(true)} data-testid="add-token-open">
          Follow a token
        </button>
      </div>
    );
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    setBusy(true);
    try {
      await call('accounts.addToken', { account_id: account.id, contract, symbol, decimals: Number(decimals) });
      setOpen(false);
      setContract('');
      setSymbol('');
      onAdded();
    } catch (err) {
      setError(message(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form onSubmit={(e) => void submit(e)} className="subform" aria-label="Follow a token">
      <div className="grid-3">
        <label>
          Token contract address
          <input value={contract} onChange={(e) => setContract(e.target.value)} required className="mono" placeholder="0x…" data-testid="token-contract" />
        </label>
        <label>
          Symbol
          <input value={symbol} onChange={(e) => setSymbol(e.target.value)} required maxLength={12} data-testid="token-symbol" />
        </label>
        <label>
          Decimals
          <input value={decimals} onChange={(e) => setDecimals(e.target.value)} required inputMode="numeric" pattern="[0-9]{1,2}" data-testid="token-decimals" />
        </label>
      </div>
      <p className="muted small">The service checks that a contract lives at that address. Symbol and decimals are as you enter them: take them from the token's own page.</p>
      {error && <Alert>{error}</Alert>}
      <div className="form-actions">
        <button type="submit" className="primary" disabled={busy} data-testid="token-add">
          {busy ? 'Checking…' : 'Follow token'}
        </button>
        <button type="button" onClick={() => setOpen(false)}>
          Cancel
        </button>
      </div>
    </form>
  );
}

export function AccountsDetail({ id }: { id: string }) {
  const account = useLoad(() => call('accounts.get', { account_id: id }), [id], 4_000);
  const history = useLoad(() => call('accounts.history', { account_id: id, limit: 50 }), [id], 4_000);
  const [copied, setCopied] = useState(false);
  const a = account.data;
  if (account.error && !a) return <Alert>{account.error}</Alert>;
  if (!a) return <Loading what="the account" />;
  return (
    <>
      <div className="page-head">
        <div>
          <a className="back" href={href.accounts}>
            ← Ether accounts
          </a>
          <h1>{a.name}</h1>
          <p className="muted">
            {a.kind === 'ledger' ? 'Ledger' : 'Software key'} · ethereum {a.network} (chain {a.chain_id}) · {a.signing}
          </p>
        </div>
        {a.can_sign ? (
          <a className="button primary" href={href.accountSend(a.id)} data-testid="send-link">
            Send
          </a>
        ) : (
          <span className="pill">view only</span>
        )}
      </div>
      {account.error && <Alert>{account.error}</Alert>}
      <div className="grid-2">
        <Card title="Ether">
          <p className="balance">
            <Balance units={a.ether.balance} unit={a.unit} testId="ether-balance" />
          </p>
          <p className="muted">
            {usd(a.ether.usd_balance)} at the service's rate
            {a.ether.unconfirmed_balance !== 0n && (
              <>
                {' · '}
                <Amount units={a.ether.unconfirmed_balance} unit={a.unit} signed /> pending
              </>
            )}
          </p>
        </Card>
        <Card title="Receive">
          <p className="muted small">This account's address (EIP-55). It receives Ether and every ERC20 token.</p>
          <p className="mono address" data-testid="account-address-shown">
            {a.address}
          </p>
          <button
            type="button"
            onClick={() =>
              void navigator.clipboard?.writeText(a.address).then(
                () => setCopied(true),
                () => setCopied(false),
              )
            }
          >
            {copied ? 'Copied' : 'Copy address'}
          </button>
        </Card>
      </div>
      <Card title="Tokens">
        {a.token_balances.length === 0 ? (
          <p className="muted">No tokens followed. Follow a token by its contract address to see its balance and send it.</p>
        ) : (
          <table data-testid="tokens">
            <thead>
              <tr>
                <th scope="col">Token</th>
                <th scope="col">Contract</th>
                <th scope="col" className="num">
                  Balance
                </th>
                <th scope="col" className="num">
                  USD
                </th>
              </tr>
            </thead>
            <tbody>
              {a.token_balances.map((t) => (
                <tr key={t.contract} data-testid="token-row">
                  <th scope="row">{t.symbol}</th>
                  <td className="mono small">{t.contract}</td>
                  <td className="num">
                    <Amount units={t.balance} unit={t.unit} />
                    {t.unconfirmed_balance !== 0n && (
                      <div className="small muted">
                        <Amount units={t.unconfirmed_balance} unit={t.unit} signed /> pending
                      </div>
                    )}
                  </td>
                  <td className="num muted">{t.usd_balance > 0 ? usd(t.usd_balance) : 'no rate'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        <AddToken account={a} onAdded={account.reload} />
      </Card>
      <Card title="Sends from this desk">
        {a.sends.length === 0 ? (
          <p className="muted">None yet.</p>
        ) : (
          <table data-testid="sends">
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">To</th>
                <th scope="col" className="num">
                  Amount
                </th>
                <th scope="col" className="num">
                  Fee (at most)
                </th>
                <th scope="col">State</th>
              </tr>
            </thead>
            <tbody>
              {a.sends.map((s) => (
                <tr key={s.id} data-testid="send-row">
                  <td className="small">
                    <a href={href.accountSendDetail(a.id, s.id)}>{when(s.created_at)}</a>
                  </td>
                  <td className="mono small">{s.to}</td>
                  <td className="num">
                    <Amount units={s.amount} unit={s.unit} />
                  </td>
                  <td className="num small">
                    <Amount units={s.fee_amount} unit={s.fee_unit} />
                  </td>
                  <td>
                    <span className={sendBadgeClass(s.state)}>{SEND_STATE_LABELS[s.state]}</span>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Card>
      <Card title="History">
        {history.error && <Alert>{history.error}</Alert>}
        {!history.data && !history.error && <Loading what="history" />}
        {history.data &&
          (history.data.entries.length === 0 ? (
            <p className="muted">No transfers yet. Send Ether or tokens to the address above.</p>
          ) : (
            <table data-testid="account-history">
              <thead>
                <tr>
                  <th scope="col">When</th>
                  <th scope="col">Transaction</th>
                  <th scope="col">Asset</th>
                  <th scope="col" className="num">
                    Amount
                  </th>
                  <th scope="col" className="num">
                    Confirmations
                  </th>
                </tr>
              </thead>
              <tbody>
                {history.data.entries.map((e) => (
                  <tr key={`${e.txid}-${e.asset}`}>
                    <td className="small">{e.confirmations === 0 ? 'pending' : when(e.time)}</td>
                    <td className="mono small" title={e.txid}>
                      {shortId(e.txid)}
                    </td>
                    <td>{e.asset}</td>
                    <td className="num">
                      <Amount units={e.amount} unit={e.unit} signed />
                    </td>
                    <td className="num">{e.confirmations}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          ))}
        <p className="muted small">Ether amounts are the value transferred; fees paid by this account are shown with each send above.</p>
      </Card>
    </>
  );
}
