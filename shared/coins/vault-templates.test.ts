import { describe, expect, test } from 'vitest';
import { testCosigner } from '../../dev/desk-testing/keys.ts';
import { chainParams } from './coin-table.ts';
import { analyseMiniscript, compileVaultMiniscript, miniscriptSatisfactions, miniscriptWitnessScript } from './miniscript.ts';
import { checkVault, vaultAddress, type VaultKey } from './vault-policy.ts';
import { blocksPerDay, decayingVault, describeTimelock, recoveryVault, timelockBlocks } from './vault-templates.ts';
import { bytesToHex, hexToBytes } from './bytes.ts';
import { hash160 } from './hash.ts';

const BTC = chainParams('bitcoin', 'mainnet');
const LTC = chainParams('litecoin', 'mainnet');
const LTC_REG = chainParams('litecoin', 'regtest');
const key = (name: string, params = LTC_REG): VaultKey => {
  const c = testCosigner(name, params);
  return { xpub: c.xpub, fingerprint: c.fingerprint, derivationPath: c.derivationPath };
};
const [A, B, C, D, E] = ['a', 'b', 'c', 'd', 'e'].map((n) => key(n));

describe('timelocks in days and blocks', () => {
  test('144 blocks a day on bitcoin, 576 on litecoin (2.5-minute blocks)', () => {
    expect(blocksPerDay(BTC)).toBe(144);
    expect(blocksPerDay(LTC)).toBe(576);
    expect(timelockBlocks(BTC, { days: 365 })).toBe(52560);
    expect(timelockBlocks(LTC, { days: 90 })).toBe(51840);
    expect(describeTimelock(BTC, 52560)).toBe('52,560 blocks (about 365 days)');
    expect(describeTimelock(LTC_REG, 144)).toBe('144 blocks (about 0.3 days)');
  });
  test('beyond BIP68 (65535 blocks) refused in words, naming the limit in days', () => {
    expect(() => timelockBlocks(LTC, { days: 114 })).toThrow('114 days is 65,664 blocks on litecoin; a relative timelock counts at most 65,535 blocks (BIP68), 113 days there');
    expect(() => timelockBlocks(BTC, { days: 456 })).toThrow('455 days there');
    expect(timelockBlocks(BTC, { days: 455 })).toBe(65520);
    expect(() => timelockBlocks(BTC, { days: 0 })).toThrow('at least 1');
    expect(() => timelockBlocks(BTC, { days: 1.5 })).toThrow('whole number of days');
    expect(() => timelockBlocks(BTC, { blocks: 65536 })).toThrow('a relative timelock is 1 to 65,535 blocks (BIP68), 455 days on bitcoin; got 65536');
    expect(timelockBlocks(BTC, { blocks: 65535 })).toBe(65535);
  });
});

