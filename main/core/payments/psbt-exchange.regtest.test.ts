// Issue 6's proof for files other wallets read: a PSBT exported by the desk, signed by an
// independent PSBT signer (bitcoinjs-lib's Psbt with the co-signers' keys), imported back,
// completes a payment on litecoind -regtest; every refusal says why and stores nothing. The wallet
// itself is created from a set-up file, and exported set-up files read back to the same wallet.
import { BIP32Factory } from 'bip32';
import { Psbt } from 'bitcoinjs-lib';
import * as ecc from 'tiny-secp256k1';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addressToScript, bytesToHex, chainParams, decodeTx, encodeTx, signDer } from '../../../shared/coins/index.ts';
import { bsmsKeyLine } from '../../../shared/files/bsms.ts';
import { formatMultisigDescriptor } from '../../../shared/files/descriptor.ts';
import { GLOBAL, INPUT, encodePsbt, psbtFromBase64, psbtToBase64 } from '../../../shared/files/psbt.ts';
import { importPaymentFiles } from './files.ts';
import { exportPsbt, importPsbtFile } from './psbt-exchange.ts';
import { exportWalletSetup, importWalletSetup, readWalletSetup } from '../wallets/setup-files.ts';
import { proposePayment } from './propose.ts';
import { refreshConfirmations, submitPayment } from './submit.ts';
import { cancelPayment, progress } from './payments.ts';
import { openStore, type CoordinatorStore } from '../store/store.ts';
import { jsNetwork, testCosigner } from '../../../dev/desk-testing/keys.ts';
import { apiWith, startRegtestDesk, type RegtestDesk } from '../../../dev/desk-testing/regtest.ts';
import { nextReceiveAddress } from '../wallets/wallets.ts';
import type { BirthdayDeps } from '../wallets/birthday.ts';

const bip32 = BIP32Factory(ecc);
const params = chainParams('litecoin', 'regtest');
const COIN = 100_000_000n;
const [alice, bob, carol] = [testCosigner('alice'), testCosigner('bob'), testCosigner('carol')];
const dave = testCosigner('dave');
// bitcoinjs-lib needs the chain's prefixes; it never sees the node.
const network = jsNetwork(params);
const master = (c: typeof alice) => bip32.fromBase58(c.masterXprv, network);

let desk: RegtestDesk;
let store: CoordinatorStore;
let deps: BirthdayDeps;
let walletId: string;

const descriptorOf = (keys = [alice, bob, carol]) => formatMultisigDescriptor(2, keys, '/<0;1>/*');
const propose = async (amount = COIN / 10n) => proposePayment(deps, walletId, { to: await desk.node.newAddress('legacy'), amount, minersFee: 10_000n });
/** The PSBT as an independent signer (bitcoinjs-lib) returns it after signing with `signers`. */
const signedBy = (base64: string, signers: (typeof alice)[], finalize = false) => {
  const psbt = Psbt.fromBase64(base64, { network });
  // signAllInputsHD finds each input's key through the PSBT's BIP32_DERIVATION entries, as hardware wallets do.
  for (const s of signers) psbt.signAllInputsHD(master(s));
  if (finalize) psbt.finalizeAllInputs();
  return psbt.toBase64();
};

beforeAll(async () => {
  desk = await startRegtestDesk();
  store = openStore(join(desk.dir, 'desk.sqlite'));
  deps = { store, api: desk.api, actor: 'treasurer' };
  const wallet = await importWalletSetup(deps, [{ name: 'treasury.txt', text: `${descriptorOf()}\n` }], { coin: 'litecoin', network: 'regtest', name: 'Treasury' });
  walletId = wallet.id;
  expect(store.cosigners(walletId).map((c) => [c.fingerprint, c.derivationPath])).toEqual([alice, bob, carol].map((c) => [c.fingerprint, c.derivationPath]));
  const first = await nextReceiveAddress(deps, walletId);
  await desk.node.fundScript(addressToScript(params, first.address), 2n * COIN);
  await desk.synced();
  const second = await nextReceiveAddress(deps, walletId);
  await desk.node.fundScript(addressToScript(params, second.address), 1n * COIN);
  await desk.mine(1);
});
afterAll(async () => {
  store?.close();
  await desk?.dispose();
});

