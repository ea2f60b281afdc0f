// Vaults over many keys (issue 31, finding 8): the satisfier is asked once per signing set with
// only the keys that set needs, so a thresh() or multi() over 7 and more keys has its paths and its
// witnesses (the library lists at most 1,000 satisfactions; thresh(2 of 8) alone has more, and
// multi(7 of 15) has 6,435). Where the whole miniscript can still be listed, the paths are the
// same as from every satisfaction at once.
import { satisfier } from '@bitcoinerlab/miniscript';
import { describe, expect, test } from 'vitest';
import { testCosigner } from '../../dev/desk-testing/keys.ts';
import { parseWalletPolicy } from '../files/miniscript-descriptor.ts';
import { chainParams } from './coin-table.ts';
import { compileWshMiniscript, miniscriptPaths, pathSatisfactions, witnessSize } from './miniscript-spend.ts';
import type { VaultPolicy } from './vault-policy.ts';
import { vaultInputSpend } from './vault-spend.ts';
import { recoveryVault } from './vault-templates.ts';

const params = chainParams('litecoin', 'regtest');
const cosigners = Array.from({ length: 16 }, (_, i) => testCosigner(`wide-${i}`));
const info = (i: number) => `[${cosigners[i]!.fingerprint}${cosigners[i]!.derivationPath.slice(1)}]${cosigners[i]!.xpub}`;
const thresh = (k: number, n: number, locks: number[] = []) => `thresh(${k},${Array.from({ length: n }, (_, i) => (i === 0 ? 'pk(@0/**)' : `s:pk(@${i}/**)`)).join(',')}${locks.map((l) => `,sln:older(${l})`).join('')})`;
const imported = (template: string, n: number): VaultPolicy => parseWalletPolicy(JSON.stringify({ name: 'x', descriptor_template: template, keys_info: Array.from({ length: n }, (_, i) => info(i)) })).policy;
const key = (i: number) => ({ xpub: cosigners[i]!.xpub, fingerprint: cosigners[i]!.fingerprint, derivationPath: cosigners[i]!.derivationPath });

const WIDE: [string, VaultPolicy, number[]][] = [
  ['2 of 7 now, or a recovery key after 144 blocks', imported(`wsh(or_d(${thresh(2, 7)},and_v(v:pkh(@7/**),older(144))))`, 8), [0, 144]],
  ['3 of 8 now, 2 of 8 after 10 blocks, 1 of 8 after 20', imported(`wsh(${thresh(3, 8, [10, 20])})`, 8), [0, 10, 20]],
  ['5 of 10 now, 4 after 100, 3 after 200 (12 parts, the most the desk spends)', imported(`wsh(${thresh(5, 10, [100, 200])})`, 10), [0, 100, 200]],
  ['7 of 15 keys (multi) now, or 2 of 3 after 144 blocks', recoveryVault(params, { threshold: 7, keys: Array.from({ length: 15 }, (_, i) => key(i)) }, [{ threshold: 1, keys: [key(15)], after: { blocks: 144 } }]), [0, 144]],
];

describe('a vault over many keys has every path, and a witness on each', () => {
  test.each(WIDE)('%s', (_name, policy, blocks) => {
    for (const b of blocks) {
      const spend = vaultInputSpend(params, policy, false, 0, b);
      expect(spend.path.older ?? 0).toBe(b);
      // Every key of the path signs (more than it needs): the cheapest witness of the fewest signatures.
      const lengths = new Map(spend.path.keys.map((k) => [k, 72]));
      const compiled = compileWshMiniscript(spend.descriptor.slice(4, -1));
      const [best] = pathSatisfactions(compiled, spend.path, lengths);
      expect(best).toBeDefined();
      expect(best!.older ?? 0).toBe(b);
      expect(best!.stack.filter((i) => !(i instanceof Uint8Array))).toHaveLength(spend.path.signatures);
      expect(witnessSize(best!.stack, compiled.witnessScript)).toBeLessThanOrEqual(spend.path.largestWitness);
    }
  });
});

describe('the same paths as listing every satisfaction at once, where that can be done', () => {
  const SMALL: VaultPolicy[] = [
    recoveryVault(params, { threshold: 2, keys: [key(0), key(1), key(2)] }, [{ threshold: 1, keys: [key(3), key(4)], after: { blocks: 144 } }]),
    imported(`wsh(${thresh(3, 5, [100, 200])})`, 5),
    imported(`wsh(${thresh(4, 6, [100])})`, 6),
    imported(`wsh(${thresh(3, 3, [12960])})`, 3),
    imported(`wsh(or_d(${thresh(2, 5)},and_v(v:pkh(@5/**),older(144))))`, 6),
  ];
  test.each(SMALL.map((p) => [p.template, p] as const))('%s', (_t, policy) => {
    const spend = vaultInputSpend(params, policy, false, 2, 0);
    const compiled = compileWshMiniscript(spend.descriptor.slice(4, -1));
    // Every satisfaction of the whole miniscript (no limit), grouped by its relative timelock.
    const named = compiled.keys.reduce((ms, k, i) => ms.replaceAll(k, `K${i}`), compiled.miniscript);
    const all = satisfier(named, { maxSolutions: null }).nonMalleableSats;
    const olders = [...new Set(all.map((s) => s.nSequence ?? null))].sort((a, b) => (a === null ? -1 : b === null ? 1 : a - b));
    const expected = olders.map((older, index) => {
      const sats = all.filter((s) => (s.nSequence ?? null) === older);
      const signers = new Set(sats.flatMap((s) => [...s.asm.matchAll(/<sig\(K(\d+)\)>/g)].map((m) => compiled.keys[Number(m[1])]!)));
      return { index, older, keys: compiled.keys.filter((k) => signers.has(k)), signatures: Math.min(...sats.map((s) => (s.asm.match(/<sig\(/g) ?? []).length)) };
    });
    expect(miniscriptPaths(compiled).map(({ largestWitness: _, ...p }) => p)).toEqual(expected);
  });
});