describe('templates', () => {
  test('recovery keys: 2-of-3 now, or 1-of-2 after 144 blocks (Liana\'s shape)', () => {
    const p = recoveryVault(LTC_REG, { threshold: 2, keys: [A!, B!, C!] }, [{ threshold: 1, keys: [D!, E!], after: { blocks: 144 } }]);
    expect(p.template).toBe('wsh(or_d(multi(2,@0/**,@1/**,@2/**),and_v(v:multi(1,@3/**,@4/**),older(144))))');
    expect(p.keys.map((k) => k.xpub)).toEqual([A, B, C, D, E].map((k) => k!.xpub));
    expect(checkVault(p).paths).toEqual([
      { threshold: 2, keys: ['K0_0', 'K1_0', 'K2_0'], blocks: 0 },
      { threshold: 1, keys: ['K3_0', 'K4_0'], blocks: 144 },
    ]);
  });
  test('several recovery paths, each later one outermost; a one-key set is pkh', () => {
    const p = recoveryVault(BTC, { threshold: 2, keys: [key('a', BTC), key('b', BTC), key('c', BTC)] }, [
      { threshold: 1, keys: [key('e', BTC)], after: { days: 365 } },
      { threshold: 1, keys: [key('d', BTC)], after: { days: 90 } },
    ]);
    expect(p.template).toBe('wsh(or_i(and_v(v:pkh(@4/**),older(52560)),or_d(multi(2,@0/**,@1/**,@2/**),and_v(v:pkh(@3/**),older(12960)))))');
    expect(checkVault(p).paths.map((x) => [x.threshold, x.keys.length, x.blocks])).toEqual([
      [2, 3, 0],
      [1, 1, 12960],
      [1, 1, 52560],
    ]);
  });
  test('decaying multisig: the same keys on another branch pair after T', () => {
    const p = decayingVault(LTC_REG, { threshold: 3, keys: [A!, B!, C!] }, [
      { threshold: 1, after: { days: 60 } },
      { threshold: 2, after: { days: 30 } },
    ]);
    expect(p.template).toBe(
      'wsh(or_i(and_v(v:multi(1,@0/<4;5>/*,@1/<4;5>/*,@2/<4;5>/*),older(34560)),or_d(multi(3,@0/**,@1/**,@2/**),and_v(v:multi(2,@0/<2;3>/*,@1/<2;3>/*,@2/<2;3>/*),older(17280)))))',
    );
    expect(checkVault(p).paths.map((x) => [x.threshold, x.blocks])).toEqual([
      [3, 0],
      [2, 17280],
      [1, 34560],
    ]);
    const first = vaultAddress(LTC_REG, p, false, 0);
    expect(first.derived.K0_2!.path).toBe('2/0');
    expect(vaultAddress(LTC_REG, p, true, 5).derived.K1_4!.path).toBe('5/5');
  });
  test('refusals in words', () => {
    expect(() => recoveryVault(chainParams('dash', 'mainnet'), { threshold: 1, keys: [A!] }, [{ threshold: 1, keys: [B!], after: { days: 1 } }])).toThrow(
      'dash has no segwit: a vault with recovery paths is P2WSH miniscript and cannot be made on it',
    );
    expect(() => recoveryVault(LTC_REG, { threshold: 2, keys: [A!, B!] }, [])).toThrow('at least one recovery path');
    expect(() => recoveryVault(LTC_REG, { threshold: 3, keys: [A!, B!] }, [{ threshold: 1, keys: [C!], after: { days: 1 } }])).toThrow('1 <= threshold <= 2');
    expect(() => recoveryVault(LTC_REG, { threshold: 2, keys: [A!, B!] }, [{ threshold: 1, keys: [B!], after: { days: 1 } }])).toThrow('holds a key of the primary path');
    expect(() =>
      recoveryVault(LTC_REG, { threshold: 2, keys: [A!, B!] }, [
        { threshold: 1, keys: [C!], after: { days: 1 } },
        { threshold: 1, keys: [D!], after: { blocks: 576 } },
      ]),
    ).toThrow('two recovery paths open after the same 576 blocks');
    expect(() => decayingVault(LTC_REG, { threshold: 2, keys: [A!, B!, C!] }, [{ threshold: 2, after: { days: 30 } }])).toThrow('lowers its threshold');
    expect(() => vaultAddress(chainParams('dash', 'mainnet'), { template: 'wsh(or_d(pk(@0/**),and_v(v:pkh(@1/**),older(10))))', keys: [A!, B!] }, false, 0)).toThrow('dash has no segwit');
  });
});

