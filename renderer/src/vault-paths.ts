// Which of a vault's paths a payment may be signed on, for the coins it may spend (issue 32), pure:
// a recovery path opens for each coin at its own block (the coin's block + the path's delay), so it is
// offered only when open for every such coin; otherwise why not, naming the block and an estimated date.
import type { VaultCoinView, VaultPathView, VaultView } from '../../main/bridge/contract.ts';
import { plural } from '../../shared/api/words.ts';
import { shortId } from './format.ts';

const outpointText = (c: Pick<VaultCoinView, 'txid' | 'vout'>): string => `${c.txid}:${c.vout}`;
export const outpointShort = (c: Pick<VaultCoinView, 'txid' | 'vout'>): string => `${shortId(c.txid)}:${c.vout}`;

/** A path's state for the coins the payment may spend: open (offered), or why not, coin by coin. */
export interface PathOpening {
  path: VaultPathView;
  open: boolean;
  /** Why it is not offered, in words; null when open. */
  why: string | null;
  /** The path's opening for each coin considered (none for the main path). */
  coins: VaultCoinView[];
}

const at = (n: number) => `block ${n.toLocaleString('en-US')}`;
const around = (iso: string | null) => (iso === null ? '' : `${iso.slice(0, 16).replace('T', ' ')} UTC`);
const coinOpen = (c: VaultCoinView) => c.opens_at_block !== null && c.blocks_left === 0;

/** When `c`'s path opens, in words: "open: spendable on this path from block 720 on", "opens at block 720, about 2026-11-30 08:00 UTC (575 blocks from now)". */
export function coinOpening(c: VaultCoinView): string {
  if (c.opens_at_block === null) return `opens ${plural(c.blocks_left, 'block')} after the coin confirms (it is unconfirmed)`;
  if (c.blocks_left === 0) return `open: spendable on this path from ${at(c.opens_at_block)} on`;
  return `opens at ${at(c.opens_at_block)}, about ${around(c.opens_around)} (${plural(c.blocks_left, 'block')} from now)`;
}

/** Each path of the vault for the coins the payment may spend (`picked`: the outpoints chosen by hand, null or empty: any). */
export function pathOpenings(v: VaultView, picked: readonly string[] | null): PathOpening[] {
  const chosen = picked && picked.length > 0 ? new Set(picked) : null;
  return v.paths.map((path) => {
    if (path.blocks === 0) return { path, open: true, why: null, coins: [] };
    const coins = v.coins.filter((c) => c.path_blocks === path.blocks && (chosen === null || chosen.has(outpointText(c))));
    const closed = coins.filter((c) => !coinOpen(c));
    if (coins.length === 0) return { path, open: false, why: 'The vault has no coin to spend on it yet.', coins };
    if (closed.length === 0) return { path, open: true, why: null, coins };
    const last = closed.reduce((a, b) => (b.opens_at_block === null || (a.opens_at_block !== null && b.opens_at_block > a.opens_at_block) ? b : a));
    const when = last.opens_at_block === null ? `not before ${outpointShort(last)} confirms` : `at ${at(last.opens_at_block)}, about ${around(last.opens_around)}`;
    const openFor = coins.length - closed.length;
    const some = openFor > 0 ? ` It is open for ${plural(openFor, 'coin')}: choose only ${openFor === 1 ? 'that one' : 'those'} under "Choose the outputs to spend" to use it now.` : '';
    const which = chosen === null ? `the vault's ${plural(coins.length, 'coin')}` : `the ${plural(coins.length, 'chosen coin')}`;
    return { path, open: false, why: `Not open yet for ${which}: it opens ${when}.${some}`, coins };
  });
}

