// The hostile-service bench (issue 31, part 2) in CI, on litecoind -regtest with the embedded
// service: every spend kind (payment, batch of 50, bump, cancel, CPFP, vault primary and recovery
// paths, refresh) and the co-signer's own check of each kind's signing request, one field of one
// answer (or of the request file) changed at a time. Every outcome must be "refused" (in words) or
// "identical" (the hashes the co-signer signs, what is stored and shown, and the PSBT byte for byte
// the honest run's). The table is printed; `npm run bench -- --hostile [--full]` prints it alone;
// COUNTERSIGN_HOSTILE_FULL=1 runs the larger set here.
//
// KNOWN holds the "other" rows still expected, each with why. It is explicit and small: a row that
// turns (its branch landed) fails the test as stale until it is taken off the list.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostileTable, startHostileBench, type HostileBench, type MutationResult } from '../../../dev/desk-testing/hostile-service.ts';

interface Known {
  kind: RegExp;
  field: RegExp;
  why: string;
  /** Only `--full` tries the values that show it. */
  fullOnly?: true;
}

const FULL = process.env.COUNTERSIGN_HOSTILE_FULL === '1';

const KNOWN: readonly Known[] = [];

let bench: HostileBench;
let results: MutationResult[] = [];

beforeAll(async () => {
  bench = await startHostileBench();
  results = await bench.run({ full: FULL });
  console.log(hostileTable(results));
}, 900_000);
afterAll(async () => bench?.dispose());

const known = (r: MutationResult) => KNOWN.find((k) => k.kind.test(r.kind) && k.field.test(r.field));
const expected = KNOWN.filter((k) => FULL || !k.fullOnly);

describe('a hostile service', () => {
  it('ran every spend kind and every co-signer request check, each with mutations of every answer it read', () => {
    const kinds = new Set(results.map((r) => r.kind));
    for (const k of bench.kinds) {
      expect(kinds).toContain(k.name);
      expect(kinds).toContain(`${k.name}: co-signer's request check`);
    }
    // Every answer the desk reads on the way: the transaction built, the coins, the history, the previous transactions.
    for (const endpoint of ['multi_sig/create tx: locktime', 'multi_sig/create hashes[].hash_to_sign', 'address/utxos', 'address/history', 'transaction/raw hex: outputs[].amount', 'status']) {
      expect(results.some((r) => r.field.startsWith(endpoint)), endpoint).toBe(true);
    }
  });

  it('is refused in words, or changes nothing the co-signers sign: no "other" outside the known list', () => {
    const others = results.filter((r) => r.outcome === 'other' && !known(r)).map((r) => `${r.kind} | ${r.field} | ${r.what} | ${r.detail}`);
    expect(others).toEqual([]);
  });

  it('keeps the known list honest: each entry still names an "other"', () => {
    const stale = expected.filter((k) => !results.some((r) => r.outcome === 'other' && k.kind.test(r.kind) && k.field.test(r.field))).map((k) => `${k.kind} ${k.field} (${k.why})`);
    expect(stale).toEqual([]);
  });
});
