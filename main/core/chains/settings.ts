// The chains the treasurer connected from Settings, per coin: their own node (URL, and a cookie
// file or a user and password), an Electrum server (host, port, TLS, a pinned certificate or not)
// or a Blockbook (URL). Kept in the desk's settings table, one JSON row per coin, without the
// password: that lives in a SecretStore per coin, as the remote service's API key does.
//
// The embedded service's coins come from here AND from the operator's embedded-service.json,
// through one function (embeddedCoins); serviceCoinConfig is the one place a coin's service
// configuration is built from a choice.
import { UTXO_COIN_NAMES, type NetworkName, type UtxoCoinName } from '../../../shared/coins/coin-table.ts';
import type { ServiceConfigInput } from '../../../service/service.ts';
import { ChainChoice } from './choice.ts';
import { MemorySecretStore, type SecretStore } from '../secrets.ts';
import type { CoordinatorStore } from '../store/store.ts';

export type CoinsInput = NonNullable<ServiceConfigInput['coins']>;
type CoinInput = NonNullable<CoinsInput[UtxoCoinName]>;

const SETTING_PREFIX = 'chains.';
const settingKey = (coin: UtxoCoinName) => `${SETTING_PREFIX}${coin}`;

/** Where the desk keeps each coin's node password: a SecretStore per coin. */
export type ChainSecrets = (coin: UtxoCoinName) => SecretStore;

class MemoryPasswordStore extends MemorySecretStore {
  override readonly description: string = 'web mode keeps node passwords in the memory of this desk process only: they are gone when the desk stops, and you type them again';
}

/** Web mode and tests: node passwords in this process's memory, one store per coin. */
export function memoryChainSecrets(): ChainSecrets {
  const stores = new Map<UtxoCoinName, SecretStore>();
  return (coin) => {
    let s = stores.get(coin);
    if (!s) stores.set(coin, (s = new MemoryPasswordStore()));
    return s;
  };
}

/**
 * The one place a coin's service configuration is built from the treasurer's choice (the service's
 * own `coins.<coin>` format, config.ts). The password is only ever read here, from the secrets.
 */
export function serviceCoinConfig(choice: ChainChoice, password: string | null): CoinInput {
  const network: NetworkName = choice.network;
  switch (choice.kind) {
    case 'node':
      // A treasurer's own node (pruned or not) watches the desk's wallets from their birthdays
      // (issue 25): it never builds the whole chain's index. The operator's file says what it says.
      return {
        network,
        backend:
          choice.auth.kind === 'cookie'
            ? { type: 'node-rpc', url: choice.url, cookieFile: choice.auth.cookie_file, index: 'watch' }
            : { type: 'node-rpc', url: choice.url, username: choice.auth.username, password: password ?? '', index: 'watch' },
      };
    case 'electrum':
      return {
        network,
        backend: {
          type: 'electrum',
          host: choice.host,
          port: choice.port,
          tls: choice.tls,
          // A pinned certificate is checked by its hash; otherwise an authority must have signed it.
          verifyCertificate: true,
          ...(choice.tls && choice.pinned_sha256 ? { certificateSha256: choice.pinned_sha256 } : {}),
        },
      };
    case 'blockbook':
      return { network, backend: { type: 'blockbook', url: choice.url } };
  }
}

export interface StoredChain {
  coin: UtxoCoinName;
  choice: ChainChoice;
  /** A password is kept for it (node with user and password). */
  passwordStored: boolean;
}

/** The chains saved from Settings; a row the desk cannot read is skipped and named in `problems`. */
export function storedChains(store: Pick<CoordinatorStore, 'setting'>, secrets: ChainSecrets): { chains: StoredChain[]; problems: string[] } {
  const chains: StoredChain[] = [];
  const problems: string[] = [];
  for (const coin of UTXO_COIN_NAMES) {
    const raw = store.setting(settingKey(coin));
    if (raw === null) continue;
    let parsed: ReturnType<typeof ChainChoice.safeParse>;
    try {
      parsed = ChainChoice.safeParse(JSON.parse(raw));
    } catch {
      problems.push(`the saved ${coin} connection is not JSON; connect ${coin} again in Settings`);
      continue;
    }
    if (!parsed.success) {
      problems.push(`the saved ${coin} connection is refused (${parsed.error.issues[0]?.message ?? 'invalid'}); connect ${coin} again in Settings`);
      continue;
    }
    chains.push({ coin, choice: parsed.data, passwordStored: parsed.data.kind === 'node' && parsed.data.auth.kind === 'password' && secrets(coin).load() !== null });
  }
  return { chains, problems };
}

/** Saves a coin's chain; the password (user-and-password nodes only) goes to the coin's SecretStore. */
export function saveChain(store: Pick<CoordinatorStore, 'setSettings'>, secrets: ChainSecrets, coin: UtxoCoinName, choice: ChainChoice, password: string | null): void {
  const vault = secrets(coin);
  if (choice.kind === 'node' && choice.auth.kind === 'password') {
    if (password !== null) vault.save(password);
  } else {
    vault.clear();
  }
  store.setSettings({ [settingKey(coin)]: JSON.stringify(choice) });
}

export function removeChain(store: Pick<CoordinatorStore, 'setSettings'>, secrets: ChainSecrets, coin: UtxoCoinName): void {
  secrets(coin).clear();
  store.setSettings({ [settingKey(coin)]: null });
}

/** Where a coin the embedded service serves was configured. */
export type ChainSource = 'settings' | 'file';

export interface EmbeddedCoins {
  coins: CoinsInput;
  sources: ReadonlyMap<UtxoCoinName, ChainSource>;
  /** Said once in Settings: file coins replaced by a Settings choice, unreadable rows. */
  notes: string[];
}

/**
 * THE one path from both sources to the embedded service's coins: the operator's file (its `coins`
 * object, as read; the service validates it) and the chains saved in Settings. Per coin, the
 * treasurer's Settings choice wins over the file, and the notes say so.
 */
export function embeddedCoins(fileCoins: CoinsInput, saved: { chains: readonly StoredChain[]; problems: readonly string[] }, secrets: ChainSecrets): EmbeddedCoins {
  const coins: CoinsInput = { ...fileCoins };
  const sources = new Map<UtxoCoinName, ChainSource>();
  for (const coin of UTXO_COIN_NAMES) if (coin in fileCoins) sources.set(coin, 'file');
  const notes = [...saved.problems];
  for (const { coin, choice } of saved.chains) {
    if (sources.get(coin) === 'file') notes.push(`${coin}: the connection saved in Settings is used instead of the one in embedded-service.json`);
    coins[coin] = serviceCoinConfig(choice, choice.kind === 'node' && choice.auth.kind === 'password' ? secrets(coin).load() : null);
    sources.set(coin, 'settings');
  }
  return { coins, sources, notes };
}