describe('PSBT out and back', () => {
  it('a PSBT signed by bitcoinjs-lib completes a payment that litecoind confirms', async () => {
    const p = await propose(2n * COIN + COIN / 2n); // needs both funded outputs: two inputs
    const { base64, fileName } = await exportPsbt(deps, p.id);
    expect(fileName).toMatch(/^payment-Treasury-[0-9a-f]{8}\.psbt$/);
    const exported = psbtFromBase64(base64);
    expect(exported.tx.inputs).toHaveLength(2);
    // What the independent parser sees: previous transactions, redeem scripts, every key's origin.
    const theirs = Psbt.fromBase64(base64, { network });
    expect(theirs.data.inputs.every((i) => i.nonWitnessUtxo && i.redeemScript && i.bip32Derivation?.length === 3)).toBe(true);
    expect(theirs.data.inputs[0]!.bip32Derivation!.map((d) => bytesToHex(d.masterFingerprint))).toEqual([alice, bob, carol].map((c) => c.fingerprint));
    expect(theirs.data.globalMap.globalXpub).toHaveLength(3);
    expect(theirs.data.outputs.filter((o) => o.redeemScript).length).toBe(1); // the change output is marked as ours

    const results = importPaymentFiles(deps, [
      { name: 'alice.psbt', text: signedBy(base64, [alice]) },
      { name: 'alice-again.psbt', text: signedBy(base64, [alice]) },
      { name: 'carol.psbt', text: signedBy(base64, [carol]) },
    ]);
    expect(results.map((r) => [r.status, r.added])).toEqual([
      ['imported', 2],
      ['duplicate', 0],
      ['imported', 2],
    ]);
    expect(results[0]!.message).toContain(`alice.psbt: 2 signatures by Key 1 (${alice.fingerprint}) imported from the PSBT`);
    expect(progress(deps, p.id)).toMatchObject({ state: 'ready', complete: true });
    expect(store.signatures(p.id).map((s) => s.source).sort()).toEqual(['alice.psbt', 'alice.psbt', 'carol.psbt', 'carol.psbt']);

    const sent = await submitPayment(deps, p.id);
    expect(sent.state).toBe('broadcast');
    await desk.mine(1);
    const done = await refreshConfirmations(deps, p.id);
    expect(done).toMatchObject({ state: 'confirmed', confirmations: 1 });
    const onChain = await desk.node.rpc.call<{ confirmations: number; vin: unknown[] }>('getrawtransaction', [sent.txid, true]);
    expect(onChain.confirmations).toBe(1);
    expect(onChain.vin).toHaveLength(2);
  });

  it('takes signatures from a PSBT the signer already finalized, and several signers in one file', async () => {
    await desk.synced();
    const p = await propose();
    const { base64 } = await exportPsbt(deps, p.id);
    const [r] = importPaymentFiles(deps, [{ name: 'final.psbt', text: signedBy(base64, [bob, carol], true) }]);
    expect(r).toMatchObject({ status: 'imported', added: 2 });
    expect(r!.message).toContain(`by Key 2 (${bob.fingerprint}), Key 3 (${carol.fingerprint})`);
    expect(progress(deps, p.id).state).toBe('ready');
    cancelPayment(deps, p.id, 'proof only');
  });
});

