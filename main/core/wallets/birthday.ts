// A wallet's birthday: the first block that can concern it, so a service that watches wallets
// (issue 25, watch mode) reads the chain from there and not from genesis. A new wallet's is the
// chain's tip when it is made; an imported one's comes from its file where the format carries one
// (Specter's blockheight), else from a date the treasurer gives (mapped to a height by the node's
// block times: GET /blocks/{coin}/height_at), or "from the beginning". "Rescan from…" asks again.
import { ApiClientError, type ApiClient } from '../../../shared/api/client.ts';
import { plural } from '../../../shared/api/words.ts';
import { isEvmCoin } from '../../../shared/coins/coin-table.ts';
import type { WatchStatus } from '../../../shared/api/schemas.ts';
import type { CoordinatorApi } from '../api.ts';
import { CoordinatorError } from '../errors.ts';
import type { BirthdaySource, CoordinatorStore, CosignerRow, RescanRow, WalletRow } from '../store/store.ts';
import { createWallet, shownIndex, type NewWallet } from './wallets.ts';
import { createVault, type NewVault } from '../vaults/vaults.ts';
import { walletDescriptor } from './script.ts';
import { watchScanComplete } from './figures-final.ts';

/** How the birthday is given: the tip now, a height from a file, a day, or the beginning. */
export type Birthday = { source: 'tip' } | { source: 'file'; height: number } | { source: 'date'; date: string } | { source: 'genesis' };

export interface ResolvedBirthday {
  height: number | null;
  source: BirthdaySource;
  /** For the audit log: the birthday in words. */
  words: string;
}

const UTC_DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

/**
 * A date's birthday is asked for two hours earlier: a block mined after midnight may carry an
 * earlier timestamp, and median time past lags real time (Bitcoin Core's TIMESTAMP_WINDOW).
 */
export const BIRTHDAY_WINDOW_SECONDS = 2 * 60 * 60;

/**
 * And 10 blocks earlier: median time past is the median of the last 11 block times, so it lags a
 * block's own time by about 5 blocks however far apart blocks are; a block dated after the moment
 * has, 10 blocks later, a median time past after it too.
 */
export const MEDIAN_TIME_SPAN_BLOCKS = 10;

/** The start (00:00 UTC) of a day written 2026-01-31, in unix seconds; null for no calendar day. */
export function dayStart(date: string): number | null {
  const m = UTC_DAY.exec(date.trim());
  if (!m) return null;
  const ms = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  const d = new Date(ms);
  // Date.UTC rolls 2026-02-30 over to March: such a day is no day.
  if (d.getUTCFullYear() !== Number(m[1]) || d.getUTCMonth() !== Number(m[2]) - 1 || d.getUTCDate() !== Number(m[3])) return null;
  return ms / 1000;
}

/** The service's words for a refusal, without the client's prefix. */
const serviceWords = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/**
 * The birthday as a height, asking the service where needed: the coin's tip (its /status), or the
 * first block at or after a day (height_at). Refusals name the form field ('birthday_date').
 */
