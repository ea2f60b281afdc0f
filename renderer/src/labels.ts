// A wallet's labels on its screen: one load, looked up by (type, ref), and a setter that reloads.
import type { LabelView } from '../../main/bridge/contract.ts';
import { call } from './bridge.ts';
import { useLoad } from './ui.tsx';

export type LabelType = LabelView['type'];

export interface WalletLabels {
  of: (type: LabelType, ref: string) => string;
  set: (type: LabelType, ref: string, label: string) => Promise<void>;
  reload: () => void;
  error: string | null;
}

export function useWalletLabels(walletId: string): WalletLabels {
  const loaded = useLoad(() => call('labels.list', { wallet_id: walletId }), [walletId]);
  const byKey = new Map((loaded.data ?? []).map((l) => [`${l.type} ${l.ref}`, l.label]));
  return {
    of: (type, ref) => byKey.get(`${type} ${ref}`) ?? '',
    set: async (type, ref, label) => {
      await call('labels.set', { wallet_id: walletId, type, ref, label });
      loaded.reload();
    },
    reload: loaded.reload,
    error: loaded.error,
  };
}