describe('PSBT refusals (nothing stored)', () => {
  it('refuses garbage, tampered, foreign, wrongly signed, stale and unknown PSBTs', async () => {
    const p = await propose();
    const { base64 } = await exportPsbt(deps, p.id);
    const good = signedBy(base64, [alice]);

    // Tampered: the unsigned transaction pays one more litoshi (the signature was over the other one).
    const tampered = psbtFromBase64(good);
    const tx = decodeTx(tampered.unsignedTx);
    tx.outputs[0]!.value += 1n;
    tampered.global = tampered.global.map((e) => (e.type === GLOBAL.UNSIGNED_TX ? { ...e, value: encodeTx(tx) } : e));
    // Wrong key: dave (no co-signer) signs the right hash.
    const hash = store.paymentHashes(p.id)[0]!.hash;
    const daveKey = master(dave).derivePath(`${dave.derivationPath}/0/0`);
    const foreign = psbtFromBase64(base64);
    foreign.inputs[0]!.push({ type: INPUT.PARTIAL_SIG, keyData: daveKey.publicKey, value: Uint8Array.of(...signDer(hash, daveKey.privateKey!), 0x01) });
    // Wrong signature: alice's key, but a signature over another hash.
    const spent = store.paymentInputs(p.id)[0]!;
    const aliceKey = master(alice).derivePath(`${alice.derivationPath}/${spent.change ? 1 : 0}/${spent.index}`);
    const wrongSig = psbtFromBase64(base64);
    wrongSig.inputs[0]!.push({ type: INPUT.PARTIAL_SIG, keyData: aliceKey.publicKey, value: Uint8Array.of(...signDer(new Uint8Array(32).fill(7), aliceKey.privateKey!), 0x01) });
    const noneType = psbtFromBase64(base64);
    noneType.inputs[0]!.push({ type: INPUT.PARTIAL_SIG, keyData: aliceKey.publicKey, value: Uint8Array.of(...signDer(hash, aliceKey.privateKey!), 0x02) });

    const results = [
      importPsbtFile(deps, { name: 'garbage.psbt', text: 'this is not base64 at all!' }),
      importPsbtFile(deps, { name: 'not-psbt.psbt', text: Buffer.from('hello world, no magic').toString('base64') }),
      importPsbtFile(deps, { name: 'cut.psbt', text: Buffer.from(encodePsbt(psbtFromBase64(good)).subarray(0, 60)).toString('base64') }),
      importPsbtFile(deps, { name: 'tampered.psbt', text: psbtToBase64(tampered) }),
      importPsbtFile(deps, { name: 'dave.psbt', text: psbtToBase64(foreign) }),
      importPsbtFile(deps, { name: 'wrong-sig.psbt', text: psbtToBase64(wrongSig) }),
      importPsbtFile(deps, { name: 'sighash-none.psbt', text: psbtToBase64(noneType) }),
      importPsbtFile(deps, { name: 'unsigned.psbt', text: base64 }),
    ];
    expect(results.map((r) => [r.file, r.status, r.refusal])).toEqual([
      ['garbage.psbt', 'refused', 'malformed'],
      ['not-psbt.psbt', 'refused', 'malformed'],
      ['cut.psbt', 'refused', 'malformed'],
      ['tampered.psbt', 'refused', 'tampered'],
      ['dave.psbt', 'refused', 'foreign'],
      ['wrong-sig.psbt', 'refused', 'tampered'],
      ['sighash-none.psbt', 'refused', 'tampered'],
      ['unsigned.psbt', 'refused', 'malformed'],
    ]);
    const messages = results.map((r) => r.message);
    expect(messages[0]).toMatch(/garbage.psbt: not a valid PSBT: the text is not base64/);
    expect(messages[1]).toMatch(/does not start with the PSBT magic bytes/);
    expect(messages[2]).toMatch(/not a valid PSBT: .*truncated/);
    expect(messages[3]).toMatch(/spends the coins of payment .* but is not that payment's transaction: its output 0 pays 10000001/);
    expect(messages[4]).toMatch(/key [0-9a-f]{66} does not sign input 0 of payment/);
    expect(messages[5]).toMatch(/the signature of input 0 by key [0-9a-f]{66} does not verify against the input's hash/);
    expect(messages[6]).toMatch(/hash type 0x2, not SIGHASH_ALL/);
    expect(messages[7]).toMatch(/carries no signatures yet/);
    expect(store.signatures(p.id)).toHaveLength(0);

    // A PSBT mixing a good signature with a bad one stores neither.
    const mixed = psbtFromBase64(good);
    mixed.inputs[0]!.push(foreign.inputs[0]!.at(-1)!);
    expect(importPsbtFile(deps, { name: 'mixed.psbt', text: psbtToBase64(mixed) })).toMatchObject({ status: 'refused', refusal: 'foreign' });
    expect(store.signatures(p.id)).toHaveLength(0);

    // Another desk's payment: its transaction is nothing this desk proposed.
    const otherDir = mkdtempSync(join(tmpdir(), 'countersign-other-'));
    const otherStore = openStore(join(otherDir, 'other.sqlite'));
    try {
      const other: BirthdayDeps = { store: otherStore, api: desk.api, actor: 'other' };
      const w = await importWalletSetup(other, [{ name: 'other.txt', text: descriptorOf([carol, alice, bob]) }], { coin: 'litecoin', network: 'regtest', name: 'Other' });
      const a = await nextReceiveAddress(other, w.id);
      await desk.node.fundScript(addressToScript(params, a.address), COIN);
      await desk.mine(1);
      const q = await proposePayment(other, w.id, { to: await desk.node.newAddress('legacy'), amount: COIN / 10n, minersFee: 10_000n });
      const otherPsbt = signedBy((await exportPsbt(other, q.id)).base64, [alice]);
      const unknown = importPsbtFile(deps, { name: 'other-desk.psbt', text: otherPsbt });
      expect(unknown).toMatchObject({ status: 'refused', refusal: 'unknown_request' });
      expect(unknown.message).toMatch(/its transaction is no payment of this desk/);
    } finally {
      otherStore.close();
      rmSync(otherDir, { recursive: true, force: true });
    }

    // The payment's own PSBT once it is cancelled: stale.
    cancelPayment(deps, p.id, 'proof only');
    const stale = importPsbtFile(deps, { name: 'late.psbt', text: good });
    expect(stale).toMatchObject({ status: 'refused', refusal: 'stale' });
    expect(stale.message).toMatch(/is cancelled, no longer awaiting signatures/);
    expect(store.signatures(p.id)).toHaveLength(0);
  });

  it('refuses to export a PSBT when the service hands over a different previous transaction', async () => {
    const p = await propose();
    const real = desk.api;
    const lying = apiWith(real, {
      rawTransaction: async (c, txid) => {
        const raw = await real.rawTransaction(c, txid);
        const tx = decodeTx(Buffer.from(raw.hex, 'hex'));
        tx.locktime += 1;
        return { ...raw, hex: bytesToHex(encodeTx(tx)) };
      },
    });
    await expect(exportPsbt({ ...deps, api: lying }, p.id)).rejects.toThrow(/the service answered previous transaction [0-9a-f]{64} with another transaction \(it hashes to [0-9a-f]{64}\)/);
    cancelPayment(deps, p.id, 'proof only');
    await expect(exportPsbt(deps, p.id)).rejects.toThrow(/is cancelled: it needs no more signatures/);
  });
});

describe('wallet set-up files', () => {
  it('exports BSMS, descriptor and Specter files that read back to the same wallet; Coldcard refuses its key order', () => {
    const cosigners = store.cosigners(walletId).map((c) => ({ xpub: c.xpub, fingerprint: c.fingerprint, derivationPath: c.derivationPath }));
    // Coldcard always sorts the keys: this wallet keeps the co-signers' order, so its Coldcard file
    // would describe other addresses (the desk wrote one before wallets carried their key order).
    expect(() => exportWalletSetup(deps, walletId, 'coldcard')).toThrow(/Coldcard always sorts the keys \(BIP67\)/);
    for (const format of ['bsms', 'descriptor', 'specter'] as const) {
      const file = exportWalletSetup(deps, walletId, format);
      const { wallet, notes } = readWalletSetup([{ name: file.fileName, text: file.text }], { coin: 'litecoin', network: 'regtest', name: 'Again' });
      expect(wallet.m).toBe(2);
      expect(wallet.cosigners.map((c) => ({ xpub: c.xpub, fingerprint: c.fingerprint, derivationPath: c.derivationPath }))).toEqual(cosigners);
      if (format === 'bsms') expect(notes.join()).toMatch(/first address .* matches the record/);
    }
    expect(() => exportWalletSetup(deps, walletId, 'caravan')).toThrow(/Caravan handles Bitcoin wallets only/);
  });

  it('refuses a BSMS record whose first address is not the one its keys give, and key records without a policy', () => {
    const bsms = exportWalletSetup(deps, walletId, 'bsms').text;
    const lines = bsms.split('\n');
    lines[3] = store.addresses(walletId).find((a) => !a.change && a.index === 1)!.address;
    expect(() => readWalletSetup([{ name: 'altered.bsms', text: lines.join('\n') }], { coin: 'litecoin', network: 'regtest' })).toThrow(/first address .* is not the first address .* the record was altered/);
    const keyRecords = [alice, bob, carol].map((c) => ({ name: `${c.name}.bsms`, text: ['BSMS 1.0', '00', bsmsKeyLine(c), c.name].join('\n') }));
    expect(() => readWalletSetup(keyRecords, { coin: 'litecoin', network: 'regtest' })).toThrow(/say how many signatures are required/);
    const fromKeys = readWalletSetup(keyRecords, { coin: 'litecoin', network: 'regtest', m: 2 });
    expect(fromKeys.wallet.cosigners.map((c) => c.name)).toEqual(['alice', 'bob', 'carol']);
    expect(fromKeys.notes[0]).toMatch(/alice.bsms: BSMS key record of alice, unsigned/);
    expect(() => readWalletSetup([{ name: 'w.txt', text: descriptorOf() }], { coin: 'litecoin', network: 'mainnet' })).toThrow(/not a valid litecoin xpub: its version .* is for litecoin testnet, litecoin regtest \(choose the coin and network/);
  });
});
