import { describe, expect, test } from 'vitest';
import { testCosigner } from '../../dev/desk-testing/keys.ts';
import { chainParams } from '../coins/coin-table.ts';
import type { VaultKey } from '../coins/vault-policy.ts';
import { decayingVault, recoveryVault } from '../coins/vault-templates.ts';
import { withChecksum } from './descriptor-checksum.ts';
import liana from './fixtures/liana-descriptors.json' with { type: 'json' };
import { formatVaultDescriptor, formatWalletPolicy, parseVaultDescriptor, parseWalletPolicy } from './miniscript-descriptor.ts';

const BTC = chainParams('bitcoin', 'mainnet');
const key = (name: string): VaultKey => {
  const c = testCosigner(name, BTC);
  return { xpub: c.xpub, fingerprint: c.fingerprint, derivationPath: "m/48'/0'/0'/2'" };
};
const [A, B, C, D, E] = ['a', 'b', 'c', 'd', 'e'].map(key) as [VaultKey, VaultKey, VaultKey, VaultKey, VaultKey];

describe("Liana's descriptors (its own test descriptors, with their checksums)", () => {
  // Two are refused by design, named: keys with a step before the multipath (not BIP388 keys), and
  // one that mixes main and test network keys.
  const refused: Record<number, string> = {};
  liana.descriptors.forEach((d, i) => {
    if (/\/\d+\/<\d+;\d+>\/\*/.test(d)) refused[i] = 'extra steps before it are not read: BIP388 keys';
    else if (d.includes('tpub') && d.includes('xpub')) refused[i] = 'the keys mix main and test network keys';
  });
  test.each(liana.descriptors.map((d, i) => [i, d] as const))('%i reads, and writes back the same text and checksum', (i, d) => {
    if (refused[i] !== undefined) {
      expect(() => parseVaultDescriptor(d)).toThrow(refused[i]);
      return;
    }
    const parsed = parseVaultDescriptor(d);
    expect(parsed.checksummed).toBe(true);
    expect(formatVaultDescriptor(parsed.policy)).toBe(d);
    // and as a BIP388 wallet policy
    const again = parseWalletPolicy(formatWalletPolicy('Liana', parsed.policy));
    expect(again.policy).toEqual(parsed.policy);
    expect(again.name).toBe('Liana');
  });
  test('the several-paths one: its paths, soonest first', () => {
    const d = liana.descriptors.find((x) => x.includes('older(1678)'))!;
    const { checked } = parseVaultDescriptor(d);
    expect(checked.paths.map((p) => [p.threshold, p.keys.length, p.blocks])).toEqual([
      [2, 3, 0],
      [1, 1, 42],
      [2, 3, 43],
      [1, 2, 1678],
    ]);
  });
});

describe('our templates as descriptors and BIP388 policies', () => {
  const recovery = recoveryVault(BTC, { threshold: 2, keys: [A, B, C] }, [{ threshold: 1, keys: [D, E], after: { days: 90 } }]);
  const decaying = decayingVault(BTC, { threshold: 2, keys: [A, B, C] }, [{ threshold: 1, after: { days: 365 } }]);

  test('recovery keys: Liana\'s text, round trip', () => {
    const text = formatVaultDescriptor(recovery);
    const k = (v: VaultKey) => `[${v.fingerprint}/48'/0'/0'/2']${v.xpub}/<0;1>/*`;
    expect(text).toBe(withChecksum(`wsh(or_d(multi(2,${k(A)},${k(B)},${k(C)}),and_v(v:multi(1,${k(D)},${k(E)}),older(12960))))`));
    expect(parseVaultDescriptor(text).policy).toEqual(recovery);
    expect(parseVaultDescriptor(formatVaultDescriptor(recovery, false)).checksummed).toBe(false);
  });
  test("decaying multisig: Nunchuk's and Liana's shape, the same keys at <2;3>", () => {
    const text = formatVaultDescriptor(decaying, false);
    expect(text).toContain(`and_v(v:multi(1,[${A.fingerprint}/48'/0'/0'/2']${A.xpub}/<2;3>/*,`);
    expect(parseVaultDescriptor(text).policy).toEqual(decaying);
  });
  test('BIP388: template and key vector', () => {
    const file = JSON.parse(formatWalletPolicy('Treasury', recovery)) as { name: string; descriptor_template: string; keys_info: string[] };
    expect(file.descriptor_template).toBe('wsh(or_d(multi(2,@0/**,@1/**,@2/**),and_v(v:multi(1,@3/**,@4/**),older(12960))))');
    expect(file.keys_info[0]).toBe(`[${A.fingerprint}/48'/0'/0'/2']${A.xpub}`);
    expect(parseWalletPolicy(JSON.stringify({ ...file, descriptor_template: file.descriptor_template.replaceAll('/**', '/<0;1>/*') })).policy).toEqual(recovery);
  });
  test('Nunchuk\'s decaying template, with its key names replaced by keys, reads as our decaying vault', () => {
    const k = (v: VaultKey, b: string) => `[${v.fingerprint}/48'/0'/0'/2']${v.xpub}/${b}/*`;
    const text = `wsh(or_d(multi(2,${k(A, '<0;1>')},${k(B, '<0;1>')},${k(C, '<0;1>')}),and_v(v:multi(1,${k(A, '<2;3>')},${k(B, '<2;3>')},${k(C, '<2;3>')}),older(52560))))`;
    expect(parseVaultDescriptor(text).policy).toEqual(decaying);
  });
});

