import type { WalletSummary } from '../../../main/bridge/contract.ts';
import { href } from '../navigation.ts';
import { call } from '../bridge.ts';
import { ConnectChainFirst, useServedChains } from '../components/ChainGate.tsx';
import { ListPage } from '../components/ListPage.tsx';
import { usd } from '../format.ts';
import { ProvisionalBadge, useCoinSync, useDeskRevision } from '../sync.tsx';
import { Amount, useLoad } from '../ui.tsx';

function WalletCard({ wallet }: { wallet: WalletSummary }) {
  const detail = useLoad(() => call('wallets.get', { wallet_id: wallet.id }), [wallet.id, useDeskRevision()], 10_000);
  const sync = useCoinSync(wallet.coin, wallet.network);
  // Not final by the wallet's own predicate (figures-final.ts), or, before it loads, while the coin's index is behind.
  const notFinal = detail.data ? detail.data.not_final : sync !== null && !sync.final ? `the service is still indexing ${wallet.coin}` : null;
  const provisional = notFinal !== null;
  const funds = detail.data?.funds;
  const unserved = detail.data?.unserved ?? null;
  // A vault's coins due for a refresh (their recovery path opens within the warning window) are said on its card.
  const vault = useLoad(() => (wallet.vault ? call('vaults.get', { wallet_id: wallet.id }) : Promise.resolve(null)), [wallet.id, funds?.balance], 10_000);
  const due = vault.data?.refresh.headline ?? null;
  return (
    <li>
      <a className="wallet-card" href={href.wallet(wallet.id)} data-testid="wallet-card">
        <span className="wallet-name">{wallet.name}</span>
        <span className="muted">
          {wallet.vault_paths !== null ? `vault: ${wallet.vault_paths}` : `${wallet.m} of ${wallet.n}`} · {wallet.coin} {wallet.network}
        </span>
        <span className={`wallet-balance${provisional ? ' provisional' : ''}`} data-testid="wallet-card-balance">
          {funds ? <Amount units={funds.balance} unit={wallet.unit} /> : unserved ? <span className="muted">not served by this desk's service</span> : detail.data || provisional ? <span className="muted">balance after indexing</span> : detail.error ? <span className="muted">balance unavailable</span> : '…'}
          {provisional && <> <ProvisionalBadge /></>}
        </span>
        {funds && <span className="muted">{usd(funds.usd_balance)}</span>}
        {provisional && <span className="muted small" data-testid="wallet-card-provisional">Not final: {notFinal}</span>}
        <span className="muted small">{wallet.cosigners.map((c) => c.name).join(', ')}</span>
        {due && (
          <span className="pill pill-warning" data-testid="wallet-card-refresh">
            {due}
          </span>
        )}
        {detail.data && detail.data.open_payments > 0 && <span className="pill">{detail.data.open_payments} open payment{detail.data.open_payments === 1 ? '' : 's'}</span>}
      </a>
    </li>
  );
}

export function WalletsList() {
  const wallets = useLoad(() => call('wallets.list', {}), []);
  const served = useServedChains();
  // First start: no wallet and no chain: connect a chain before anything else.
  if (served?.length === 0 && wallets.data?.length === 0) {
    return (
      <>
        <div className="page-head">
          <div>
            <h1>Wallets</h1>
            <p className="muted">Multi-signature wallets this desk coordinates. Funds move only when enough co-signers sign.</p>
          </div>
        </div>
        <ConnectChainFirst what="a wallet" />
      </>
    );
  }
  return (
    <ListPage
      title="Wallets"
      intro="Multi-signature wallets this desk coordinates. Funds move only when enough co-signers sign."
      newLabel="New wallet"
      newHref={href.newWallet}
      list={wallets}
      what="wallets"
      empty={{ title: 'No wallets yet', text: "Collect each co-signer's extended public key (xpub), then create an M-of-N wallet from them.", action: 'Create the first wallet' }}
      card={(w) => <WalletCard key={w.id} wallet={w} />}
    />
  );
}
