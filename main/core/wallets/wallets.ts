// M-of-N wallets from co-signers' xpubs. Addresses are derived here AND asked of the service; a
// wallet whose two answers ever differ is refused: one of them is wrong and funds would be lost.
import type { OwnNode } from '../chains/own-node.ts';
import { randomUUID } from 'node:crypto';
import {
  bytesToHex,
  chainParams,
  parseXpub,
  repeatedExtendedKey,
  type ChainParams,
  type CoinName,
  type NetworkName,
} from '../../../shared/coins/index.ts';
import { requireScriptType, type MultisigScriptType } from '../../../shared/coins/multisig-script.ts';
import type { CoordinatorApi } from '../api.ts';
import { CoordinatorError } from '../errors.ts';
import { ApiClientError } from '../../../shared/api/client.ts';
import { isEvmCoin } from '../../../shared/coins/coin-table.ts';
import { unservedWords } from '../chains/service-status.ts';
import type { AddressRow, BirthdaySource, CoordinatorStore, CosignerRow, WalletRow } from '../store/store.ts';
import { refuseExistingWallet } from './identity.ts';
import { walletAddress, type WalletAddress, type WalletScript } from './script.ts';
import { watchScanComplete } from './figures-final.ts';
import type { WatchStatus } from '../../../shared/api/schemas.ts';
import type { SignerDevice } from '../../../shared/api/signer-devices.ts';

export const GAP_LIMIT = 20;

export interface CosignerInput {
  name: string;
  xpub: string;
  /** Master key fingerprint (hex), as the co-signer's device reports it; '00000000' when unknown. */
  fingerprint?: string;
  /** Path from the master key to this xpub, e.g. m/48'/2'/0'. */
  derivationPath?: string;
  /** The co-signer's kind of air-gapped signer, when the treasurer says (the QR dialogs open on its code). */
  device?: SignerDevice;
}

export interface NewWallet {
  coin: CoinName;
  network: NetworkName;
  name: string;
  m: number;
  cosigners: readonly CosignerInput[];
  /** Default p2sh (what the desk always made); the new-wallet screen asks for p2wsh where the coin has segwit. */
  scriptType?: MultisigScriptType;
  /** BIP67 key order; default false (co-signer order, as clients of the original API expect). */
  sortKeys?: boolean;
  /** Resolved already (wallet-birthday.ts); absent: unknown, the wallet is read from the beginning. */
  birthday?: { height: number | null; source: BirthdaySource };
}

export interface CoreDeps {
  store: CoordinatorStore;
  api: CoordinatorApi;
  /** Who acts, for the audit log. */
  actor: string;
  /** The treasurer's own nodes (Settings), where the desk proves what the service only says; absent: none. */
  ownNode?: OwnNode;
}

export function walletParams(w: WalletRow): ChainParams {
  return chainParams(w.coin, w.network);
}

/** Asks the service for the same address (same script type and key order) and refuses loudly when it differs from ours. */
async function crossCheck(api: CoordinatorApi, coin: CoinName, w: WalletScript, xpubs: readonly string[], ours: WalletAddress): Promise<void> {
  const answer = await api.toNetworkAddresses({
    number_of_required_signatures: w.m,
    master_keys: xpubs.map((xpub) => ({ xpub, path: `m/${ours.path}` })),
    // The original request when the wallet is P2SH with keys as given.
    ...(w.scriptType !== 'p2sh' ? { script_type: w.scriptType } : {}),
    ...(w.sortKeys ? { sort_keys: true } : {}),
  });
  const theirs = answer[0]?.addresses.find((a) => a.coin === coin)?.network_address;
  const theirKeys = answer[0]?.public_keys.map((k) => k.toLowerCase()) ?? [];
  const ourKeys = ours.publicKeys.map(bytesToHex);
  if (theirs !== ours.address || theirKeys.join() !== ourKeys.join()) {
    throw new CoordinatorError(
      'address_mismatch',
      `refusing the wallet: at path ${ours.path} this app derives ${ours.address} but the service says ${theirs ?? '(no address)'}` +
        (theirKeys.join() !== ourKeys.join() ? ' (the public keys differ too)' : '') +
        '; one of them is wrong, so no funds may be sent to this wallet',
    );
  }
}