describe('refused in words', () => {
  const good = () => formatVaultDescriptor(recoveryVault(BTC, { threshold: 1, keys: [A] }, [{ threshold: 1, keys: [B], after: { blocks: 144 } }]), false);
  test('a tampered descriptor fails its checksum', () => {
    const text = withChecksum(good());
    const tampered = text.replace('older(144)', 'older(145)');
    expect(() => parseVaultDescriptor(tampered)).toThrow('does not match the descriptor: it was altered or mistyped');
  });
  test('not sane: a path without a signature; malleable', () => {
    expect(() => parseVaultDescriptor(good().replace(/and_v\(v:pkh\(([^)]*)\),older\(144\)\)/, 'older(144)'))).toThrow('a spending path needs no signature');
    expect(() => parseVaultDescriptor(`wsh(and_v(v:pk(${A.xpub}/<0;1>/*),or_b(l:older(100),al:older(200))))`)).toThrow('it is malleable');
  });
  test('one key on one branch only', () => {
    expect(() => parseVaultDescriptor(good().replace('/<0;1>/*', '/0/*'))).toThrow('one branch; a vault descriptor gives receive and change together, /<0;1>/*');
  });
  test('a key twice on the same branch', () => {
    const t = good();
    const first = /\[[^\]]*\][1-9A-Za-z]+\/<0;1>\/\*/.exec(t)![0];
    expect(() => parseVaultDescriptor(t.replace(/pkh\([^)]*\)/, `pkh(${first})`))).toThrow('a key appears twice');
  });
  test('taproot, nested segwit, plain multisig, private keys, single keys, hardened steps', () => {
    expect(() => parseVaultDescriptor('tr(A)')).toThrow('taproot');
    expect(() => parseVaultDescriptor(`sh(${good()})`)).toThrow('native P2WSH');
    expect(() => parseVaultDescriptor(`wsh(multi(1,${A.xpub}/<0;1>/*))`)).toThrow('plain multisig wallet');
    const xprv = testCosigner('a', BTC).accountXprv;
    expect(() => parseVaultDescriptor(`wsh(or_d(pk(${xprv}/<0;1>/*),and_v(v:pkh(${B.xpub}/<0;1>/*),older(10))))`)).toThrow('private key');
    expect(() => parseVaultDescriptor(`wsh(or_d(pk(02${'11'.repeat(32)}),and_v(v:pkh(${B.xpub}/<0;1>/*),older(10))))`)).toThrow('single public key');
    expect(() => parseVaultDescriptor(good().replace('/<0;1>/*', "/1'/<0;1>/*"))).toThrow('hardened steps');
    expect(() => parseVaultDescriptor(`wsh(or_d(pk(${A.xpub}/<0;1>/*),and_v(v:pkh(${B.xpub}/<0;1>/*),after(800000))))`)).toThrow('absolute timelock');
    expect(() => parseVaultDescriptor(`wsh(or_d(pk(${A.xpub}/<0;1>/*),and_v(v:pkh(${B.xpub}/<0;1>/*),older(70000))))`)).toThrow("BIP68's limit");
  });
  test('BIP388 files', () => {
    expect(() => parseWalletPolicy('{')).toThrow('not JSON');
    expect(() => parseWalletPolicy(JSON.stringify({ descriptor_template: 'wsh(pk(@0/**))', keys_info: [`${A.xpub}/0`] }))).toThrow('no derivation after the xpub');
    expect(() => parseWalletPolicy(JSON.stringify({ descriptor_template: 'wsh(or_d(pk(@0/**),and_v(v:pkh(@2/**),older(10))))', keys_info: [A.xpub, B.xpub] }))).toThrow('@2 names no key');
    expect(() => parseWalletPolicy(JSON.stringify({ descriptor_template: 'wsh(or_d(pk(@0/**),and_v(v:pkh(@0/<1;2>/*),older(10))))', keys_info: [A.xpub] }))).toThrow('derives the same branch on two paths');
    expect(() => parseWalletPolicy(JSON.stringify({ descriptor_template: 'wsh(or_d(pk(@0/**),and_v(v:pkh(@1/**),sha256(aa))))', keys_info: [A.xpub, B.xpub] }))).toThrow();
  });
});
