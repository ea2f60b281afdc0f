// Settings' chains over the bridge: the embedded service's coins (from Settings or the operator's
// file), "Test connection", save (tested first; restarts the embedded service) and remove. A node's
// password goes to the desk's secret store and never comes back.
import { UTXO_COIN_NAMES, type UtxoCoinName } from '../../shared/coins/coin-table.ts';
import type { ProbeAnswer } from '../../service/service.ts';
import { connectChain, disconnectChain, testChain, type ChainHost } from '../core/chains/connect.ts';
import { storedChains, type ChainSecrets, type ChainSource } from '../core/chains/settings.ts';
import type { ServiceConnection } from '../core/chains/connection.ts';
import { CoordinatorError } from '../core/errors.ts';
import type { CoordinatorStore } from '../core/store/store.ts';
import { watchAfterStart } from '../core/wallets/birthday.ts';
import type { ChainsView, ChainTestView } from './contract.ts';
import type { Handlers } from './dispatch.ts';

/** The embedded service as Settings sees it: where each coin comes from, why some do not, restart. */
export interface ChainBridgeHost extends ChainHost {
  readonly notice: string | null;
  readonly sources: ReadonlyMap<UtxoCoinName, ChainSource>;
}

export interface ChainBridgeDeps {
  store: CoordinatorStore;
  connection: ServiceConnection;
  actor: string;
  /** Absent: this desk's service is not the embedded one it starts (the dev desk, tests). */
  chains?: { secrets: ChainSecrets; host: ChainBridgeHost };
}

export const chainTestView = (a: ProbeAnswer): ChainTestView => ({
  kind: a.kind,
  software: a.software,
  chain: a.chain,
  network: a.network,
  height: a.height,
  pruned: a.pruned,
  prune_height: a.pruneHeight,
  block_filters: a.blockFilters,
  relays_replacements: a.relaysReplacements,
  certificate_sha256: a.certificateSha256,
  notes: a.notes,
});

/** Why a desk that started no service of its own connects and tests no chain, and what to do. */
export const notOwnService = (url: string): string =>
  `this desk started no service of its own: it talks to the service at ${url}, which was started without it, so that service's chains are set in its own configuration and none can be connected or tested here. To connect a node of your own, start the desk with its own service (the app always does; npm run demo does), or set the node in that service's configuration`;

type ChainChannels = 'chains.list' | 'chains.test' | 'chains.save' | 'chains.remove';

export function createChainHandlers(deps: ChainBridgeDeps): Pick<Handlers, ChainChannels> {
  const need = () => {
    // Said the same way as the Chains page says it (ChainSettings.tsx): why, and what to do.
    if (!deps.chains) throw new CoordinatorError('unsupported', notOwnService(deps.connection.url));
    return deps.chains;
  };
  const list = (): ChainsView => {
    const c = deps.chains;
    const saved = c ? storedChains(deps.store, c.secrets).chains : [];
    const first = c ? c.secrets(UTXO_COIN_NAMES[0]) : null;
    return {
      embedded: deps.connection.mode === 'embedded' && c !== undefined,
      not_here: c ? null : notOwnService(deps.connection.url),
      service_url: deps.connection.url,
      chains: UTXO_COIN_NAMES.map((coin) => {
        const s = saved.find((x) => x.coin === coin);
        return { coin, source: c?.host.sources.get(coin) ?? null, choice: s?.choice ?? null, password_stored: s?.passwordStored ?? false };
      }),
      notice: c?.host.notice ?? null,
      secret_storage: first ? { description: first.description, persistent: first.persistent, problem: first.problem() } : { description: 'no secret store', persistent: false, problem: 'this desk keeps no chain passwords' },
    };
  };
  const core = () => {
    const c = need();
    return { store: deps.store, secrets: c.secrets, host: c.host, moved: (url: string) => deps.connection.embeddedMoved(url),
      // The wallets of a coin now watched (a node from Settings) are registered with the new service.
      restarted: () => watchAfterStart({ store: deps.store, api: deps.connection.api, actor: deps.actor }),
      actor: deps.actor,
    };
  };
  return {
    'chains.list': async () => list(),
    'chains.test': async ({ coin, choice, password }) => chainTestView(await testChain(core(), coin, choice, password)),
    'chains.save': async ({ coin, choice, password }) => {
      await connectChain(core(), coin, choice, password);
      return list();
    },
    'chains.remove': async ({ coin }) => {
      await disconnectChain(core(), coin);
      return list();
    },
  };
}