export async function resolveBirthday(api: Pick<ApiClient, 'status' | 'heightAt'>, coin: string, birthday: Birthday, now: () => number = Date.now): Promise<ResolvedBirthday> {
  switch (birthday.source) {
    case 'genesis':
      return { height: 0, source: 'genesis', words: 'the beginning of the chain' };
    case 'file':
      return { height: birthday.height, source: 'file', words: `block ${birthday.height}, from the set-up file` };
    case 'tip': {
      // A new wallet: nothing before the tip can pay it. A service that does not serve the coin
      // yet knows no tip: the birthday stays unknown (read from the beginning) and is said so.
      const status = await api.status().catch(() => null);
      const tip = status?.coins.find((c) => c.coin === coin)?.tip_height ?? null;
      return tip === null ? { height: null, source: 'tip', words: `the beginning of the chain (no ${coin} chain told its tip)` } : { height: tip, source: 'tip', words: `block ${tip}, the tip when it was made` };
    }
    case 'date': {
      const at = dayStart(birthday.date);
      if (at === null) throw new CoordinatorError('bad_input', 'a date looks like 2026-01-31', { field: 'birthday_date' });
      if (at > now() / 1000) throw new CoordinatorError('bad_input', `${birthday.date} is in the future: give the day the wallet was first used, or today for a wallet never used`, { field: 'birthday_date' });
      try {
        const answer = await api.heightAt(coin, Math.max(at - BIRTHDAY_WINDOW_SECONDS, 1_231_006_505));
        const height = Math.max(0, answer.height - MEDIAN_TIME_SPAN_BLOCKS);
        return { height, source: 'date', words: `block ${height}, before the first block of ${birthday.date} (UTC)` };
      } catch (err) {
        if (err instanceof ApiClientError && err.status === 404) throw new CoordinatorError('chain_missing', `no ${coin} chain is connected, so ${birthday.date} cannot be turned into a block: connect one in Settings, or choose "from the beginning"`, { field: 'birthday_date' });
        if (err instanceof ApiClientError && err.status === 501) throw new CoordinatorError('chain_refused', `${serviceWords(err)}; choose "from the beginning" instead`, { field: 'birthday_date' });
        throw new CoordinatorError('service_unreachable', `the service could not turn ${birthday.date} into a block (${serviceWords(err)})`, { field: 'birthday_date' });
      }
    }
  }
}

/** Unused addresses the service derives past the last used one, per branch (as peers use). */
export const WATCH_GAP_LIMIT = 20;

/**
 * What a watching service needs to follow the wallet (the body of PUT /watch/{coin}/{wallet_id}):
 * its descriptor for receive and change, its birthday, the gap limit, and the highest index of
 * each branch the desk has shown (wallets.ts shownIndex): the service watches the gap past it.
 */
export function watchRegistration(
  wallet: WalletRow,
  cosigners: readonly CosignerRow[],
  gapLimit: number,
  shown: { receive: number; change: number } = { receive: -1, change: -1 },
): { descriptors: string[]; birthday_height: number; gap_limit: number; shown: { receive: number; change: number } } {
  return {
    shown,
    // A vault is watched by its own descriptor: its multisig reading would watch other scripts.
    descriptors: [walletDescriptor(wallet, [...cosigners].sort((a, b) => a.position - b.position))],
    birthday_height: wallet.birthdayHeight ?? 0,
    gap_limit: gapLimit,
  };
}

/** The service's watch API as the desk uses it. */
export type WatchApi = Pick<ApiClient, 'watchRegister' | 'watchStatus' | 'watchRescan'>;

export interface BirthdayDeps {
  store: CoordinatorStore;
  /** Core's slice of the API, the tip and block times a birthday needs, and the watch API. */
  api: CoordinatorApi & Pick<ApiClient, 'status' | 'heightAt'> & WatchApi;
  actor: string;
}

/** Makes the wallet with its birthday resolved to a height, then registers that birthday. */
export async function createWalletWithBirthday(deps: BirthdayDeps, input: NewWallet, birthday: Birthday): Promise<WalletRow> {
  return madeWithBirthday(deps, input, birthday, createWallet);
}

/** A vault with recovery paths (vaults.ts), made, dated and registered as any wallet. */
export async function createVaultWithBirthday(deps: BirthdayDeps, input: NewVault, birthday: Birthday): Promise<WalletRow> {
  return madeWithBirthday(deps, input, birthday, createVault);
}

async function madeWithBirthday<I extends { coin: string }>(
  deps: BirthdayDeps,
  input: I,
  birthday: Birthday,
  make: (deps: BirthdayDeps, input: I & { birthday: { height: number | null; source: BirthdaySource } }) => Promise<WalletRow>,
): Promise<WalletRow> {
  const resolved = await resolveBirthday(deps.api, input.coin, birthday);
  const wallet = await make(deps, { ...input, birthday: { height: resolved.height, source: resolved.source } });
  deps.store.audit(deps.actor, 'wallet.birthday', `"${wallet.name}" is read from ${resolved.words}`, null, { walletId: wallet.id });
  await registerBirthday(deps, wallet);
  return wallet;
}

