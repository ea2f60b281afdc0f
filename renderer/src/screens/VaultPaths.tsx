// A vault's page (issue 27): its spending paths, when each recovery path opens for each of its
// coins (block and an estimated date), the coins due for a refresh (their recovery path opens within
// the warning window of Settings) and the refresh itself, and its descriptor or BIP388 policy to save.
import { useEffect, useState } from 'react';
import type { VaultView } from '../../../main/bridge/contract.ts';
import { plural } from '../../../shared/api/words.ts';
import { call } from '../bridge.ts';
import { DataTable } from '../components/DataTable.tsx';
import { shortId } from '../format.ts';
import { go, href } from '../navigation.ts';
import { Alert, Amount, Card, Loading, download, message, useAction, useLoad, type Loaded } from '../ui.tsx';
import { outpointText } from './CoinControl.tsx';
import { FeeChoice, feeArgs, type FeeMode } from './FeeChoice.tsx';

const day = (iso: string) => iso.slice(0, 10);
const REFRESH_ID = 'vault-refresh';

/** The warning at the top of the wallet page: which coins are due, what it means, and the way to the refresh. */
export function VaultWarning({ vault }: { vault: VaultView | null }) {
  const warning = vault?.refresh.warning;
  if (!warning) return null;
  return (
    <div className="alert alert-warning" role="status" data-testid="vault-refresh-warning">
      {warning}{' '}
      <button type="button" className="link" onClick={() => document.getElementById(REFRESH_ID)?.scrollIntoView({ block: 'start' })} data-testid="vault-refresh-go">
        Choose the coins and refresh
      </button>
    </div>
  );
}

export function VaultPaths({ walletId, name, vault }: { walletId: string; name: string; vault: Loaded<VaultView | null> }) {
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
                cell: (c) => (
                  <>
                    {c.opens_at_block === null
                      ? `${plural(c.blocks_left, 'block')} after it confirms`
                      : c.blocks_left === 0
                        ? `open now (since block ${c.opens_at_block.toLocaleString('en-US')})`
                        : `at block ${c.opens_at_block.toLocaleString('en-US')}, about ${day(c.opens_around ?? '')} (${plural(c.blocks_left, 'block')} from now)`}
                    {v.refresh.due.includes(outpointText(c)) && v.coins.find((o) => o.txid === c.txid && o.vout === c.vout) === c && (
                      <>
                        {' '}
                        <span className="pill pill-warning" data-testid="vault-coin-due">
                          refresh due
                        </span>
                      </>
                    )}
                  </>
                ),
              },
            ]}
          />
          <Refresh walletId={walletId} v={v} />
        </>
      )}
    </Card>
  );
}

/** Pick coins (default: those due) and a fee rate; one payment sends them all back to the vault on the main path. */
function Refresh({ walletId, v }: { walletId: string; v: VaultView }) {
  const coins = [...new Map(v.coins.map((c) => [outpointText(c), c])).values()];
  const due = v.refresh.due.join(',');
  const [picked, setPicked] = useState<Set<string> | null>(null);
  // Until the treasurer picks, the due coins are chosen (and follow the warning as it moves).
  useEffect(() => setPicked(null), [due]);
  const chosen = picked ?? new Set(v.refresh.due);
  const presets = useLoad(() => call('payments.feePresets', { wallet_id: walletId }), [walletId]);
  const [feeMode, setFeeMode] = useState<FeeMode>('normal');
  const [customRate, setCustomRate] = useState('');
  const fee = feeArgs(feeMode, presets.data, null, customRate);
  const action = useAction();
  const toggle = (o: string) => {
    const next = new Set(chosen);
    if (next.has(o)) next.delete(o);
    else next.add(o);
    setPicked(next);
  };
  const refresh = () =>
    action.run(async () => {
      if (!fee || !('fee_rate' in fee)) return;
      const p = await call('vaults.refresh', { wallet_id: walletId, outpoints: [...chosen], fee_rate: fee.fee_rate });
      go(href.payment(p.id));
    });
  if (coins.length === 0) return null;
  return (
    <section id={REFRESH_ID} className="vault-refresh" data-testid="vault-refresh">
      <h3>Refresh coins</h3>
      <p className="muted small">
        A refresh is one payment from the vault to a fresh address of its own, spending the chosen coins whole (the fee comes out of them), signed on the main path by {v.paths[0]?.words.replace(/^now: /, '') ?? 'the co-signers'}. Once it is
        confirmed their recovery clock starts again from its block. Coins are flagged {v.refresh.days} days before their recovery path opens (Settings).
      </p>
      <ul className="plain checks" data-testid="vault-refresh-coins">
        {coins.map((c) => {
          const o = outpointText(c);
          return (
            <li key={o}>
              <label className="inline">
                <input type="checkbox" checked={chosen.has(o)} onChange={() => toggle(o)} disabled={c.opens_at_block === null} data-testid={`vault-refresh-pick-${o}`} />{' '}
                <span className="mono small">{`${shortId(c.txid)}:${c.vout}`}</span> <Amount units={c.amount} unit={v.unit} />
                {c.opens_at_block === null && <span className="muted small"> (unconfirmed: its clock starts when it confirms)</span>}
              </label>
            </li>
          );
        })}
      </ul>
      <FeeChoice unit={v.unit} presets={presets} mode={feeMode} onMode={setFeeMode} customRate={customRate} onCustomRate={setCustomRate} rateError={action.refusal?.field === 'fee_rate' ? action.refusal.message : null} rateOnly />
      {action.error && action.refusal?.field !== 'fee_rate' && <Alert>{action.error}</Alert>}
      <div className="form-actions">
        <button type="button" className="primary" disabled={action.busy || chosen.size === 0 || !fee} onClick={() => void refresh()} data-testid="vault-refresh-propose">
          {action.busy ? 'Proposing the refresh…' : chosen.size === 0 ? 'Pick the coins to refresh' : `Refresh ${plural(chosen.size, 'coin')}`}
        </button>
      </div>
    </section>
  );
}
