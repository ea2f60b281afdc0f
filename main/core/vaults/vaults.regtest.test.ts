// Vaults on the desk (issue 27): made from the templates on litecoind -regtest with the embedded
// service, stored as kind 'miniscript' with their BIP388 template, paid to at their own P2WSH
// addresses and seen by the desk's walk; their paths shown in blocks and days; exported and read
// back; refused on a coin without segwit, twice, or when not sane. A spend takes a path: one not
// yet open for a chosen coin is refused naming the block; once open, it is proposed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { plural } from '../../../shared/api/words.ts';
import { addressToScript, chainParams, decodeTx } from '../../../shared/coins/index.ts';
import { vaultAddress } from '../../../shared/coins/vault-policy.ts';
import { parseVaultDescriptor, parseWalletPolicy } from '../../../shared/files/miniscript-descriptor.ts';
import { testCosigner, treasuryVault } from '../../../dev/desk-testing/keys.ts';
import { startRegtestDesk, type RegtestDesk } from '../../../dev/desk-testing/regtest.ts';
import { cancelPayment } from '../payments/payments.ts';
import { proposePayment } from '../payments/propose.ts';
import { openStore, type CoordinatorStore } from '../store/store.ts';
import { createVault, exportVault, storedVaultPolicy, vaultPaths } from './vaults.ts';
import { walletFunds } from '../wallets/funds.ts';
import { exportWalletSetup } from '../wallets/setup-files.ts';
import { nextReceiveAddress, type CoreDeps } from '../wallets/wallets.ts';

const params = chainParams('litecoin', 'regtest');
const COIN = 100_000_000n;
const [alice, bob, carol] = ['alice', 'bob', 'carol'].map((n) => testCosigner(n));
const co = (c: typeof alice) => ({ name: c!.name, xpub: c!.xpub, fingerprint: c!.fingerprint, derivationPath: c!.derivationPath });

let desk: RegtestDesk;
let store: CoordinatorStore;
let deps: CoreDeps;

beforeAll(async () => {
  desk = await startRegtestDesk();
  store = openStore(`${desk.dir}/vaults-desk.sqlite`);
  deps = { store, api: desk.api, actor: 'treasurer' };
}, 180_000);
afterAll(async () => {
  store?.close();
  await desk?.dispose();
});

