// One holder's key twice (issue 31, finding 9): alice's account key as xpub and again as Ltub
// (litecoin's other version bytes: the same public key and chain code) would let alice alone give
// two of a threshold's signatures. Every maker and reader of an M-of-N wallet or a vault compares
// keys by public key (extendedKeyIdentity, one function) and refuses, in words, before the service
// is asked anything: the wallet form, both vault templates, vault descriptors, BIP388 policies,
// and every set-up file (descriptor, BSMS, Caravan, Coldcard, Specter).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { chainParams, encodeXpub, extendedKeyIdentity, parseXpub, repeatedExtendedKey } from '../../../shared/coins/index.ts';
import { formatBsmsDescriptorRecord } from '../../../shared/files/bsms.ts';
import { formatCaravan } from '../../../shared/files/caravan.ts';
import { formatColdcard } from '../../../shared/files/coldcard.ts';
import { formatMultisigDescriptor } from '../../../shared/files/descriptor.ts';
import type { SetupKey } from '../../../shared/files/setup.ts';
import { formatSpecter } from '../../../shared/files/specter.ts';
import { testCosigner, type TestCosigner } from '../../../dev/desk-testing/keys.ts';
import type { CoordinatorApi } from '../api.ts';
import { openStore, type CoordinatorStore } from '../store/store.ts';
import { createVault } from '../vaults/vaults.ts';
import { readNewWalletSetup } from './setup-files.ts';
import { createWallet, type CoreDeps } from './wallets.ts';

const params = chainParams('litecoin', 'mainnet');
const co = (n: string) => testCosigner(n, params);
const [alice, bob, carol, dave] = ['alice', 'bob', 'carol', 'dave'].map(co) as [TestCosigner, TestCosigner, TestCosigner, TestCosigner];
const k = parseXpub(params, alice.xpub);
/** alice's account key in litecoin's other xpub encoding (Ltub): another text, the same key. */
const aliceLtub = encodeXpub({ ...k, version: params.xpubVersions.find((v) => v !== k.version)! });
const asCosigner = (c: TestCosigner, xpub = c.xpub) => ({ name: xpub === c.xpub ? c.name : `${c.name} (Ltub)`, xpub, fingerprint: c.fingerprint, derivationPath: c.derivationPath });
// A refusal must come before any question to the service: this one answers nothing.
const noService = new Proxy({}, { get: (_t, name) => () => Promise.reject(new Error(`the service was asked ${String(name)}`)) }) as CoordinatorApi;

let dir: string;
let store: CoordinatorStore;
let deps: CoreDeps;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'countersign-dupkeys-'));
  store = openStore(join(dir, 'desk.sqlite'));
  deps = { store, api: noService, actor: 'test' };
});
afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('one key, two encodings', () => {
  it('is one identity; a chain of keys names its first repeat', () => {
    expect(aliceLtub.startsWith('Ltub')).toBe(true);
    expect(alice.xpub.startsWith('xpub')).toBe(true);
    expect(extendedKeyIdentity(aliceLtub)).toBe(extendedKeyIdentity(alice.xpub));
    expect(extendedKeyIdentity(bob.xpub)).not.toBe(extendedKeyIdentity(alice.xpub));
    // SLIP-132's Zpub (P2WSH multisig) is the same key too.
    const zpub = encodeXpub({ ...k, version: 0x02aa7ed3 });
    expect(repeatedExtendedKey([bob.xpub, alice.xpub, carol.xpub, zpub])).toEqual([1, 3]);
    expect(repeatedExtendedKey([bob.xpub, alice.xpub, carol.xpub])).toBeNull();
  });
});

