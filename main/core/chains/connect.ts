// Connecting a chain from Settings: "Test connection" asks the backend through the service's own
// probe (service/chains/probe.ts, reached through service.ts as the embedded mode is); saving tests
// first, keeps the choice (password in the coin's SecretStore), and restarts the embedded service so
// it serves the chain. Every refusal names the form field at fault.
import type { UtxoCoinName } from '../../../shared/coins/coin-table.ts';
import { probeChain, type ProbeAnswer, type ProbeField } from '../../../service/service.ts';
import type { ChainChoice } from './choice.ts';
import { removeChain, saveChain, serviceCoinConfig, storedChains, type ChainSecrets } from './settings.ts';
import { CoordinatorError } from '../errors.ts';
import type { CoordinatorStore } from '../store/store.ts';

/** The embedded service as chain settings need it: restarted to apply them. */
export interface ChainHost {
  restart(): Promise<string>;
}

export interface ChainDeps {
  store: CoordinatorStore;
  secrets: ChainSecrets;
  host: ChainHost;
  /** Told the embedded service's new address after a restart (ServiceConnection.embeddedMoved). */
  moved: (url: string) => void;
  /** After a restart: the wallets of watched coins the service does not know are registered. */
  restarted?: () => Promise<unknown>;
  actor: string;
}

/** The form's field for each field the probe names. */
const FORM_FIELD: Record<ProbeField, string> = {
  url: 'url',
  cookieFile: 'cookie_file',
  password: 'password',
  host: 'host',
  port: 'port',
  certificate: 'pinned_sha256',
  network: 'network',
};

/** The password to use: the one typed, else the one kept for this coin; refused at its field when neither. */
function passwordFor(deps: Pick<ChainDeps, 'secrets'>, coin: UtxoCoinName, choice: ChainChoice, typed: string | undefined): string | null {
  if (choice.kind !== 'node' || choice.auth.kind !== 'password') return null;
  if (typed !== undefined && typed !== '') return typed;
  const kept = deps.secrets(coin).load();
  if (kept === null) throw new CoordinatorError('bad_input', "type the node's RPC password (rpcpassword, or the one of its rpcauth line)", { field: 'password' });
  return kept;
}

/** What answered at the chosen backend, or a refusal at the field at fault. Nothing is saved. */
export async function testChain(deps: Pick<ChainDeps, 'secrets'>, coin: UtxoCoinName, choice: ChainChoice, typedPassword?: string): Promise<ProbeAnswer> {
  const password = passwordFor(deps, coin, choice, typedPassword);
  const result = await probeChain(coin, serviceCoinConfig(choice, password));
  if (!result.ok) {
    // A node could echo what it was sent: the password never reaches the screen.
    const words = password ? result.message.split(password).join('[password]') : result.message;
    throw new CoordinatorError('chain_refused', words, { field: FORM_FIELD[result.field] });
  }
  return result.answer;
}

/** Tests, then saves and restarts the embedded service; the audit names the backend, never a secret. */
export async function connectChain(deps: ChainDeps, coin: UtxoCoinName, choice: ChainChoice, typedPassword?: string): Promise<ProbeAnswer> {
  const answer = await testChain(deps, coin, choice, typedPassword);
  const problem = choice.kind === 'node' && choice.auth.kind === 'password' && typedPassword ? deps.secrets(coin).problem() : null;
  if (problem) throw new CoordinatorError('key_storage_refused', `${problem}; the ${coin} connection was not saved`, { field: 'password' });
  saveChain(deps.store, deps.secrets, coin, choice, choice.kind === 'node' && choice.auth.kind === 'password' && typedPassword ? typedPassword : null);
  deps.store.audit(deps.actor, 'chain.connect', `${coin} ${choice.network}: ${describeChoice(choice)} (answered: ${answer.chain ?? 'chain not said'}, height ${answer.height})`);
  deps.moved(await deps.host.restart());
  await deps.restarted?.();
  return answer;
}

export async function disconnectChain(deps: ChainDeps, coin: UtxoCoinName): Promise<void> {
  if (!storedChains(deps.store, deps.secrets).chains.some((c) => c.coin === coin)) throw new CoordinatorError('bad_input', `no ${coin} connection is saved in Settings`, { field: 'coin' });
  removeChain(deps.store, deps.secrets, coin);
  deps.store.audit(deps.actor, 'chain.disconnect', `${coin}: the connection saved in Settings is removed`);
  deps.moved(await deps.host.restart());
  await deps.restarted?.();
}

/** The backend in words for the audit log: where, and how it is reached, never a password. */
export function describeChoice(choice: ChainChoice): string {
  switch (choice.kind) {
    case 'node':
      return `own node at ${choice.url}, ${choice.auth.kind === 'cookie' ? `cookie file ${choice.auth.cookie_file}` : `user ${choice.auth.username} and a password`}`;
    case 'electrum':
      return `Electrum server ${choice.host}:${choice.port}${choice.tls ? (choice.pinned_sha256 ? ', TLS, certificate pinned' : ', TLS') : ', plain TCP'}`;
    case 'blockbook':
      return `Blockbook at ${choice.url}`;
  }
}
