// A co-signer signs a miniscript vault's payment (issue 27) on a Ledger, replayed at the transport
// level against the Bitcoin app >= 2.1 protocol (dev/ledger-testing): the vault's BIP388 policy is
// registered (the same policy the desk exports), the device is sent a PSBT naming the chosen path's
// keys, and each signature it yields goes through the signature files' checks: BIP143 digest by
// bitcoinjs-lib (independent of the desk's sighash code) over version 2 and the path's nSequence,
// and the key one of the chosen path's. A device holding no key of the path is refused in words.
import { Transaction } from 'bitcoinjs-lib';
import { afterEach, describe, expect, it } from 'vitest';
import { bytesToHex, concatBytes, encodeTx, signDer } from '../../../shared/coins/index.ts';
import { parseWalletPolicy } from '../../../shared/files/miniscript-descriptor.ts';
import { progress } from '../payments/payments.ts';
import type { FileResult } from '../payments/signature-import.ts';
import { exportVault } from '../vaults/vaults.ts';
import { walletAddress as deskAddress } from '../wallets/script.ts';
import { registerWalletOnLedger, showAddressOnLedger, signPaymentOnLedger } from './ledger-flows.ts';
import { appAndVersion, ascii, masterFingerprint, policyId, registerWallet, replay, Session, sha256, signPsbt, u8, walletAddress } from '../../../dev/ledger-testing/apdu.ts';
import { hmacOf, readsVaultInput, signVaultPsbtCommand, vaultPolicyOf } from '../../../dev/ledger-testing/bitcoin-expect.ts';
import { disposeLedgerFixtures, vaultLedgerFixture, type VaultLedgerFixture } from '../../../dev/ledger-testing/fixtures.ts';

afterEach(disposeLedgerFixtures);

/** The device holder's key at 0/0 below its account (m/45'/0'), which signs input 0; a decayed path's at 2/0. */
const deviceKey = (f: VaultLedgerFixture) => f.device.derivePath(`m/45'/0'/${f.shape === 'decaying' && f.blocks > 0 ? 2 : 0}/0`);

/** BIP143 over the witness script and 100 000 of input 0, by bitcoinjs-lib, of `tx` (default the payment). */
const bip143 = (f: VaultLedgerFixture, tx = f.unsignedTx) => Transaction.fromBuffer(Buffer.from(encodeTx(tx))).hashForWitnessV0(0, Buffer.from(f.witnessScript), 100_000n, 0x01);

const yieldOf = (f: VaultLedgerFixture, hash: Uint8Array, key = deviceKey(f)) => ({ input: 0, pubkey: key.publicKey, signature: concatBytes(signDer(hash, key.privateKey!), u8(0x01)) });

function opened(f: VaultLedgerFixture, s: Session = new Session()): Session {
  appAndVersion(s, 'Bitcoin Test', '2.1.3');
  return masterFingerprint(s, f.holder.fingerprint);
}

const registered = (f: VaultLedgerFixture): Session => registerWallet(opened(f), vaultPolicyOf(f), hmacOf(vaultPolicyOf(f)));

/** The desk registers the vault on the device, then signs its payment; the device yields `yields`. Every scripted exchange is used. */
async function signRegistered(f: VaultLedgerFixture, yields: Parameters<typeof signPsbt>[3]): Promise<FileResult> {
  const s = registered(f);
  opened(f, s);
  signPsbt(s, signVaultPsbtCommand(f, vaultPolicyOf(f)), vaultPolicyOf(f), yields, readsVaultInput(f));
  const r = replay(s);
  await registerWalletOnLedger(f.deps, r.connector, f.wallet.id);
  const result = await signPaymentOnLedger(f.deps, r.connector, f.paymentId);
  r.done();
  return result;
}