describe('refused by every maker, before the service is asked', () => {
  it('an M-of-N wallet', async () => {
    await expect(createWallet(deps, { coin: 'litecoin', network: 'mainnet', name: 'W', m: 2, cosigners: [asCosigner(alice), asCosigner(alice, aliceLtub), asCosigner(bob)] })).rejects.toThrow(
      "co-signer alice (Ltub)'s xpub is already in this wallet (alice's key, written in another encoding): each co-signer needs an own key",
    );
  });

  it('a vault with recovery keys: the recovery key is a primary key in another encoding', async () => {
    await expect(
      createVault(deps, { template: 'recovery', coin: 'litecoin', network: 'mainnet', name: 'V', primary: { threshold: 2, cosigners: [asCosigner(alice), asCosigner(bob), asCosigner(carol)] }, recovery: [{ threshold: 1, cosigners: [asCosigner(alice, aliceLtub)], after: { blocks: 144 } }] }),
    ).rejects.toThrow('recovery path 1 holds a key of the primary path');
  });

  it('a decaying vault: 2 of alice, alice (Ltub), bob', async () => {
    await expect(
      createVault(deps, { template: 'decaying', coin: 'litecoin', network: 'mainnet', name: 'V', primary: { threshold: 2, cosigners: [asCosigner(alice), asCosigner(alice, aliceLtub), asCosigner(bob)] }, decay: [{ threshold: 1, after: { blocks: 144 } }] }),
    ).rejects.toThrow('the primary path lists key 2 twice: it is key 1 (the same public key written in another encoding); one holder would give two of its signatures');
  });

  const info = (c: TestCosigner, xpub = c.xpub) => `[${c.fingerprint}${c.derivationPath.slice(1)}]${xpub}`;
  const template = 'wsh(or_d(multi(2,@0/**,@1/**),and_v(v:pkh(@2/**),older(144))))';
  it('a BIP388 policy whose keys_info repeats a key, in the same or another encoding', async () => {
    for (const second of [alice.xpub, aliceLtub]) {
      const text = JSON.stringify({ name: 'x', descriptor_template: template, keys_info: [info(alice), info(alice, second), info(dave)] });
      const err = await createVault(deps, { template: 'import', coin: 'litecoin', network: 'mainnet', name: 'V', text }).catch((e: unknown) => e);
      expect(err).toMatchObject({ message: expect.stringMatching(/^unsupported vault descriptor: keys @0 and @1 are the same (public )?key.*: one holder would sign in two places/), subject: { field: 'text' } });
    }
  });

  it('a vault descriptor holding a key and the same key in another encoding', async () => {
    const text = `wsh(or_d(multi(2,${info(alice)}/<0;1>/*,${info(bob)}/<0;1>/*),and_v(v:pkh(${info(alice, aliceLtub)}/<2;3>/*),older(144))))`;
    await expect(createVault(deps, { template: 'import', coin: 'litecoin', network: 'mainnet', name: 'V', text })).rejects.toThrow(
      'unsupported vault descriptor: key 3 is the public key of an earlier key written in another encoding: one holder would sign in two places',
    );
  });

  const keys: SetupKey[] = [asCosigner(alice), asCosigner(alice, aliceLtub), asCosigner(bob)].map((c) => ({ name: c.name, xpub: c.xpub, fingerprint: c.fingerprint, derivationPath: c.derivationPath }));
  const script = { scriptType: 'p2wsh', sortKeys: true } as const;
  const files: [string, string][] = [
    ['descriptor.txt', formatMultisigDescriptor(2, keys, '/<0;1>/*', true, script)],
    ['wallet.bsms', formatBsmsDescriptorRecord(2, keys, 'ltc1qexample', script)],
    ['caravan.json', formatCaravan('W', 'mainnet', 2, keys, script)],
    ['coldcard.txt', formatColdcard('W', 2, keys, script)],
    ['specter.json', formatSpecter('W', 2, keys, script)],
  ];
  it.each(files)('a set-up file: %s', (name, text) => {
    expect(() => readNewWalletSetup(deps, [{ name, text }], { coin: 'litecoin', network: 'mainnet' })).toThrow(
      /key 2 \(.*\) is key 1 \(.*\) again, written in another encoding: one holder would sign in two places; each co-signer needs an own key/,
    );
  });
});