/** Derives, cross-checks with the service and stores the addresses of one chain in [from, to). */
export async function ensureAddresses(deps: CoreDeps, walletId: string, change: boolean, from: number, to: number): Promise<WalletAddress[]> {
  const w = requireWallet(deps, walletId);
  const xpubs = deps.store.cosigners(walletId).map((c) => c.xpub);
  const params = walletParams(w);
  const out: WalletAddress[] = [];
  for (let i = from; i < to; i++) out.push(walletAddress(params, w, xpubs, change, i));
  // Asked together: a gap-limit batch is 20 round trips otherwise. The service derives M-of-N
  // addresses only: a vault's are proven against rust-miniscript in shared/coins/vault-oracle.test.ts.
  if (!w.vaultTemplate) await Promise.all(out.map((a) => crossCheck(deps.api, w.coin, w, xpubs, a)));
  deps.store.insertAddresses(walletId, out);
  return out;
}

export function requireWallet(deps: Pick<CoreDeps, 'store'>, walletId: string): WalletRow {
  const w = deps.store.wallet(walletId);
  if (!w) throw new CoordinatorError('unknown_wallet', `no wallet ${walletId} in this store`);
  return w;
}

/** Creates an M-of-N wallet: validates every xpub for the coin, checks the first addresses with the service, stores it. */
export async function createWallet(deps: CoreDeps, input: NewWallet): Promise<WalletRow> {
  const params = chainParams(input.coin, input.network);
  const n = input.cosigners.length;
  if (!Number.isInteger(input.m) || input.m < 1 || input.m > n || n > 15) {
    throw new CoordinatorError('bad_wallet', `a wallet needs 1 <= M <= N <= 15 co-signers; got M=${input.m}, N=${n}`);
  }
  for (const c of input.cosigners) parseXpub(params, c.xpub.trim(), `co-signer ${c.name}'s xpub`);
  const repeated = repeatedExtendedKey(input.cosigners.map((c) => c.xpub));
  if (repeated !== null) {
    const [a, b] = repeated.map((i) => input.cosigners[i]!);
    throw new CoordinatorError('bad_wallet', `co-signer ${b!.name}'s xpub is already in this wallet (${a!.name}'s key${a!.xpub.trim() === b!.xpub.trim() ? '' : ', written in another encoding'}): each co-signer needs an own key`);
  }
  const cosigners: CosignerRow[] = input.cosigners.map((c, position) => {
    return { position, name: c.name, xpub: c.xpub.trim(), fingerprint: c.fingerprint ?? '00000000', derivationPath: c.derivationPath ?? 'm', device: c.device ?? null };
  });
  const xpubs = cosigners.map((c) => c.xpub);
  const script: WalletScript = { m: input.m, scriptType: input.scriptType ?? 'p2sh', sortKeys: input.sortKeys === true };
  try {
    requireScriptType(params, script.scriptType);
  } catch (err) {
    throw new CoordinatorError('bad_wallet', err instanceof Error ? err.message : String(err));
  }
  refuseExistingWallet(deps.store, { params, m: input.m, xpubs, scriptType: script.scriptType, sortKeys: script.sortKeys });
  // A wallet the service cannot serve would open on a page with nothing but its refusals.
  const unserved = await unservedWords(deps.api, input.coin, input.network);
  if (unserved) {
    throw new CoordinatorError('coin_not_served', `refusing the wallet: ${unserved}. Choose a coin and network it serves, or point the desk at a service that serves ${input.coin} ${input.network} (Settings).`, { field: 'coin' });
  }
  // Before storing anything: the service must agree on the first receive and change addresses.
  const first = [walletAddress(params, script, xpubs, false, 0), walletAddress(params, script, xpubs, true, 0)];
  for (const a of first) await crossCheck(deps.api, input.coin, script, xpubs, a);

  const wallet: WalletRow = {
    id: randomUUID(),
    coin: input.coin,
    network: input.network,
    name: input.name,
    m: input.m,
    createdAt: new Date().toISOString(),
    scriptType: script.scriptType,
    sortKeys: script.sortKeys,
    birthdayHeight: input.birthday?.height ?? null,
    birthdaySource: input.birthday?.source ?? null,
  };
  deps.store.transaction(() => {
    deps.store.insertWallet(wallet, cosigners);
    deps.store.insertAddresses(wallet.id, first);
    deps.store.audit(deps.actor, 'wallet.create', `${input.m}-of-${n} ${input.coin} ${input.network} ${script.scriptType}${script.sortKeys ? ' sorted-keys' : ''} wallet "${input.name}" (${wallet.id})`, null, { walletId: wallet.id });
  });
  return wallet;
}

/** How far a walk along one chain has got: addresses checked, and the last used index (-1: none yet). */
export interface ChainWalk {
  checked: number;
  lastUsed: number;
}

/** Addresses derived for walks but not stored (the gap past the last used one), so each is derived once a run. */
const derivedAddresses = new Map<string, string>();
const MAX_DERIVED = 100_000;