describe('a vault on the Bitcoin app >= 2.1: its BIP388 policy', () => {
  it('registers the policy the desk exports (template over @i/**, keys [fingerprint/path]xpub) and stores the HMAC', async () => {
    const f = vaultLedgerFixture(0, 'alice');
    const exported = parseWalletPolicy(exportVault(f.deps, f.wallet.id, 'bip388'));
    expect(exported.policy.template).toBe(vaultPolicyOf(f).template);
    const r = replay(registered(f));
    const got = await registerWalletOnLedger(f.deps, r.connector, f.wallet.id);
    r.done();
    expect(got).toMatchObject({ position: 0, cosigner: 'alice', policy_id: bytesToHex(policyId(vaultPolicyOf(f))) });
    expect(f.store.ledger.list(f.wallet.id)[0]).toMatchObject({ policyName: 'Treasury', descriptorTemplate: vaultPolicyOf(f).template, keyInfos: vaultPolicyOf(f).keys });
  });

  it("shows the vault's receive address the device derives from the policy, equal to ours", async () => {
    const f = vaultLedgerFixture(0, 'dave');
    const ours = deskAddress(f.params, f.wallet, f.cosigners.map((c) => c.xpub), false, 0);
    expect(ours.address.startsWith('tb1q')).toBe(true);
    const s = registered(f);
    opened(f, s);
    walletAddress(s, vaultPolicyOf(f), hmacOf(vaultPolicyOf(f)), 0, 0, ours.address);
    const r = replay(s);
    await registerWalletOnLedger(f.deps, r.connector, f.wallet.id);
    expect(await showAddressOnLedger(f.deps, r.connector, f.wallet.id, false, 0)).toEqual({ address: ours.address, path: '0/0', cosigner: 'dave' });
    r.done();
  });
});

