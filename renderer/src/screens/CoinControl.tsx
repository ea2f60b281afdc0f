// Coin control on the propose screen: by default the desk picks free outputs oldest first; here the
// treasurer may pick exactly which outputs the payment spends. Outputs an unsent payment already
// spends cannot be picked; frozen ones may be, by hand.
import type { Unit, UnspentOutput } from '../../../main/bridge/contract.ts';
import { call } from '../bridge.ts';
import { shortId } from '../format.ts';
import { Amount, useLoad } from '../ui.tsx';

export const outpointText = (u: Pick<UnspentOutput, 'txid' | 'vout'>): string => `${u.txid}:${u.vout}`;

export function CoinControl({ walletId, unit, picked, onPicked }: { walletId: string; unit: Unit; picked: string[] | null; onPicked: (p: string[] | null) => void }) {
  const unspent = useLoad(() => call('wallets.unspent', { wallet_id: walletId }), [walletId]);
  const rows = unspent.data ?? [];
  const sum = rows.filter((u) => picked?.includes(outpointText(u))).reduce((s, u) => s + u.amount, 0n);
  const toggle = (o: string, on: boolean) => onPicked(on ? [...(picked ?? []), o] : (picked ?? []).filter((x) => x !== o));
  return (
    <div className="coin-control">
      <label className="inline">
        <input type="checkbox" checked={picked !== null} onChange={(e) => onPicked(e.target.checked ? [] : null)} data-testid="coin-control" /> Choose the outputs to spend (otherwise the desk picks free ones, oldest first)
      </label>
      {picked !== null && (
        <>
          <table data-testid="coin-control-outputs">
            <tbody>
              {rows.map((u) => {
                const o = outpointText(u);
                return (
                  <tr key={o}>
                    <td>
                      <input type="checkbox" aria-label={`Spend ${o}`} disabled={u.reserved_by !== null} checked={picked.includes(o)} onChange={(e) => toggle(o, e.target.checked)} data-testid={`pick-${o}`} />
                    </td>
                    <td className="mono small" title={u.address}>
                      {shortId(u.txid)}:{u.vout}
                    </td>
                    <td className="num">
                      <Amount units={u.amount} unit={unit} />
                    </td>
                    <td className="small muted">{u.reserved_by !== null ? `spent by payment ${shortId(u.reserved_by)}, not yet sent` : u.frozen ? 'frozen' : ''}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
          <p className="small">
            Picked: {picked.length} output{picked.length === 1 ? '' : 's'}, <Amount units={sum} unit={unit} />
          </p>
        </>
      )}
    </div>
  );
}