/**
 * The highest index of a branch the desk has shown, before the address it gives next (-1: none):
 * it stores each used address and the next one, and the next one is the first of the gap. Walked
 * past with the gap, and told to a watching service (registration, window), even where the chain
 * shows them unused: emptied before a pruned node's first block they look so, and a coin past them
 * would be missed.
 */
export function shownIndex(store: Pick<CoordinatorStore, 'addresses'>, walletId: string, change: boolean): number {
  return Math.max(-1, store.addresses(walletId).reduce((n, a) => (a.change === change ? Math.max(n, a.index) : n), -1) - 1);
}

/** How long a walk waits for the service to read the chain again for addresses it now watches, before it says so instead. */
const WINDOW_WAIT_MS = 20_000;

/**
 * A watching service's scan of the wallet (watch mode), or null when it answers any address (the
 * full index, 409) or is not the service to ask (an Ether coin, a service without the window in its
 * status).
 */
async function watchedStatus(deps: CoreDeps, w: WalletRow): Promise<WatchStatus | null> {
  if (isEvmCoin(w.coin)) return null;
  try {
    const s = await deps.api.watchStatus(w.coin, w.id);
    return s.watched ? s : null;
  } catch (err) {
    // 409: the full index; 404: not served, or not registered (its address queries then say so in words).
    if (err instanceof ApiClientError && (err.status === 409 || err.status === 404)) return null;
    throw err;
  }
}

const watchedOf = (s: WatchStatus, change: boolean): number => (change ? s.watched?.change : s.watched?.receive) ?? 0;

/**
 * Waits while the watching service reads the chain for the wallet, so that an address the walk
 * then finds unused is unused on the chain (a scan still under way answers "no history" for an
 * address it has not reached yet). Refused in words when the scan stopped, or is still reading
 * after a while (the next question walks again).
 */
async function caughtUp(deps: CoreDeps, w: WalletRow, first: WatchStatus, what: string): Promise<WatchStatus> {
  let s = first;
  const until = Date.now() + WINDOW_WAIT_MS;
  while (!watchScanComplete(s)) {
    if (s.state === 'error') throw new CoordinatorError('service_refused', `the service's scan of "${w.name}" stopped: ${s.error ?? 'it gave no reason'}`);
    if (Date.now() > until) {
      const at = s.scanned_height === null || s.tip_height === null ? '' : ` (block ${s.scanned_height.toLocaleString('en-US')} of ${s.tip_height.toLocaleString('en-US')})`;
      throw new CoordinatorError('service_scanning', `the service is reading the chain for ${what} of "${w.name}"${at}: which of them are used is known once it has; ask again in a moment`);
    }
    await new Promise((r) => setTimeout(r, 250));
    s = await deps.api.watchStatus(w.coin, w.id);
  }
  return s;
}

/**
 * Asks the watching service to watch the branch up to `shown` and the gap past it (POST .../window),
 * and waits while it reads the chain again for the addresses that adds. Refused in words when the
 * service does not follow. Returns the new window.
 */
async function extendWindow(deps: CoreDeps, w: WalletRow, change: boolean, shown: number, need: number): Promise<number> {
  const branch = change ? 'change' : 'receive';
  const other = shownIndex(deps.store, w.id, !change);
  const s = await deps.api.watchWindow(w.coin, w.id, change ? { receive: other, change: shown } : { receive: shown, change: other });
  if (watchedOf(s, change) < need) {
    throw new CoordinatorError('service_refused', `the service watches ${branch} addresses 0 to ${watchedOf(s, change) - 1} of "${w.name}" only, and did not watch further when asked: addresses from ${watchedOf(s, change)} on cannot be checked`);
  }
  return watchedOf(await caughtUp(deps, w, s, `${branch} addresses up to ${need - 1}`), change);
}

/**
 * Walks one chain (receive or change), asking the service for the history of addresses derived
 * here a batch at a time, until GAP_LIMIT addresses past the last used one (or `reserved`, or
 * shown before: stored) have no history (BIP44's gap, BDK's stop_gap). A watching service holds
 * only a window of the wallet's addresses (the same gap past the highest used or shown): the walk
 * never asks past it, asks the service to extend it first where it must, and trusts no answer
 * before the service has read the wallet's blocks to the tip (caughtUp). Only the addresses
 * up to the first unused one after the last used are then stored, each cross-checked with the
 * service first: the gap beyond costs one history request a batch, not one check an address.
 * `onBatch` hears after each batch; returns the last used index (-1: none).
 */
