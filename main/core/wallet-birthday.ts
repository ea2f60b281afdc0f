// A wallet's birthday: the first block that can concern it, so a service that watches wallets
// (issue 25, watch mode) reads the chain from there and not from genesis. A new wallet's is the
// chain's tip when it is made; an imported one's comes from its file where the format carries one
// (Specter's blockheight), else from a date the treasurer gives (mapped to a height by the node's
// block times: GET /blocks/{coin}/height_at), or "from the beginning". "Rescan from…" asks again.
import { formatMultisigDescriptor } from '../../shared/files/descriptor.ts';
import { ApiClientError, type ApiClient } from '../../shared/api/client.ts';
import type { CoordinatorApi } from './api.ts';
import { CoordinatorError } from './errors.ts';
import type { BirthdaySource, CoordinatorStore, CosignerRow, RescanRow, WalletRow } from './store/store.ts';
import { createWallet, type NewWallet } from './wallets.ts';

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

/**
 * What a watching service needs to follow the wallet (the body of PUT /watch/{coin}/{wallet_id}
 * once watch mode exists): its descriptor for receive and change, its birthday and the gap limit.
 */
export function watchRegistration(wallet: WalletRow, cosigners: readonly CosignerRow[], gapLimit: number): { descriptors: string[]; birthday_height: number; gap_limit: number } {
  return {
    descriptors: [formatMultisigDescriptor(wallet.m, cosigners, '/<0;1>/*', true, wallet)],
    birthday_height: wallet.birthdayHeight ?? 0,
    gap_limit: gapLimit,
  };
}

export interface BirthdayDeps {
  store: CoordinatorStore;
  /** Core's slice of the API, and the tip and block times a birthday needs. */
  api: CoordinatorApi & Pick<ApiClient, 'status' | 'heightAt'>;
  actor: string;
}

/** Makes the wallet with its birthday resolved to a height, then registers that birthday. */
export async function createWalletWithBirthday(deps: BirthdayDeps, input: NewWallet, birthday: Birthday): Promise<WalletRow> {
  const resolved = await resolveBirthday(deps.api, input.coin, birthday);
  const wallet = await createWallet(deps, { ...input, birthday: { height: resolved.height, source: resolved.source } });
  deps.store.audit(deps.actor, 'wallet.birthday', `"${wallet.name}" is read from ${resolved.words}`, null, { walletId: wallet.id });
  await registerBirthday(deps, wallet);
  return wallet;
}

/**
 * THE place a wallet's birthday is registered with the service. Watch mode (issue 25, part 1) is
 * not served yet, so nothing is sent; once it is, this PUTs watchRegistration() to
 * /watch/{coin}/{wallet_id}.
 */
export async function registerBirthday(_deps: BirthdayDeps, _wallet: WalletRow): Promise<void> {
  // Intentionally empty until the service offers PUT /watch/{coin}/{wallet_id}.
}

/**
 * "Rescan from…": records the request and audits it. The service is asked to rescan once watch
 * mode exists (POST /watch/{coin}/{wallet_id}/rescan, here).
 */
export async function requestRescan(deps: BirthdayDeps, wallet: WalletRow, from: Birthday): Promise<RescanRow> {
  const resolved = await resolveBirthday(deps.api, wallet.coin, from);
  const height = resolved.height ?? 0;
  return deps.store.transaction(() => {
    const row = deps.store.insertRescan(wallet.id, height, deps.actor);
    deps.store.audit(deps.actor, 'wallet.rescan_requested', `rescan of "${wallet.name}" from ${resolved.words}`, null, { walletId: wallet.id });
    return row;
  });
}
