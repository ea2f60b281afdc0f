import type { AccountSummary } from '../../../main/bridge/contract.ts';
import { href } from '../navigation.ts';
import { call } from '../bridge.ts';
import { ListPage } from '../components/ListPage.tsx';
import { usd } from '../format.ts';
import { ProvisionalBadge, useEtherSync } from '../sync.tsx';
import { Amount, useLoad } from '../ui.tsx';
import { Balance } from './AccountsDetail.tsx';

function AccountCard({ account }: { account: AccountSummary }) {
  const detail = useLoad(() => call('accounts.get', { account_id: account.id }), [account.id], 10_000);
  const sync = useEtherSync(account.network);
  const d = detail.data;
  return (
    <li>
      <a className="wallet-card" href={href.account(account.id)} data-testid="account-card">
        <span className="wallet-name">{account.name}</span>
        <span className="muted">
          {account.kind === 'ledger' ? 'Ledger' : 'Software key'} · ethereum {account.network}
        </span>
        <span className="mono small muted">{account.address}</span>
        <span className={`wallet-balance${sync && !sync.final ? ' provisional' : ''}`}>
          {d ? <Balance units={d.ether.balance} unit={d.unit} /> : detail.error ? <span className="muted">balance unavailable</span> : '…'}
          {sync && !sync.final && <> <ProvisionalBadge /></>}
        </span>
        {d && <span className="muted">{usd(d.ether.usd_balance)}</span>}
        {d && d.token_balances.length > 0 && (
          <span className="small">
            {d.token_balances.map((t, i) => (
              <span key={t.contract}>
                {i > 0 && ' · '}
                <Amount units={t.balance} unit={t.unit} />
              </span>
            ))}
          </span>
        )}
        {!account.can_sign && <span className="pill">view only</span>}
      </a>
    </li>
  );
}

export function AccountsList() {
  const accounts = useLoad(() => call('accounts.list', {}), []);
  return (
    <ListPage
      title="Ether accounts"
      intro="Single-signer accounts for Ether and ERC20 tokens, signed by a software key kept by this desk or by a Ledger."
      newLabel="New account"
      newHref={href.newAccount}
      list={accounts}
      what="accounts"
      empty={{ title: 'No Ether accounts yet', text: "Import recovery words or a private key, let the desk make a new key, or add a Ledger's address.", action: 'Add the first account' }}
      card={(a) => <AccountCard key={a.id} account={a} />}
    />
  );
}
