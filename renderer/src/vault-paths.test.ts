import { describe, expect, it } from 'vitest';
import type { VaultCoinView, VaultView } from '../../main/bridge/contract.ts';
import { coinOpening, pathOpenings } from './vault-paths.ts';

const unit = { ticker: 'LTC', decimals: 8, smallest: 'litoshi' };
const signing = (blocks: number) => ({ threshold: blocks === 0 ? 2 : 1, keys: [], blocks, recovery: blocks === 0 ? 0 : 1, name: blocks === 0 ? 'main path' : 'recovery path', words: '' });
const path = (blocks: number) => ({ threshold: blocks === 0 ? 2 : 1, keys: blocks === 0 ? ['Alice', 'Bob', 'Carol'] : ['Dave', 'Erin'], blocks, words: '', signing: signing(blocks) });
const coin = (txid: string, opens: number | null, left: number): VaultCoinView => ({ txid, vout: 0, amount: 100_000_000n, path: '', path_blocks: 576, opens_at_block: opens, blocks_left: left, opens_around: opens === null ? null : '2026-11-30T08:00:00.000Z' });
const vault = (coins: VaultCoinView[]): VaultView => ({ paths: [path(0), path(576)], coins, unit, coins_unread: null, refresh: { days: 30, due: [], warning: null, headline: null } });
const open = coin('a'.repeat(64), 700, 0);
const closed = coin('b'.repeat(64), 900, 200);
const unconfirmed = coin('c'.repeat(64), null, 576);

describe("a vault's paths on the propose form (issue 32)", () => {
  it('offers the main path always, and a recovery path only when it is open for every coin the payment may spend', () => {
    const [main, recovery] = pathOpenings(vault([open, closed]), null);
    expect(main).toMatchObject({ open: true, why: null });
    expect(recovery).toMatchObject({ open: false, why: 'Not open yet for the vault\'s 2 coins: it opens at block 900, about 2026-11-30 08:00 UTC. It is open for 1 coin: choose only that one under "Choose the outputs to spend" to use it now.' });
    expect(recovery!.coins.map(coinOpening)).toEqual(['open: spendable on this path from block 700 on', 'opens at block 900, about 2026-11-30 08:00 UTC (200 blocks from now)']);
    // Only the open coin picked: the path is offered.
    expect(pathOpenings(vault([open, closed]), [`${open.txid}:0`])[1]).toMatchObject({ open: true, why: null });
    expect(pathOpenings(vault([open, closed]), [`${closed.txid}:0`])[1]!.why).toBe('Not open yet for the 1 chosen coin: it opens at block 900, about 2026-11-30 08:00 UTC.');
  });

  it('names an unconfirmed coin as what it waits for, and a vault without coins', () => {
    expect(pathOpenings(vault([closed, unconfirmed]), null)[1]!.why).toBe("Not open yet for the vault's 2 coins: it opens not before cccccccc…cccccc:0 confirms.");
    expect(coinOpening(unconfirmed)).toBe('opens 576 blocks after the coin confirms (it is unconfirmed)');
    expect(pathOpenings(vault([]), null)[1]).toMatchObject({ open: false, why: 'The vault has no coin to spend on it yet.' });
  });
});
