// The vaults.* channels (issue 27): thin translations over main/core/vaults/vaults.ts.
import type { ApiClient } from '../../shared/api/client.ts';
import type { CoinName } from '../../shared/coins/index.ts';
import { fileSafe } from '../core/file-names.ts';
import type { CoordinatorStore, WalletRow } from '../core/store/store.ts';
import { createVaultWithBirthday, type BirthdayDeps } from '../core/wallets/birthday.ts';
import { CoordinatorError } from '../core/errors.ts';
import { outpointKey } from '../core/payments/outpoints.ts';
import { DEFAULT_WARNING_DAYS, typedWarningDays, VAULT_WARNING_SETTING, vaultWarningDays } from '../core/vaults/freshness.ts';
import { proposeRefresh, vaultCoinsNow } from '../core/vaults/refresh.ts';
import { exportVault, typedPathDays, typedTimelock, vaultPaths, type RecoveryPathInput } from '../core/vaults/vaults.ts';
import { requireWallet, walletParams, type CosignerInput } from '../core/wallets/wallets.ts';
import type { BridgeInput, VaultPathView, WalletSummary } from './contract.ts';
import type { Handlers } from './dispatch.ts';
import { unitOf } from './units.ts';
import { signingPath, walletSigners } from './signing-path.ts';
import { paymentDetail } from './views.ts';

type CosignerIn = BridgeInput<'wallets.create'>['cosigners'][number];

const cosigner = (c: CosignerIn): CosignerInput => ({
  name: c.name,
  xpub: c.xpub,
  ...(c.fingerprint ? { fingerprint: c.fingerprint } : {}),
  ...(c.derivation_path ? { derivationPath: c.derivation_path } : {}),
});

export function createVaultHandlers(deps: BirthdayDeps & { api: Pick<ApiClient, 'utxos' | 'status'> }, summary: (w: WalletRow) => WalletSummary): Pick<Handlers, 'vaults.timelock' | 'vaults.create' | 'vaults.get' | 'vaults.export' | 'vaults.refresh' | 'settings.vaultWarning'> {
  const store: CoordinatorStore = deps.store;
  return {
    'vaults.timelock': async ({ coin, network, days, after_days }) => typedTimelock(coin, network, days, after_days),

    'vaults.create': async (input) => {
      const common = { coin: input.coin as CoinName, network: input.network, name: input.name };
      const birthday = input.birthday ?? { source: 'tip' as const };
      if (input.template === 'import') return summary(await createVaultWithBirthday(deps, { ...common, template: 'import', text: input.text }, birthday));
      const primary = { threshold: input.primary.threshold, cosigners: input.primary.cosigners.map(cosigner) };
      if (input.template === 'decaying') {
        const typed = input.decay.map((d) => d.days);
        const decay = input.decay.map((d, i) => ({ threshold: d.threshold, after: { days: typedPathDays(input.coin, input.network, typed, i) } }));
        return summary(await createVaultWithBirthday(deps, { ...common, template: 'decaying', primary, decay }, birthday));
      }
      const typed = input.recovery.map((r) => r.days);
      const recovery: RecoveryPathInput[] = input.recovery.map((r, i) => ({ threshold: r.threshold, cosigners: r.cosigners.map(cosigner), after: { days: typedPathDays(input.coin, input.network, typed, i) } }));
      const w = await createVaultWithBirthday(deps, { ...common, template: 'recovery', primary, recovery }, birthday);
      return summary(w);
    },

    'vaults.get': async ({ wallet_id }) => {
      const w = requireWallet(deps, wallet_id);
      const params = walletParams(w);
      const core = vaultPaths(deps, wallet_id);
      const words = (p: (typeof core)[number]) => `${p.opens}: ${p.threshold} of ${p.keys.join(', ')}`;
      const signers = walletSigners(deps, w);
      const paths: VaultPathView[] = core.map((p) => ({ threshold: p.threshold, keys: p.keys, blocks: p.blocks, words: words(p), signing: signingPath(params, signers, p.blocks) }));
      const unit = unitOf(w.coin, w.network, params.decimals);
      const days = vaultWarningDays(store);
      try {
        const now = await vaultCoinsNow(deps, wallet_id, Date.now());
        const coins = now.openings.map((o) => ({
          txid: o.txid,
          vout: o.vout,
          amount: o.amount,
          path: words(o.path),
          path_blocks: o.path.blocks,
          opens_at_block: o.opensAtBlock,
          blocks_left: o.blocksLeft,
          opens_around: o.opensAround,
        }));
        return { paths, coins, unit, coins_unread: null, refresh: { days, due: now.due.filter((d) => d.spentBy === null).map((d) => outpointKey(d.opening)), warning: now.warning?.words ?? null, headline: now.warning?.headline ?? null } };
      } catch (err) {
        const why = err instanceof CoordinatorError ? err.message : `the coins could not be read (${err instanceof Error ? err.message : String(err)})`;
        return { paths, coins: [], unit, coins_unread: why, refresh: { days, due: [], warning: null, headline: null } };
      }
    },

    'vaults.refresh': async ({ wallet_id, outpoints, fee_rate }) => {
      const p = await proposeRefresh(deps, wallet_id, { ...(outpoints ? { outpoints } : {}), feeRate: fee_rate });
      return paymentDetail(deps, p.id);
    },

    'settings.vaultWarning': async ({ days }) => {
      if (days === undefined) return { days: vaultWarningDays(store) };
      const chosen = typedWarningDays(days);
      store.setSettings({ [VAULT_WARNING_SETTING]: chosen === DEFAULT_WARNING_DAYS ? null : String(chosen) });
      store.audit(deps.actor, 'settings.vault_warning', `vault coins are flagged ${chosen} days before their recovery path opens`);
      return { days: vaultWarningDays(store) };
    },

    'vaults.export': async ({ wallet_id, format }) => {
      const w = requireWallet(deps, wallet_id);
      const text = exportVault(deps, wallet_id, format);
      return { file_name: `${fileSafe(w.name)}-${format === 'descriptor' ? 'descriptor.txt' : 'bip388.json'}`, text };
    },
  };
}
