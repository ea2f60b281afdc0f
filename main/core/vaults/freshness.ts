// Keeping a vault's coins fresh (issue 27, Liana's idea): a coin's recovery path opens a fixed number
// of blocks after the block that confirmed it; from then on the recovery keys alone can move it. The
// desk warns ahead of time (a window in days, default 30, a desk setting) and offers one "refresh"
// payment to the vault itself on the primary path, whose confirmation restarts the coins' clocks.
// Which coins are due is decided here, pure, from the openings vaults.ts computes.
import { plural } from '../../../shared/api/words.ts';
import { MAX_RELATIVE_BLOCKS } from '../../../shared/coins/miniscript.ts';
import { CoordinatorError } from '../errors.ts';
import { outpointKey } from '../payments/outpoints.ts';
import type { CoordinatorStore } from '../store/store.ts';
import type { VaultCoinOpening, VaultPathView } from './vaults.ts';

export const VAULT_WARNING_SETTING = 'vault_warning_days';
export const DEFAULT_WARNING_DAYS = 30;
/** A window longer than BIP68's longest lock on any coin (65535 blocks at 10 minutes: 455 days) says nothing more. */
export const MAX_WARNING_DAYS = 455;

/** The warning window in days: the saved setting, or 30 (a stored value out of range counts as unset). */
export function vaultWarningDays(store: Pick<CoordinatorStore, 'setting'>): number {
  const raw = store.setting(VAULT_WARNING_SETTING);
  const days = raw === null ? NaN : Number(raw);
  return Number.isInteger(days) && days >= 1 && days <= MAX_WARNING_DAYS ? days : DEFAULT_WARNING_DAYS;
}

/** A coin whose first recovery path opens within the window (or is open already). */
export interface DueCoin {
  opening: VaultCoinOpening;
  /** The path opened before today: the recovery keys can move it now. */
  open: boolean;
  /** The unsent payment (a refresh, or any other) that already spends it; null: none does. */
  spentBy: string | null;
}

/**
 * The coins to refresh: for each coin its soonest recovery path, flagged when it opens within
 * `days` days counted in the coin's blocks (exactly `days` days away is within), or is open already.
 * An unconfirmed coin is never flagged: its clock starts when it confirms, and a refresh cannot
 * restart a clock that has not started.
 */
export function coinsDue(params: { blockSeconds: number }, openings: readonly VaultCoinOpening[], days: number, spentBy: ReadonlyMap<string, string> = new Map()): DueCoin[] {
  const window = Math.floor((days * 86_400) / params.blockSeconds);
  const soonest = new Map<string, VaultCoinOpening>();
  for (const o of openings) {
    const key = outpointKey(o);
    const seen = soonest.get(key);
    if (!seen || o.path.blocks < seen.path.blocks) soonest.set(key, o);
  }
  return [...soonest.values()].filter((o) => o.opensAtBlock !== null && o.blocksLeft <= window).map((o) => ({ opening: o, open: o.blocksLeft === 0, spentBy: spentBy.get(outpointKey(o)) ?? null }));
}

const they = (one: boolean) => (one ? { it: 'it', its: 'its', coin: 'this coin' } : { it: 'them', its: 'their', coin: 'these coins' });

/**
 * The warning: its headline (the wallets list shows it) and its whole words; null when no coin is
 * due. Coins an unsent payment already spends are said apart: nothing more to do but sign and send it.
 */
export function dueWords(due: readonly DueCoin[], days: number, primary: Pick<VaultPathView, 'threshold' | 'keys'>): { headline: string; words: string } | null {
  if (due.length === 0) return null;
  const todo = due.filter((d) => d.spentBy === null);
  const sent = due.length - todo.length;
  const payments = new Set(due.map((d) => d.spentBy).filter((p) => p !== null)).size;
  const one = due.length === 1;
  const open = due.filter((d) => d.open).length;
  const keys = [...new Set(due.map((d) => `${d.opening.path.threshold} of ${d.opening.path.keys.join(', ')}`))].join(' or ');
  const head = `${due.length} coin${one ? "'s" : "s'"} recovery path opens within ${plural(days, 'day')}`;
  const headline =
    todo.length === due.length ? `${head}: refresh ${they(one).it}`
    : todo.length === 0 ? `${head}: ${payments === 1 ? 'a payment awaiting signatures spends' : 'payments awaiting signatures spend'} ${they(one).it}`
    : `${head}: refresh ${todo.length} (${sent} already in a payment awaiting signatures)`;
  const already = open === 0 ? '' : ` ${open === due.length ? (one ? 'It is' : 'They are') : `${open} of them ${open === 1 ? 'is' : 'are'}`} open already.`;
  const then = todo.length === 0 ? ` Sign and send ${payments === 1 ? 'that payment' : 'those payments'} before then; once ${payments === 1 ? 'it confirms' : 'they confirm'} ${they(one).its} clock starts again.` : ` A refresh pays ${they(todo.length === 1).it} back to the vault on the main path, which starts ${they(todo.length === 1).its} clock again.`;
  // A decaying multisig's later path holds the same keys, fewer of them: said so, not as other keys.
  const decays = due.every((d) => d.opening.path.keys.every((k) => primary.keys.includes(k)));
  const who = decays ? `${keys} can move ${they(one).coin}, where ${primary.threshold} sign now` : `the recovery keys alone (${keys}) can move ${they(one).coin}, without the co-signers`;
  return { headline, words: `${headline}.${already} After that date ${who}.${then}` };
}

/** The window as typed in Settings: a whole number of days, 1 to 455, or refused in words at the field. */
export function typedWarningDays(typed: string): number {
  const text = typed.trim();
  if (!/^[0-9]+$/.test(text)) {
    throw new CoordinatorError('bad_setting', text === '' ? 'type how many days ahead to warn, like 30' : `type the days as a whole number, like 30; "${text}" is not one`, { field: 'days' });
  }
  const days = Number(text);
  if (days < 1 || days > MAX_WARNING_DAYS) {
    throw new CoordinatorError('bad_setting', `warn 1 to ${MAX_WARNING_DAYS} days ahead (${MAX_WARNING_DAYS} days is the longest relative timelock, ${plural(MAX_RELATIVE_BLOCKS, 'block')}, on bitcoin); ${days} is out of that range`, { field: 'days' });
  }
  return days;
}
