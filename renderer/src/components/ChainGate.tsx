// First start: with no chain connected the desk leads the treasurer to Settings to connect one
// before it offers to make a wallet; a wallet for a chain the service does not read says so.
import { href } from '../navigation.ts';
import { useSync } from '../sync.tsx';

/** The wallet chains (coin and network) the service reads now; null until its status is known. */
export function useServedChains(): { coin: string; network: string }[] | null {
  const { status, coins } = useSync();
  if (!status.data) return null;
  return coins.filter((c) => c.family !== 'evm').map((c) => ({ coin: c.coin, network: c.network }));
}

export function ConnectChainFirst({ what }: { what: string }) {
  return (
    <div className="empty" data-testid="connect-chain-first">
      <h2>Connect a chain first</h2>
      <p>
        The desk reads balances and sends payments through a chain: your own node (a pruned one too), an Electrum server or a Blockbook. None is connected yet, so {what} would show nothing.
      </p>
      <a className="button primary" href={href.settings} data-testid="connect-chain-link">
        Connect a chain in Settings
      </a>
    </div>
  );
}
