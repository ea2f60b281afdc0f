import type { AccountSendState, Unit } from '../../../main/bridge/contract.ts';
import { href } from '../navigation.ts';
import { call } from '../bridge.ts';
import { CopyButton } from '../components/CopyButton.tsx';
import { DataTable } from '../components/DataTable.tsx';
import { FollowToken } from '../components/FollowToken.tsx';
import { FundsCard } from '../components/FundsCard.tsx';
import { HistoryTable } from '../components/HistoryTable.tsx';
import { formatUnits, usd, when } from '../format.ts';
import { ProvisionalBadge, ProvisionalNotice, useSync } from '../sync.tsx';
import { Alert, Amount, Card, Loading, useLoad } from '../ui.tsx';

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

export function AccountsDetail({ id }: { id: string }) {
  const account = useLoad(() => call('accounts.get', { account_id: id }), [id], 4_000);
  const history = useLoad(() => call('accounts.history', { account_id: id, limit: 50 }), [id], 4_000);
  const { coins } = useSync();
  const a = account.data;
  if (account.error && !a) return <Alert>{account.error}</Alert>;
  if (!a) return <Loading what="the account" />;
  const indexing = coins.find((c) => c.family === 'evm' && c.network === a.network && !c.final) ?? null;
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
        <FundsCard
          title="Ether"
          provisional={indexing !== null}
          notice={indexing && <ProvisionalNotice sync={indexing} what="The balances" />}
          shown={<Balance units={a.ether.balance} unit={a.unit} testId="ether-balance" />}
          usdBalance={a.ether.usd_balance}
          pending={
            a.ether.unconfirmed_balance !== 0n && (
              <>
                <Amount units={a.ether.unconfirmed_balance} unit={a.unit} signed /> pending
              </>
            )
          }
        />
        <Card title="Receive">
          <p className="muted small">This account's address (EIP-55). It receives Ether and every ERC20 token.</p>
          <p className="mono address" data-testid="account-address-shown">
            {a.address}
          </p>
          <CopyButton text={a.address} />
        </Card>
      </div>
      <Card title="Tokens" actions={indexing ? <ProvisionalBadge /> : undefined}>
        <DataTable
          empty="No tokens followed. Follow a token by its contract address to see its balance and send it."
          testId="tokens"
          rowTestId="token-row"
          rows={a.token_balances}
          rowKey={(t) => t.contract}
          columns={[
            { head: 'Token', rowHeader: true, cell: (t) => t.symbol },
            { head: 'Contract', className: 'mono small', cell: (t) => t.contract },
            {
              head: 'Balance',
              num: true,
              cell: (t) => (
                <>
                  <Amount units={t.balance} unit={t.unit} />
                  {t.unconfirmed_balance !== 0n && (
                    <div className="small muted">
                      <Amount units={t.unconfirmed_balance} unit={t.unit} signed /> pending
                    </div>
                  )}
                </>
              ),
            },
            { head: 'USD', num: true, className: 'muted', cell: (t) => (t.usd_balance > 0 ? usd(t.usd_balance) : 'no rate') },
          ]}
        />
        <FollowToken account={a} onAdded={account.reload} />
      </Card>
      <Card title="Sends from this desk">
        <DataTable
          empty="None yet."
          testId="sends"
          rowTestId="send-row"
          rows={a.sends}
          rowKey={(x) => x.id}
          columns={[
            { head: 'When', className: 'small', cell: (x) => <a href={href.accountSendDetail(a.id, x.id)}>{when(x.created_at)}</a> },
            { head: 'To', className: 'mono small', cell: (x) => x.to },
            { head: 'Amount', num: true, cell: (x) => <Amount units={x.amount} unit={x.unit} /> },
            { head: 'Fee (at most)', num: true, className: 'small', cell: (x) => <Amount units={x.fee_amount} unit={x.fee_unit} /> },
            { head: 'State', cell: (x) => <span className={sendBadgeClass(x.state)}>{SEND_STATE_LABELS[x.state]}</span> },
          ]}
        />
      </Card>
      <Card title="History">
        {history.error && <Alert>{history.error}</Alert>}
        {!history.data && !history.error && <Loading what="history" />}
        {history.data && <HistoryTable entries={history.data.entries} unitOf={(e) => e.unit} empty="No transfers yet. Send Ether or tokens to the address above." testId="account-history" />}
        <p className="muted small">Ether amounts are the value transferred; fees paid by this account are shown with each send above.</p>
      </Card>
    </>
  );
}
