// A vault's page (issue 27): its spending paths, when each recovery path opens for each of its
// coins (block and an estimated date), and its descriptor or BIP388 policy to save.
import { useState } from 'react';
import { call } from '../bridge.ts';
import { DataTable } from '../components/DataTable.tsx';
import { shortId } from '../format.ts';
import { Alert, Amount, Card, Loading, download, message, useLoad } from '../ui.tsx';

const day = (iso: string) => iso.slice(0, 10);

/** `moved`: the wallet page's balance key; the coins load again as soon as it moves (as its outputs do). */
export function VaultPaths({ walletId, name, moved }: { walletId: string; name: string; moved: string }) {
  const vault = useLoad(() => call('vaults.get', { wallet_id: walletId }), [walletId, moved], 4_000);
  const [error, setError] = useState<string | null>(null);
  const save = async (format: 'descriptor' | 'bip388') => {
    setError(null);
    try {
      const f = await call('vaults.export', { wallet_id: walletId, format });
      download(f.file_name, f.text);
    } catch (err) {
      setError(message(err));
    }
  };
  const v = vault.data;
  return (
    <Card
      title="Spending paths"
      actions={
        <>
          <button type="button" onClick={() => void save('descriptor')} data-testid="vault-export-descriptor">
            Export descriptor
          </button>{' '}
          <button type="button" onClick={() => void save('bip388')} data-testid="vault-export-bip388">
            Export BIP388 policy
          </button>
        </>
      }
    >
      {vault.error && <Alert>{vault.error}</Alert>}
      {error && <Alert>{error}</Alert>}
      {!v && !vault.error && <Loading what={`${name}'s paths`} />}
      {v && (
        <>
          <ol className="plain" data-testid="vault-paths">
            {v.paths.map((p) => (
              <li key={p.blocks}>{p.words}</li>
            ))}
          </ol>
          <p className="muted small">Liana, Nunchuk and Sparrow read the descriptor; a Ledger, Coldcard or BitBox02 registers the BIP388 policy.</p>
          <h3>When the recovery path opens, coin by coin</h3>
          {v.coins_unread && <p className="muted">{v.coins_unread}</p>}
          <DataTable
            empty="No coins yet."
            testId="vault-coins"
            rows={v.coins}
            rowKey={(c) => `${c.txid}:${c.vout}:${c.path}`}
            columns={[
              { head: 'Coin', className: 'mono small', cell: (c) => `${shortId(c.txid)}:${c.vout}` },
              { head: 'Amount', num: true, cell: (c) => <Amount units={c.amount} unit={v.unit} /> },
              { head: 'Path', className: 'small', cell: (c) => c.path },
              {
                head: 'Opens',
                cell: (c) =>
                  c.opens_at_block === null
                    ? `${c.blocks_left.toLocaleString('en-US')} blocks after it confirms`
                    : c.blocks_left === 0
                      ? `open now (since block ${c.opens_at_block.toLocaleString('en-US')})`
                      : `at block ${c.opens_at_block.toLocaleString('en-US')}, about ${day(c.opens_around ?? '')} (${c.blocks_left.toLocaleString('en-US')} blocks from now)`,
              },
            ]}
          />
        </>
      )}
    </Card>
  );
}