export async function walkChain(deps: CoreDeps, walletId: string, change: boolean, reserved: ReadonlySet<string> = new Set(), onBatch?: (walk: ChainWalk) => void): Promise<number> {
  const w = requireWallet(deps, walletId);
  const params = walletParams(w);
  const xpubs = deps.store.cosigners(walletId).map((c) => c.xpub);
  const stored = new Map(deps.store.addresses(walletId).filter((a) => a.change === change).map((a) => [a.index, a.address]));
  const addressAt = async (i: number): Promise<string> => {
    const known = stored.get(i) ?? derivedAddresses.get(`${walletId}/${change ? 1 : 0}/${i}`);
    if (known !== undefined) return known;
    // Deriving is CPU work on the desk's only thread: let other requests through between addresses.
    await new Promise<void>((r) => setImmediate(r));
    const address = walletAddress(params, w, xpubs, change, i).address;
    if (derivedAddresses.size >= MAX_DERIVED) derivedAddresses.clear();
    derivedAddresses.set(`${walletId}/${change ? 1 : 0}/${i}`, address);
    return address;
  };
  const shown = shownIndex(deps.store, walletId, change);
  // Under watch mode the service's answers are trusted only once it has read the wallet's blocks.
  const status = await watchedStatus(deps, w);
  let window = status && watchedOf(await caughtUp(deps, w, status, `the ${change ? 'change' : 'receive'} addresses`), change);
  let lastUsed = -1;
  let checked = 0;
  while (checked < Math.max(lastUsed, shown) + 1 + GAP_LIMIT) {
    const end = Math.min(checked + GAP_LIMIT, Math.max(lastUsed, shown) + 1 + GAP_LIMIT);
    if (window !== null && end > window) window = await extendWindow(deps, w, change, Math.max(lastUsed, shown, end - 1 - GAP_LIMIT), end);
    const batch: { index: number; address: string }[] = [];
    for (let i = checked; i < end; i++) batch.push({ index: i, address: await addressAt(i) });
    const history = await deps.api.history(w.coin, batch.map((a) => a.address), { limit: 1000 }).catch((err: unknown) => {
      // A watching service that does not say its window (an older one) refuses addresses past it:
      // said in the desk's words, never its 404 text on the Receive card. A coin the service does not
      // serve at all is another 404: kept as it is, so the wallet's page says the coin is not served.
      if (err instanceof ApiClientError && err.status === 404 && window === null && !/not served/.test(err.message)) {
        throw new CoordinatorError('service_refused', `the service does not watch ${change ? 'change' : 'receive'} addresses ${checked} to ${end - 1} of "${w.name}", so whether they are used cannot be checked: on the treasurer's own node (watch mode) it answers only the addresses of wallets registered with it, up to the gap limit past the last used one`);
      }
      throw err;
    });
    const used = new Set([...history.txs.map((t) => t.address), ...reserved]);
    const usedHere = batch.filter((a) => used.has(a.address)).map((a) => a.index);
    if (usedHere.length > 0) lastUsed = Math.max(lastUsed, ...usedHere);
    checked = end;
    onBatch?.({ checked, lastUsed });
  }
  // Every used address and the next one, checked a gap-limit batch at a time.
  const upTo = lastUsed + 1;
  for (let from = 0; from <= upTo; from += GAP_LIMIT) {
    const missing = Array.from({ length: Math.min(GAP_LIMIT, upTo - from + 1) }, (_, k) => from + k).filter((i) => !stored.has(i));
    if (missing.length > 0) await ensureAddresses(deps, walletId, change, missing[0]!, missing.at(-1)! + 1);
  }
  return lastUsed;
}

/** The first address of a chain after the last one that has any history or is `reserved`. */
async function nextUnusedAddress(deps: CoreDeps, walletId: string, change: boolean, reserved: ReadonlySet<string> = new Set()): Promise<AddressRow> {
  const lastUsed = await walkChain(deps, walletId, change, reserved);
  const next = deps.store.addresses(walletId).find((a) => a.change === change && a.index === lastUsed + 1);
  if (!next) throw new CoordinatorError('internal', `${change ? 'change' : 'receive'} address ${lastUsed + 1} was not derived`);
  return next;
}

/** The next receive address to hand out. */
export function nextReceiveAddress(deps: CoreDeps, walletId: string): Promise<AddressRow> {
  return nextUnusedAddress(deps, walletId, false);
}

/**
 * A change address no transaction has touched and no payment in flight pays to, so change never
 * lands on an address that was handed out to a payer or links two payments.
 */
export function nextChangeAddress(deps: CoreDeps, walletId: string, inFlight: ReadonlySet<string>): Promise<AddressRow> {
  return nextUnusedAddress(deps, walletId, true, inFlight);
}
