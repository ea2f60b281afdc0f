import { useState } from 'react';
import type { PaymentSummary, Unit } from '../../../main/bridge/contract.ts';
import { href } from '../App.tsx';
import { call } from '../bridge.ts';
import { shortId, usd, when } from '../format.ts';
import { Alert, Amount, Card, Loading, StateBadge, download, message, useLoad } from '../ui.tsx';

export function PaymentsTable({ payments, unitOf }: { payments: PaymentSummary[]; unitOf?: (p: PaymentSummary) => Unit }) {
  if (payments.length === 0) return <p className="muted">No payments yet.</p>;
  return (
    <table>
      <thead>
        <tr>
          <th scope="col">Payment</th>
          <th scope="col">To</th>
          <th scope="col" className="num">
            Amount
          </th>
          <th scope="col">Signatures</th>
          <th scope="col">State</th>
          <th scope="col">Updated</th>
        </tr>
      </thead>
      <tbody>
        {payments.map((p) => (
          <tr key={p.id} data-testid="payment-row">
            <td>
              <a href={href.payment(p.id)}>{shortId(p.id)}</a>
              <div className="muted small">{p.wallet_name}</div>
            </td>
            <td className="mono small">{p.to}</td>
            <td className="num">
              <Amount units={p.amount} unit={unitOf?.(p) ?? p.unit} />
            </td>
            <td>
              {p.signed} of {p.required}
            </td>
            <td>
              <StateBadge state={p.state} />
            </td>
            <td className="small">{when(p.updated_at)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Receive({ walletId }: { walletId: string }) {
  const addr = useLoad(() => call('wallets.receiveAddress', { wallet_id: walletId }), [walletId], 15_000);
  const [copied, setCopied] = useState(false);
  return (
    <Card title="Receive">
      {addr.error && <Alert>{addr.error}</Alert>}
      {!addr.data && !addr.error && <Loading what="the next unused address" />}
      {addr.data && (
        <div className="receive">
          <img src={addr.data.qr_data_url} alt={`QR code of ${addr.data.uri}`} width={168} height={168} />
          <div>
            <p className="muted small">Next unused address (path {addr.data.path} below each xpub)</p>
            <p className="mono address" data-testid="receive-address">
              {addr.data.address}
            </p>
            <button
              type="button"
              onClick={() =>
                void navigator.clipboard?.writeText(addr.data?.address ?? '').then(
                  () => setCopied(true),
                  () => setCopied(false),
                )
              }
            >
              {copied ? 'Copied' : 'Copy address'}
            </button>
          </div>
        </div>
      )}
    </Card>
  );
}

const SETUP_FORMATS = [
  { format: 'bsms', label: 'BSMS record', hint: 'BIP129: Coldcard, Nunchuk, Sparrow' },
  { format: 'descriptor', label: 'Descriptor', hint: 'Sparrow, Bitcoin Core, Electrum' },
  { format: 'caravan', label: 'Caravan', hint: 'Bitcoin wallets only' },
  { format: 'coldcard', label: 'Coldcard file', hint: 'Coldcard, Electrum' },
] as const;

/** The wallet as other multisig wallets import it (keys in this wallet's order). */
function ExportSetup({ walletId, coin }: { walletId: string; coin: string }) {
  const [error, setError] = useState<string | null>(null);
  const save = async (format: (typeof SETUP_FORMATS)[number]['format']) => {
    setError(null);
    try {
      const f = await call('wallets.exportSetup', { wallet_id: walletId, format });
      download(f.file_name, f.text);
    } catch (err) {
      setError(message(err));
    }
  };
  return (
    <Card title="Set up other wallets">
      <p className="muted small">Co-signers who use another multisig wallet import one of these to watch this wallet and sign its PSBTs.</p>
      <ul className="plain">
        {SETUP_FORMATS.filter((f) => f.format !== 'caravan' || coin === 'bitcoin' || coin === 'testnet3').map((f) => (
          <li key={f.format}>
            <button type="button" onClick={() => void save(f.format)} data-testid={`export-setup-${f.format}`}>
              {f.label}
            </button>{' '}
            <span className="muted small">{f.hint}</span>
          </li>
        ))}
      </ul>
      {error && <Alert>{error}</Alert>}
    </Card>
  );
}

export function WalletDetailScreen({ id }: { id: string }) {
  const wallet = useLoad(() => call('wallets.get', { wallet_id: id }), [id], 4_000);
  const history = useLoad(() => call('wallets.history', { wallet_id: id, limit: 50 }), [id], 4_000);
  const unspent = useLoad(() => call('wallets.unspent', { wallet_id: id }), [id], 4_000);
  const payments = useLoad(() => call('payments.list', { wallet_id: id }), [id], 4_000);
  const w = wallet.data;
  if (wallet.error && !w) return <Alert>{wallet.error}</Alert>;
  if (!w) return <Loading what="the wallet" />;
  return (
    <>
      <div className="page-head">
        <div>
          <a className="back" href={href.wallets}>
            ← Wallets
          </a>
          <h1>{w.name}</h1>
          <p className="muted">
            {w.m}-of-{w.n} multi-signature · {w.coin} {w.network} · co-signers {w.cosigners.map((c) => c.name).join(', ')}
          </p>
        </div>
        <a className="button primary" href={href.propose(w.id)} data-testid="propose-link">
          Propose payment
        </a>
      </div>
      <div className="grid-2">
        <Card title="Balance">
          <p className="balance" data-testid="balance">
            <Amount units={w.funds.balance} unit={w.unit} />
          </p>
          <p className="muted">
            {usd(w.funds.usd_balance)} at the service's rate
            {w.funds.unconfirmed_balance !== 0n && (
              <>
                {' · '}
                <span data-testid="unconfirmed">
                  <Amount units={w.funds.unconfirmed_balance} unit={w.unit} signed /> unconfirmed
                </span>
              </>
            )}
          </p>
        </Card>
        <Receive walletId={w.id} />
      </div>
      <Card title="Payments">{payments.data ? <PaymentsTable payments={payments.data} /> : <Loading what="payments" />}</Card>
      <Card title="History">
        {history.error && <Alert>{history.error}</Alert>}
        {history.data &&
          (history.data.entries.length === 0 ? (
            <p className="muted">No transactions yet. Send funds to the receive address above.</p>
          ) : (
            <table data-testid="history">
              <thead>
                <tr>
                  <th scope="col">When</th>
                  <th scope="col">Transaction</th>
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
                  <tr key={e.txid}>
                    <td className="small">{e.confirmations === 0 ? 'pending' : when(e.time)}</td>
                    <td className="mono small">{shortId(e.txid)}</td>
                    <td className="num">
                      <Amount units={e.amount} unit={w.unit} signed />
                    </td>
                    <td className="num">{e.confirmations}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          ))}
      </Card>
      <div className="grid-2">
        <Card title="Unspent outputs">
          {unspent.data &&
            (unspent.data.length === 0 ? (
              <p className="muted">None.</p>
            ) : (
              <table>
                <thead>
                  <tr>
                    <th scope="col">Output</th>
                    <th scope="col">Path</th>
                    <th scope="col" className="num">
                      Amount
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {unspent.data.map((u) => (
                    <tr key={`${u.txid}:${u.vout}`}>
                      <td className="mono small" title={u.address}>
                        {shortId(u.txid)}:{u.vout}
                      </td>
                      <td className="mono small">{u.path}</td>
                      <td className="num">
                        <Amount units={u.amount} unit={w.unit} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            ))}
        </Card>
        <Card title="Co-signers">
          <ol className="plain">
            {w.cosigners.map((c) => (
              <li key={c.xpub}>
                <strong>{c.name}</strong> <span className="muted small">{c.derivation_path}</span>
                <div className="mono small muted">{shortId(c.xpub)}</div>
              </li>
            ))}
          </ol>
        </Card>
      </div>
      <ExportSetup walletId={w.id} coin={w.coin} />
    </>
  );
}