/** A 409 from the watch API: the coin runs the full index, which serves every address already. */
const fullIndex = (err: unknown) => err instanceof ApiClientError && err.status === 409;

/**
 * THE place a wallet is registered with the service: PUT /watch/{coin}/{wallet_id} with its
 * descriptor, birthday and gap limit. The service (re)scans from the birthday on every PUT.
 * Resolves to false when the coin runs the full index (409: nothing to register, every address is
 * served) or is not served yet (404). Any other refusal is said in words.
 */
export async function registerBirthday(deps: { store: CoordinatorStore; api: WatchApi }, wallet: WalletRow): Promise<boolean> {
  try {
    const shown = { receive: shownIndex(deps.store, wallet.id, false), change: shownIndex(deps.store, wallet.id, true) };
    await deps.api.watchRegister(wallet.coin, wallet.id, watchRegistration(wallet, deps.store.cosigners(wallet.id), WATCH_GAP_LIMIT, shown));
    return true;
  } catch (err) {
    if (fullIndex(err)) return false;
    // 404: no chain serves the coin yet; registerUnwatchedWallets registers it once one does.
    if (err instanceof ApiClientError && err.status === 404) return false;
    throw new CoordinatorError('service_refused', `the service did not take "${wallet.name}" to watch (${serviceWords(err)}); its balance cannot be read until it does`);
  }
}

/**
 * After the embedded service (re)starts: registers every UTXO wallet of a watched coin that the
 * service does not know (GET answers 404). Wallets it knows are left alone, since a PUT would scan
 * them again from their birthdays. Problems are returned in words, never thrown: a start goes on.
 */
export async function registerUnwatchedWallets(deps: { store: CoordinatorStore; api: WatchApi }): Promise<{ registered: string[]; problems: string[] }> {
  const registered: string[] = [];
  const problems: string[] = [];
  for (const w of deps.store.wallets()) {
    if (isEvmCoin(w.coin)) continue;
    try {
      await deps.api.watchStatus(w.coin, w.id);
      continue;
    } catch (err) {
      // 409: full index; 404: a coin the service does not serve, or a wallet it does not watch.
      if (fullIndex(err)) continue;
      if (!(err instanceof ApiClientError && err.status === 404)) {
        problems.push(`"${w.name}": the service could not say whether it watches it (${serviceWords(err)})`);
        continue;
      }
    }
    try {
      if (await registerBirthday(deps, w)) registered.push(w.id);
    } catch (err) {
      problems.push(serviceWords(err));
    }
  }
  return { registered, problems };
}

/**
 * What the desk does once the embedded service has (re)started: registers the wallets it does not
 * watch, and audits what was registered and what was refused (a start never fails for it).
 */
export async function watchAfterStart(deps: { store: CoordinatorStore; api: WatchApi; actor: string }): Promise<string[]> {
  const { registered, problems } = await registerUnwatchedWallets(deps);
  for (const id of registered) deps.store.audit(deps.actor, 'wallet.watch_registered', `"${deps.store.wallet(id)?.name ?? id}" is registered with the service again, which reads it from its birthday`, null, { walletId: id });
  for (const p of problems) deps.store.audit(deps.actor, 'wallet.watch_refused', p);
  return problems;
}

/**
 * "Rescan from…": records the request, audits it, and asks a watching service to read the wallet's
 * blocks again from there (POST /watch/{coin}/{wallet_id}/rescan; a 409 means the full index,
 * where there is nothing to read again).
 */
export async function requestRescan(deps: BirthdayDeps, wallet: WalletRow, from: Birthday): Promise<RescanRow> {
  const resolved = await resolveBirthday(deps.api, wallet.coin, from);
  const height = resolved.height ?? 0;
  try {
    await deps.api.watchRescan(wallet.coin, wallet.id, height);
  } catch (err) {
    if (!fullIndex(err)) throw new CoordinatorError('service_refused', `the service did not start the rescan of "${wallet.name}" (${serviceWords(err)})`);
  }
  return deps.store.transaction(() => {
    const row = deps.store.insertRescan(wallet.id, height, deps.actor);
    deps.store.audit(deps.actor, 'wallet.rescan_requested', `rescan of "${wallet.name}" from ${resolved.words}`, null, { walletId: wallet.id });
    return row;
  });
}