describe('the miniscript wrapper refuses what is not sane, naming why', () => {
  const cases: [string, string][] = [
    ['or_d(multi(2,K0_0,K1_0),older(144))', 'a spending path needs no signature'],
    ['and_v(v:pk(K0_0),or_b(l:after(100),al:after(200)))', 'after(...) is an absolute timelock'],
    ['and_v(v:pk(K0_0),or_b(l:older(100),al:older(200)))', 'it is malleable'],
    ['thresh(2,pk(K0_0),s:pk(K1_0),sln:older(4194305),sln:older(10))', 'counted in time'],
    ['or_d(multi(1,K0_0,K1_0),and_v(v:pkh(K0_0),older(10)))', 'a key appears twice'],
    ['or_d(multi(1,K0_0,K1_0),and_v(v:pkh(K2_0),older(65536)))', "beyond BIP68's limit of 65,535 blocks"],
    ['or_d(multi(1,K0_0,K1_0),and_v(v:pkh(K2_0),older(0)))', 'locks nothing'],
    ['and_v(pk(K0_0),pk(K1_0))', 'not valid miniscript'],
    ['multi_a(1,K0_0,K1_0)', 'taproot-only'],
    ['garbage(', 'cannot be parsed'],
    ['or_d(pk(ab12),and_v(v:pkh(K1_0),older(10)))', 'is not a key name'],
  ];
  test.each(cases)('%s', (ms, why) => {
    expect(() => analyseMiniscript(ms)).toThrow(why);
  });
  test('sane: the analysis lists keys and relative locks', () => {
    const a = analyseMiniscript('or_i(and_v(v:pkh(K3_0),older(300)),or_d(multi(2,K0_0,K1_0,K2_0),and_v(v:pkh(K4_0),older(144))))');
    expect(a.keyNames).toEqual(['K3_0', 'K0_0', 'K1_0', 'K2_0', 'K4_0']);
    expect(a.relativeLocks).toEqual([144, 300]);
  });
  test('witness script vector: or_d(pk, and_v(v:pkh, older(144))) by hand', () => {
    const k0 = hexToBytes('02' + '11'.repeat(32));
    const k1 = hexToBytes('03' + '22'.repeat(32));
    const script = miniscriptWitnessScript(compileVaultMiniscript('or_d(pk(K0_0),and_v(v:pkh(K1_0),older(144)))'), { K0_0: k0, K1_0: k1 });
    // <k0> CHECKSIG IFDUP NOTIF DUP HASH160 <h160(k1)> EQUALVERIFY CHECKSIGVERIFY <9000> CSV ENDIF
    expect(bytesToHex(script)).toBe(`21${bytesToHex(k0)}ac736476a914${bytesToHex(hash160(k1))}88ad029000b268`);
  });
  test('satisfactions: cheapest first, with the nSequence a recovery path needs', () => {
    const sats = miniscriptSatisfactions('or_d(multi(2,K0_0,K1_0,K2_0),and_v(v:pkh(K3_0),older(144)))', ['K3_0']);
    expect(sats).toHaveLength(1);
    expect(sats[0]!.sequence).toBe(144);
    expect(sats[0]!.signers).toEqual(['K3_0']);
    const primary = miniscriptSatisfactions('or_d(multi(2,K0_0,K1_0,K2_0),and_v(v:pkh(K3_0),older(144)))', ['K0_0', 'K2_0']);
    expect(primary.map((s) => [s.sequence, s.signers])).toEqual([[0, ['K0_0', 'K2_0']]]);
  });
});

describe('address vectors (litecoin regtest; the same as rust-miniscript derives, vault-oracle.test.ts)', () => {
  test('recovery 2-of-3 or 1-of-2 after 144 blocks; decaying 2-of-3 to 1-of-3 after 60 days', () => {
    const r = recoveryVault(LTC_REG, { threshold: 2, keys: [A!, B!, C!] }, [{ threshold: 1, keys: [D!, E!], after: { blocks: 144 } }]);
    const d = decayingVault(LTC_REG, { threshold: 2, keys: [A!, B!, C!] }, [{ threshold: 1, after: { days: 60 } }]);
    expect(vaultAddress(LTC_REG, r, false, 0).address).toBe('rltc1qjzqkjkaz2gwca8l483ys7s34ctesg3x5ljqpzmc2w6zegkqg003s4x72nm');
    expect(vaultAddress(LTC_REG, r, true, 19).address).toBe('rltc1qz9ptwad2h2d93ayk8huk567p42s685z43kkey92gnh3tdmhd8y3s7yuyuq');
    expect(vaultAddress(LTC_REG, d, false, 0).address).toBe('rltc1q7pfx2tlpx7qeu4ey8vemk7wcvmjz7rjgrg8glfxxdyt44xgm495sz7pffd');
    expect(vaultAddress(LTC_REG, d, true, 19).address).toBe('rltc1q7vnppnxvt2kc65mswsfs42ugu7hx8psrp4xjg8exfclt28mydvgqnuqf4m');
  });
});
