import { describe, expect, it } from 'vitest';
import { coinsDue, dueWords, typedWarningDays, vaultWarningDays, VAULT_WARNING_SETTING } from './freshness.ts';
import { vaultCoinOpenings, type VaultPathView } from './vaults.ts';

// Litecoin: 576 blocks a day. A 2-of-3 now, the Lawyer after 90 days, the Heirs after 100.
const PER_DAY = 576;
const params = { blockSeconds: 150 };
const paths: VaultPathView[] = [
  { threshold: 2, keys: ['Alice', 'Bob', 'Carol'], blocks: 0, opens: 'now' },
  { threshold: 1, keys: ['Heirs'], blocks: 100 * PER_DAY, opens: '' },
  { threshold: 1, keys: ['Lawyer'], blocks: 90 * PER_DAY, opens: '' },
];
const TIP = 100_000;
/** A coin whose Lawyer path opens `left` blocks after the next block (its block counted back from TIP). */
const coin = (vout: number, left: number): { txid: string; vout: number; amount: bigint; height: number | null } => ({ txid: 'ab'.repeat(32), vout, amount: 1n, height: TIP - (90 * PER_DAY - left) + 1 });
const due = (coins: ReturnType<typeof coin>[], days = 30) => coinsDue(params, vaultCoinOpenings(params, paths, coins, TIP, 0), days);

describe('which coins of a vault to refresh', () => {
  it('flags a coin whose soonest recovery path opens in exactly the window, not one block later', () => {
    const [d] = due([coin(0, 30 * PER_DAY)]);
    expect(d).toMatchObject({ open: false, opening: { blocksLeft: 30 * PER_DAY, path: { keys: ['Lawyer'] } } });
    expect(due([coin(0, 30 * PER_DAY + 1)])).toEqual([]);
  });
  it('flags a coin whose path is open already, and says so', () => {
    const coins = [{ ...coin(0, 0), height: TIP - 95 * PER_DAY + 1 }, coin(1, 10)];
    const flagged = due(coins);
    expect(flagged.map((d) => [d.opening.vout, d.open])).toEqual([
      [0, true],
      [1, false],
    ]);
    expect(dueWords(flagged, 30, paths[0]!)?.words).toBe(
      "2 coins' recovery path opens within 30 days: refresh them. 1 of them is open already. After that date the recovery keys alone (1 of Lawyer) can move these coins, without the co-signers. A refresh pays them back to the vault on the main path, which starts their clock again.",
    );
  });
  it('never flags an unconfirmed coin (its clock has not started), even when its path is shorter than the window', () => {
    expect(due([{ ...coin(0, 0), height: null }], 113)).toEqual([]);
  });
  it('counts each coin once, by its soonest path; a wider window flags more', () => {
    const coins = [coin(0, 40 * PER_DAY), coin(1, 5)];
    expect(due(coins).map((d) => d.opening.vout)).toEqual([1]);
    expect(due(coins, 45).map((d) => d.opening.vout)).toEqual([0, 1]);
    expect(dueWords(due([coin(1, 5)]), 1, paths[0]!)).toEqual({
      headline: "1 coin's recovery path opens within 1 day: refresh it",
      words:
      "1 coin's recovery path opens within 1 day: refresh it. After that date the recovery keys alone (1 of Lawyer) can move this coin, without the co-signers. A refresh pays it back to the vault on the main path, which starts its clock again.",
    });
    expect(dueWords([], 30, paths[0]!)).toBeNull();
  });
  it('says apart the coins an unsent payment already spends: nothing to refresh, a payment to sign', () => {
    const coins = [coin(0, 10), coin(1, 20)];
    const openings = vaultCoinOpenings(params, paths, coins, TIP, 0);
    const x = 'ab'.repeat(32);
    const some = coinsDue(params, openings, 30, new Map([[`${x}:0`, 'p1']]));
    expect(some.map((d) => d.spentBy)).toEqual(['p1', null]);
    expect(dueWords(some, 30, paths[0]!)?.headline).toBe("2 coins' recovery path opens within 30 days: refresh 1 (1 already in a payment awaiting signatures)");
    const all = coinsDue(params, openings, 30, new Map([[`${x}:0`, 'p1'], [`${x}:1`, 'p1']]));
    expect(dueWords(all, 30, paths[0]!)?.words).toBe(
      "2 coins' recovery path opens within 30 days: a payment awaiting signatures spends them. After that date the recovery keys alone (1 of Lawyer) can move these coins, without the co-signers. Sign and send that payment before then; once it confirms their clock starts again.",
    );
  });
  it("says a decaying multisig's later path is fewer of the same keys, not other keys", () => {
    const decaying: VaultPathView[] = [paths[0]!, { threshold: 1, keys: ['Alice', 'Bob', 'Carol'], blocks: 90 * PER_DAY, opens: '' }];
    const flagged = coinsDue(params, vaultCoinOpenings(params, decaying, [coin(0, 10)], TIP, 0), 30);
    expect(dueWords(flagged, 30, decaying[0]!)?.words).toBe(
      "1 coin's recovery path opens within 30 days: refresh it. After that date 1 of Alice, Bob, Carol can move this coin, where 2 sign now. A refresh pays it back to the vault on the main path, which starts its clock again.",
    );
  });
  it('reads the window from the settings: 30 days unless a whole number of days in range was saved', () => {
    const store = (v: string | null) => ({ setting: (k: string) => (k === VAULT_WARNING_SETTING ? v : null) });
    expect(vaultWarningDays(store(null))).toBe(30);
    expect(vaultWarningDays(store('120'))).toBe(120);
    for (const bad of ['0', '-5', '1.5', 'x', '456']) expect(vaultWarningDays(store(bad))).toBe(30);
  });
  it('takes the window as typed in Settings, or refuses it in words', () => {
    expect(typedWarningDays(' 120 ')).toBe(120);
    expect(typedWarningDays('455')).toBe(455);
    expect(() => typedWarningDays('')).toThrow('type how many days ahead to warn, like 30');
    expect(() => typedWarningDays('30 days')).toThrow('type the days as a whole number, like 30; "30 days" is not one');
    expect(() => typedWarningDays('0')).toThrow(/warn 1 to 455 days ahead .*; 0 is out of that range/);
    expect(() => typedWarningDays('456')).toThrow(/456 is out of that range/);
    expect(() => typedWarningDays('456')).toThrow('455 days is the longest relative timelock, 65,535 blocks, on bitcoin');
  });
});