describe('a vault payment signed on a (replayed) Ledger', () => {
  it('on the primary path: alice signs a PSBT of version 2 naming the primary keys; her verified signature is stored (1 of 2)', async () => {
    const f = vaultLedgerFixture(0, 'alice');
    expect(bytesToHex(f.hash)).toBe(bytesToHex(bip143(f)));
    const result = await signRegistered(f, [yieldOf(f, bip143(f))]);
    expect(result).toMatchObject({ status: 'imported', added: 1, message: expect.stringMatching(/1 signature by alice stored/) });
    expect(progress(f.deps, f.paymentId)).toMatchObject({ state: 'awaiting_signatures', inputs: [{ inputIndex: 0, required: 2, signed: 1, signers: ['alice'] }] });
  });

  it('on the recovery path: dave signs with nSequence 144; his one signature completes the path', async () => {
    const f = vaultLedgerFixture(144, 'dave');
    expect(f.unsignedTx.inputs[0]!.sequence).toBe(144);
    expect(bytesToHex(f.hash)).toBe(bytesToHex(bip143(f)));
    const result = await signRegistered(f, [yieldOf(f, bip143(f))]);
    expect(result).toMatchObject({ status: 'imported', added: 1 });
    expect(progress(f.deps, f.paymentId)).toMatchObject({ state: 'ready', complete: true, inputs: [{ required: 1, signed: 1, signers: ['dave'] }] });
  });

  it("a decaying vault after 144 blocks: carol's Ledger signs with her key's second use (@2/<2;3>/*, branch 2); 1 of 3 completes it", async () => {
    const f = vaultLedgerFixture(144, 'carol', { shape: 'decaying' });
    expect(f.wallet.vaultTemplate).toBe(vaultPolicyOf(f).template);
    expect(bytesToHex(f.hash)).toBe(bytesToHex(bip143(f)));
    const result = await signRegistered(f, [yieldOf(f, bip143(f))]);
    expect(result).toMatchObject({ status: 'imported', added: 1, message: expect.stringMatching(/by carol stored/) });
    expect(progress(f.deps, f.paymentId)).toMatchObject({ state: 'ready', inputs: [{ required: 1, signed: 1, signers: ['carol'] }] });
  });

  it("a decaying vault on the primary path: a signature by the device's own key of the decayed path (branch 2) is refused", async () => {
    const f = vaultLedgerFixture(0, 'carol', { shape: 'decaying' });
    const secondUse = f.device.derivePath("m/45'/0'/2/0");
    const result = await signRegistered(f, [yieldOf(f, bip143(f), secondUse)]);
    expect(result).toMatchObject({ status: 'refused', refusal: 'foreign', message: expect.stringMatching(/carol's key [0-9a-f]{66} signs another path of the vault/) });
    expect(f.store.signatures(f.paymentId)).toEqual([]);
  });

  it('a Ledger that has not registered the policy is asked to register it first, in the same session, then signs', async () => {
    const f = vaultLedgerFixture(144, 'erin');
    const s = registerWallet(opened(f), vaultPolicyOf(f), hmacOf(vaultPolicyOf(f)));
    signPsbt(s, signVaultPsbtCommand(f, vaultPolicyOf(f)), vaultPolicyOf(f), [yieldOf(f, bip143(f))], readsVaultInput(f));
    const r = replay(s);
    expect(await signPaymentOnLedger(f.deps, r.connector, f.paymentId)).toMatchObject({ status: 'imported', added: 1, message: expect.stringMatching(/by erin stored/) });
    r.done();
    expect(f.store.ledger.list(f.wallet.id)).toMatchObject([{ position: 4, descriptorTemplate: vaultPolicyOf(f).template }]);
  });

  it('a Ledger whose key is not on the chosen path is refused in words before it registers or signs anything', async () => {
    const f = vaultLedgerFixture(0, 'dave');
    const r = replay(opened(f));
    await expect(signPaymentOnLedger(f.deps, r.connector, f.paymentId)).rejects.toMatchObject({
      code: 'ledger_wrong_key',
      message: expect.stringMatching(/holds dave's key, which does not sign on the path this payment is spent on, the primary path \(2 of alice, bob, carol\)/),
    });
    r.done();
    expect(f.store.ledger.list(f.wallet.id)).toEqual([]);
    expect(f.store.signatures(f.paymentId)).toEqual([]);
  });

  it("a signature by another path's key (the device lies) is refused naming whose it is: nothing stored", async () => {
    const f = vaultLedgerFixture(0, 'alice');
    const dave = vaultLedgerFixture(0, 'dave');
    const daveKey = dave.device.derivePath("m/45'/0'/0/0");
    const result = await signRegistered(f, [yieldOf(f, bip143(f)), yieldOf(f, bip143(f), daveKey)]);
    expect(result).toMatchObject({
      status: 'refused',
      refusal: 'foreign',
      message: expect.stringMatching(/dave's key [0-9a-f]{66} signs another path of the vault; input 0 is spent on the primary path \(2 of alice, bob, carol\)/),
    });
    expect(f.store.signatures(f.paymentId)).toEqual([]);
  });

  it('a signature over the digest without the path\'s nSequence (a final input) is refused: nothing stored', async () => {
    const f = vaultLedgerFixture(144, 'dave');
    const final = { ...f.unsignedTx, inputs: f.unsignedTx.inputs.map((i) => ({ ...i, sequence: 0xffffffff })) };
    const result = await signRegistered(f, [yieldOf(f, bip143(f, final))]);
    expect(result).toMatchObject({ status: 'refused', refusal: 'tampered', message: expect.stringMatching(/does not verify/) });
    expect(f.store.signatures(f.paymentId)).toEqual([]);
  });

  it('a signature over another message is refused: nothing stored', async () => {
    const f = vaultLedgerFixture(0, 'bob');
    const result = await signRegistered(f, [yieldOf(f, sha256(ascii('not this payment')))]);
    expect(result).toMatchObject({ status: 'refused', refusal: 'tampered' });
    expect(f.store.signatures(f.paymentId)).toEqual([]);
  });

  it('a litecoin vault on the Litecoin app (no wallet policies) is refused in words before any of the payment is sent', async () => {
    const f = vaultLedgerFixture(0, 'alice', { coin: 'litecoin', network: 'mainnet' });
    const r = replay(appAndVersion(new Session(), 'Litecoin', '2.4.2'));
    await expect(signPaymentOnLedger(f.deps, r.connector, f.paymentId)).rejects.toMatchObject({
      code: 'ledger_app_too_old',
      message: expect.stringMatching(/the Litecoin app \(version 2\.4\.2\) cannot sign for "Treasury", a vault with recovery paths: .*Bitcoin app 2\.1 or later.* signing request or export the payment as a PSBT/),
    });
    r.done();
  });
});