/** A watched wallet's scan in words, for its page. */
export interface WatchWords {
  /** unregistered: the service watches the coin but not this wallet (its figures are refused). */
  state: WatchStatus['state'] | 'unregistered';
  words: string;
  /** A pruned node's limit: history before it is not available. */
  historyLimit: string | null;
  /** The scan has read the wallet's blocks to the node's tip (figures-final.ts). */
  complete: boolean;
}

const n = (x: number) => x.toLocaleString('en-US');

/** The service's scan state said in words (pure: the page shows these as they are). */
export function watchWords(s: WatchStatus): WatchWords {
  // A scan under way reads from its own first block (a rescan's, not the birthday).
  const from = s.state === 'scanning' ? (s.scan_from ?? s.birthday_height ?? 0) : (s.birthday_height ?? 0);
  const noFilters = s.filters ? '' : '; the node has no block filters (-blockfilterindex=1), so every block from the birthday is read';
  if (s.state === 'error') return { state: s.state, words: `The scan stopped: ${s.error ?? 'the service gave no reason'}`, historyLimit: null, complete: false };
  if (s.state === 'ready') return { state: s.state, words: `Watched from block ${from}: read to block ${s.scanned_height ?? from}, the node's tip (${plural(s.blocks_fetched, 'block')} fetched)${noFilters}`, historyLimit: historyLimitWords(s), complete: watchScanComplete(s) };
  const total = s.tip_height === null ? null : Math.max(0, s.tip_height - from + 1);
  // How far the index holds the chain, not how many blocks were looked at: a scan that starts over
  // (more addresses watched, a rescan) looks at blocks again, and the count ran past the chain.
  const read = s.scanned_height === null ? 0 : Math.max(0, Math.min(total ?? Infinity, s.scanned_height - from + 1));
  const progress = total === null ? `read to block ${s.scanned_height ?? from}` : `${n(read)} of ${plural(total, 'block')} read`;
  const tipUnknown = total === null ? " (the node has not told its tip yet)" : '';
  // Until the scan is checked against the node's UTXO set, nothing is claimed complete.
  return { state: s.state, words: `Scanning from block ${from}: ${progress}, ${n(s.blocks_matched)} matched${tipUnknown}${noFilters}`, historyLimit: null, complete: false };
}

/**
 * What a pruned node's finished scan proves, no more: the unspent outputs of the addresses watched are
 * complete (those from before its first block come from its UTXO set), the history starts at its
 * first block. null: nothing is missing.
 */
function historyLimitWords(s: WatchStatus): string | null {
  if (s.history_from === null) return null;
  const range = (count: number, branch: string) => (count === 0 ? `no ${branch} address` : `${branch} addresses 0 to ${count - 1}`);
  const watched = s.watched ? ` for ${range(s.watched.receive, 'receive')} and ${range(s.watched.change, 'change')}` : '';
  return `unspent outputs complete${watched}; history from block ${s.history_from} (the node is pruned: what was received and spent before it is not listed)`;
}

/**
 * The wallet's scan as its page shows it; null when the coin runs the full index (409) or is not
 * served: there is no scan to speak of.
 */
export async function walletWatch(api: WatchApi, wallet: WalletRow): Promise<WatchWords | null> {
  if (isEvmCoin(wallet.coin)) return null;
  try {
    return watchWords(await api.watchStatus(wallet.coin, wallet.id));
  } catch (err) {
    if (fullIndex(err)) return null;
    if (err instanceof ApiClientError && err.status === 404 && /not served/.test(err.message)) return null;
    if (err instanceof ApiClientError && err.status === 404) return { state: 'unregistered', words: 'The service does not watch this wallet yet: it is registered when the desk next starts its service, or by a rescan', historyLimit: null, complete: false };
    return { state: 'error', words: `The service did not say how far it has read (${serviceWords(err)})`, historyLimit: null, complete: false };
  }
}