describe('vaults on the desk', () => {
  let vaultId = '';
  it('a 2-of-3 vault with a 1-of-2 recovery path after 144 blocks: stored as miniscript, its paths in blocks and days', async () => {
    const w = await createVault(deps, treasuryVault());
    vaultId = w.id;
    const stored = store.wallet(w.id)!;
    expect([stored.kind, stored.scriptType, stored.m, stored.vaultTemplate]).toEqual(['miniscript', 'p2wsh', 2, 'wsh(or_d(multi(2,@0/**,@1/**,@2/**),and_v(v:multi(1,@3/**,@4/**),older(144))))']);
    expect(store.cosigners(w.id).map((c) => c.name)).toEqual(['alice', 'bob', 'carol', 'dave', 'erin']);
    expect(vaultPaths(deps, w.id)).toEqual([
      { threshold: 2, keys: ['alice', 'bob', 'carol'], blocks: 0, opens: 'now' },
      { threshold: 1, keys: ['dave', 'erin'], blocks: 144, opens: '144 blocks (about 0.3 days) after a coin is received' },
    ]);
    // Its first address is the vault's P2WSH address (proven against rust-miniscript in vault-oracle.test.ts).
    const first = store.addresses(w.id).find((a) => !a.change && a.index === 0)!;
    expect(first.address).toBe(vaultAddress(params, storedVaultPolicy(deps, stored), false, 0).address);
    expect(first.address.startsWith('rltc1q')).toBe(true);
  });

  it('paid at its receive address, the desk walks on to the next one and counts the balance', async () => {
    const first = await nextReceiveAddress(deps, vaultId);
    expect(first.index).toBe(0);
    await desk.node.fundScript(addressToScript(params, first.address), 2n * COIN);
    await desk.mine(1);
    await desk.synced();
    expect((await nextReceiveAddress(deps, vaultId)).index).toBe(1);
    expect((await walletFunds({ store, api: desk.api }, vaultId)).balance).toBe(2n * COIN);
  });

  it('exports as a descriptor with checksum and as a BIP388 policy; both read back to the same policy', () => {
    const policy = storedVaultPolicy(deps, store.wallet(vaultId)!);
    const descriptor = exportVault(deps, vaultId, 'descriptor');
    expect(descriptor).toMatch(/^wsh\(or_d\(multi\(2,\[[0-9a-f]{8}\/45'\/0'\]tpub[^)]*\/<0;1>\/\*,.*older\(144\)\)\)\)#[a-z0-9]{8}\n$/);
    expect(parseVaultDescriptor(descriptor).policy).toEqual(policy);
    expect(parseWalletPolicy(exportVault(deps, vaultId, 'bip388')).policy).toEqual(policy);
    // A plain multisig file would name other addresses: refused, pointing at the vault's own files.
    for (const format of ['bsms', 'descriptor', 'specter'] as const) {
      expect(() => exportWalletSetup(deps, vaultId, format)).toThrow(/is a vault with recovery paths: export it as a vault descriptor or a BIP388 policy/);
    }
  });

  it('the same vault imported again is refused; a decaying one imported from its descriptor is made', async () => {
    const text = exportVault(deps, vaultId, 'descriptor');
    await expect(createVault(deps, { template: 'import', coin: 'litecoin', network: 'regtest', name: 'again', text })).rejects.toThrow('already in the desk as "Treasury vault"');
    const decaying = await createVault(deps, { template: 'decaying', coin: 'litecoin', network: 'regtest', name: 'Decaying', primary: { threshold: 2, cosigners: [alice, bob, carol].map(co) }, decay: [{ threshold: 1, after: { days: 30 } }] });
    expect(vaultPaths(deps, decaying.id).map((p) => [p.threshold, p.opens])).toEqual([
      [2, 'now'],
      [1, '17,280 blocks (about 30 days) after a coin is received'],
    ]);
  });

  it('refused in words: no segwit, beyond BIP68, not sane, spending through the M-of-N pipeline', async () => {
    const dash = (c: typeof alice) => ({ ...co(c), xpub: testCosigner(c!.name, chainParams('dash', 'regtest')).xpub });
    await expect(
      createVault(deps, { template: 'recovery', coin: 'dash', network: 'regtest', name: 'x', primary: { threshold: 1, cosigners: [dash(alice)] }, recovery: [{ threshold: 1, cosigners: [dash(bob)], after: { days: 10 } }] }),
    ).rejects.toThrow('dash has no segwit: a vault with recovery paths is a P2WSH miniscript and cannot be made on it');
    await expect(
      createVault(deps, { template: 'recovery', coin: 'litecoin', network: 'regtest', name: 'x', primary: { threshold: 1, cosigners: [co(alice)] }, recovery: [{ threshold: 1, cosigners: [co(bob)], after: { days: 120 } }] }),
    ).rejects.toThrow('120 days is 69,120 blocks on litecoin regtest; a relative timelock counts at most 65,535 blocks (BIP68), 113 days there');
    const insane = `wsh(or_d(multi(1,[${alice!.fingerprint}]${alice!.xpub}/<0;1>/*,[${bob!.fingerprint}]${bob!.xpub}/<0;1>/*),older(10)))`;
    await expect(createVault(deps, { template: 'import', coin: 'litecoin', network: 'regtest', name: 'x', text: insane })).rejects.toThrow('a spending path needs no signature');
    const to = await desk.node.newAddress('bech32');
    // The primary path is open at once: proposed (its signing and sending: vault-spend.regtest.test.ts), then cancelled to free the coin.
    const primary = await proposePayment(deps, vaultId, { to, amount: COIN / 2n, minersFee: 20_000n });
    expect(primary.state).toBe('awaiting_signatures');
    cancelPayment(deps, primary.id, 'test: the recovery path spends this coin next');
    // The recovery path before it opens for the chosen coin: refused naming the block and a date.
    const coin = (await desk.api.utxos('litecoin', [store.addresses(vaultId).find((a) => !a.change && a.index === 0)!.address])).utxos[0]!;
    const opens = coin.height! + 144;
    const tip = coin.height! + coin.confirmations - 1;
    await expect(proposePayment(deps, vaultId, { to, amount: COIN / 2n, minersFee: 20_000n, vaultPath: 144 })).rejects.toThrow(
      new RegExp(`refusing the proposed payment: the path of 1 of dave, erin is not open yet: ${coin.txid}:${coin.vout} confirmed in block ${coin.height}, so this path opens at block ${opens}; the chain is at block ${tip}, ${plural(opens - 1 - tip, 'block')} to go \\(about \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d UTC\\)`),
    );
    await expect(proposePayment(deps, vaultId, { to, amount: COIN / 2n, minersFee: 20_000n, vaultPath: 10 })).rejects.toThrow('has no path that opens after 10 blocks; its paths: 2 of alice, bob, carol now; 1 of dave, erin after 144 blocks (about 0.3 days) after a coin is received');
    // Once the tip is the opening block - 1, the path is open: the spend is proposed with nSequence 144.
    await desk.mine(opens - 1 - tip);
    await desk.synced();
    const recovery = await proposePayment(deps, vaultId, { to, amount: COIN / 2n, minersFee: 20_000n, vaultPath: 144 });
    expect(decodeTx(recovery.unsignedTx, params).inputs.map((i) => i.sequence)).toEqual([144]);
    expect(store.wallets().filter((w) => w.name === 'x')).toEqual([]);
  });
});
