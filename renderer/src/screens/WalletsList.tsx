import type { WalletSummary } from '../../../main/bridge/contract.ts';
import { href } from '../navigation.ts';
import { call } from '../bridge.ts';
import { ListPage } from '../components/ListPage.tsx';
import { usd } from '../format.ts';
import { Amount, useLoad } from '../ui.tsx';

function WalletCard({ wallet }: { wallet: WalletSummary }) {
  const detail = useLoad(() => call('wallets.get', { wallet_id: wallet.id }), [wallet.id], 10_000);
  return (
    <li>
      <a className="wallet-card" href={href.wallet(wallet.id)} data-testid="wallet-card">
        <span className="wallet-name">{wallet.name}</span>
        <span className="muted">
          {wallet.m} of {wallet.n} · {wallet.coin} {wallet.network}
        </span>
        <span className="wallet-balance">
          {detail.data ? <Amount units={detail.data.funds.balance} unit={wallet.unit} /> : detail.error ? <span className="muted">balance unavailable</span> : '…'}
        </span>
        {detail.data && <span className="muted">{usd(detail.data.funds.usd_balance)}</span>}
        <span className="muted small">{wallet.cosigners.map((c) => c.name).join(', ')}</span>
        {detail.data && detail.data.open_payments > 0 && <span className="pill">{detail.data.open_payments} open payment{detail.data.open_payments === 1 ? '' : 's'}</span>}
      </a>
    </li>
  );
}

export function WalletsList() {
  const wallets = useLoad(() => call('wallets.list', {}), []);
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
