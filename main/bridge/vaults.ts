// The vaults.* channels (issue 27): thin translations over main/core/vaults.ts.
import type { ApiClient } from '../../shared/api/client.ts';
import type { CoinName } from '../../shared/coins/index.ts';
import { fileSafe } from '../core/file-names.ts';
import type { CoordinatorStore, WalletRow } from '../core/store/store.ts';
import { createVaultWithBirthday, type BirthdayDeps } from '../core/wallet-birthday.ts';
import { walletUnspent } from '../core/wallet-funds.ts';
import { exportVault, typedTimelock, vaultCoinOpenings, vaultPaths, type RecoveryPathInput } from '../core/vaults.ts';
import { requireWallet, walletParams, type CosignerInput } from '../core/wallets.ts';
import type { BridgeInput, VaultPathView, WalletSummary } from './contract.ts';
import type { Handlers } from './dispatch.ts';
import { unitOf } from './units.ts';

type CosignerIn = BridgeInput<'wallets.create'>['cosigners'][number];

const cosigner = (c: CosignerIn): CosignerInput => ({
  name: c.name,
  xpub: c.xpub,
  ...(c.fingerprint ? { fingerprint: c.fingerprint } : {}),
  ...(c.derivation_path ? { derivationPath: c.derivation_path } : {}),
});

export function createVaultHandlers(deps: BirthdayDeps & { api: Pick<ApiClient, 'utxos' | 'status'> }, summary: (w: WalletRow) => WalletSummary): Pick<Handlers, 'vaults.timelock' | 'vaults.create' | 'vaults.get' | 'vaults.export'> {
  const store: CoordinatorStore = deps.store;
  return {
    'vaults.timelock': async ({ coin, network, days }) => typedTimelock(coin, network, days),

    'vaults.create': async (input) => {
      const common = { coin: input.coin as CoinName, network: input.network, name: input.name };
      const birthday = input.birthday ?? { source: 'tip' as const };
      if (input.template === 'import') return summary(await createVaultWithBirthday(deps, { ...common, template: 'import', text: input.text }, birthday));
      const recovery: RecoveryPathInput[] = input.recovery.map((r) => {
        const { days } = typedTimelock(input.coin, input.network, r.days);
        return { threshold: r.threshold, cosigners: r.cosigners.map(cosigner), after: { days } };
      });
      const w = await createVaultWithBirthday(deps, { ...common, template: 'recovery', primary: { threshold: input.primary.threshold, cosigners: input.primary.cosigners.map(cosigner) }, recovery }, birthday);
      return summary(w);
    },

    'vaults.get': async ({ wallet_id }) => {
      const w = requireWallet(deps, wallet_id);
      const params = walletParams(w);
      const core = vaultPaths(deps, wallet_id);
      const words = (p: (typeof core)[number]) => `${p.opens}: ${p.threshold} of ${p.keys.join(', ')}`;
      const paths: VaultPathView[] = core.map((p) => ({ threshold: p.threshold, keys: p.keys, blocks: p.blocks, words: words(p) }));
      const unit = unitOf(w.coin, w.network, params.decimals);
      try {
        const [utxos, status] = await Promise.all([walletUnspent({ store, api: deps.api }, wallet_id), deps.api.status()]);
        const tip = status.coins.find((c) => c.coin === w.coin)?.tip_height ?? null;
        if (tip === null) return { paths, coins: [], unit, coins_unread: `the service has not told ${w.coin}'s tip yet` };
        const coins = vaultCoinOpenings(params, core, utxos, tip, Date.now()).map((o) => ({
          txid: o.txid,
          vout: o.vout,
          amount: o.amount,
          path: words(o.path),
          opens_at_block: o.opensAtBlock,
          blocks_left: o.blocksLeft,
          opens_around: o.opensAround,
        }));
        return { paths, coins, unit, coins_unread: null };
      } catch (err) {
        return { paths, coins: [], unit, coins_unread: `the coins could not be read (${err instanceof Error ? err.message : String(err)})` };
      }
    },

    'vaults.export': async ({ wallet_id, format }) => {
      const w = requireWallet(deps, wallet_id);
      const text = exportVault(deps, wallet_id, format);
      return { file_name: `${fileSafe(w.name)}-${format === 'descriptor' ? 'descriptor.txt' : 'bip388.json'}`, text };
    },
  };
}
