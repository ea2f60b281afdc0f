// The labels.* and books.* channels: thin translations over main/core/labels.ts and books.ts.
import type { ApiClient } from '../../shared/api/client.ts';
import type { CoordinatorApi } from '../core/api.ts';
import { exportBooks, walletBooks } from '../core/books.ts';
import { exportLabels, importLabels, setLabel } from '../core/labels.ts';
import type { CoordinatorStore } from '../core/store/store.ts';
import { requireWallet, walletParams } from '../core/wallets/wallets.ts';
import type { LabelView } from './contract.ts';
import type { Handlers } from './dispatch.ts';

type Api = CoordinatorApi & Pick<ApiClient, 'balances' | 'priceHistory'>;

export function createLabelHandlers(deps: { store: CoordinatorStore; api: Api; actor: string }): Pick<Handlers, 'labels.list' | 'labels.set' | 'labels.export' | 'labels.import' | 'books.series' | 'books.export'> {
  const { store } = deps;
  const list = (walletId: string): LabelView[] => store.labels.all(requireWallet(deps, walletId).id).map((l) => ({ type: l.type, ref: l.ref, label: l.label, spendable: l.spendable }));
  return {
    'labels.list': async ({ wallet_id }) => list(wallet_id),
    'labels.set': async ({ wallet_id, type, ref, label, spendable }) => {
      setLabel(deps, wallet_id, { type, ref, label, ...(spendable !== undefined ? { spendable } : {}) });
      return list(wallet_id);
    },
    'labels.export': async ({ wallet_id }) => {
      const f = exportLabels(store, wallet_id);
      return { file_name: f.fileName, text: f.text };
    },
    'labels.import': async ({ wallet_id, file }) => importLabels(deps, wallet_id, file.text, file.name),
    'books.series': async ({ wallet_id }) => {
      const decimals = walletParams(requireWallet(deps, wallet_id)).decimals;
      return (await walletBooks(deps, wallet_id)).map((r) => ({
        time: r.time,
        txid: r.txid,
        amount: r.amount,
        balance: r.balanceAfter,
        usd_value: r.usdRate === null ? null : (Number(r.balanceAfter) / 10 ** decimals) * r.usdRate,
        label: r.label,
      }));
    },
    'books.export': async ({ wallet_id, from, to }) => {
      const f = await exportBooks(deps, wallet_id, { ...(from !== undefined ? { from } : {}), ...(to !== undefined ? { to } : {}) });
      return { file_name: f.fileName, text: f.text };
    },
  };
}
