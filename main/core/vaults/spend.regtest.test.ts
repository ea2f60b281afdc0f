// A vault spent on a chosen path through the desk's one spend pipeline (issue 27), on litecoind
// -regtest with the embedded service: a 2-of-3 vault with a 1-of-2 recovery path after 144 blocks.
// Paid from on the primary path with two signatures; the recovery path refused by the desk before
// it opens (naming the block) and a hand-built recovery spend refused by the node (non-BIP68-final);
// once open, one recovery key spends (by signature file, and by a PSBT litecoind decodes and
// bitcoinjs-lib signs). A refresh (send all to the vault's own fresh address) and a fee bump on the
// primary path. Refused in words, nothing stored: a signature by a key of the other path, a wrong
// signature, a tampered request, a service answer with another nSequence or another witness
// script, a bump of a recovery-path spend.
import { BIP32Factory } from 'bip32';
import { Psbt } from 'bitcoinjs-lib';
import * as ecc from 'tiny-secp256k1';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { plural } from '../../../shared/api/words.ts';
import { miniscriptInputHash, unsignedMiniscriptInput, assembleMiniscriptSpend } from '../../../shared/coins/assemble-miniscript.ts';
import { addressToScript, bytesToHex, chainParams, decodeTx, encodeTx, encodeTxHex, hexToBytes, signDer, txidHex } from '../../../shared/coins/index.ts';
import { compileWshMiniscript, miniscriptPaths } from '../../../shared/coins/miniscript-spend.ts';
import type { BitcoinTx } from '../../../shared/coins/tx.ts';
import { vaultInputSpend } from '../../../shared/coins/vault-spend.ts';
import { SIGNATURE_FORMAT } from '../../../shared/files/signing-files.ts';
import { jsNetwork, testCosigner, type TestCosigner } from '../../../dev/desk-testing/keys.ts';
import { apiWith, fundWalletCoin, signAndSend, startVaultDesk, type RegtestDesk, type WalletDesk } from '../../../dev/desk-testing/regtest.ts';
import type { CoordinatorApi } from '../api.ts';
import { importPaymentFiles } from '../payments/files.ts';
import { progress } from '../payments/payments.ts';
import { exportPsbt } from '../payments/psbt-exchange.ts';
import { proposePayment } from '../payments/propose.ts';
import { proposeBump } from '../payments/replace.ts';
import { importSignatureFiles } from '../payments/signature-import.ts';
import { writeSigningRequest } from '../payments/signing-request.ts';
import { refreshConfirmations, submitPayment } from '../payments/submit.ts';
import { signRequest } from '../software-signer.ts';
import type { CoordinatorStore, PaymentRow } from '../store/store.ts';
import { storedVaultPolicy } from './vaults.ts';
import { nextReceiveAddress, type CoreDeps } from '../wallets/wallets.ts';

const params = chainParams('litecoin', 'regtest');
const COIN = 100_000_000n;
const bip32 = BIP32Factory(ecc);
// bitcoinjs-lib (an independent PSBT signer, playing Sparrow) needs the chain's prefixes; it never sees the node.
const network = jsNetwork(params);
const [alice, bob, carol, dave, erin] = ['alice', 'bob', 'carol', 'dave', 'erin'].map((n) => testCosigner(n)) as [TestCosigner, TestCosigner, TestCosigner, TestCosigner, TestCosigner];

let fixture: WalletDesk;
let desk: RegtestDesk;
let store: CoordinatorStore;
let deps: CoreDeps;
let vaultId = '';
/** The coins spent on the recovery path (by signature file, by PSBT), and the blocks that confirmed them. */
let recoveryCoin = { txid: '', vout: 0, height: 0 };
let psbtCoin = { txid: '', vout: 0, height: 0 };
let bumpCoin = { txid: '', vout: 0, height: 0 };

/** The private key of `c` below its account xpub at `path` ("0/3"). */
const keyAt = (c: TestCosigner, path: string): Uint8Array => bip32.fromBase58(c.accountXprv, { messagePrefix: '', bech32: '', bip32: { public: params.xpubVersions[0]!, private: params.xprvVersions[0]! }, pubKeyHash: 0, scriptHash: 0, wif: params.wifVersion }).derivePath(path).privateKey!;

const fundVault = (amount: bigint) => fundWalletCoin(desk, deps, vaultId, amount);

const tip = () => desk.node.rpc.call<number>('getblockcount', []);

beforeAll(async () => {
  // Its node relays replacements (as the demo's does): a primary-path payment is bumped.
  fixture = await startVaultDesk();
  ({ desk, store, deps, walletId: vaultId } = fixture);
  await fundVault(2n * COIN);
  recoveryCoin = await fundVault(COIN);
  psbtCoin = await fundVault(COIN);
  bumpCoin = await fundVault(COIN);
}, 300_000);
afterAll(async () => {
  await fixture?.dispose();
});

describe('a vault spent on its primary path', () => {
  let p: PaymentRow;
  it('is proposed through the one pipeline: version 2, final sequence, the hashes of the primary keys only, change back to the vault', async () => {
    const coin = (await desk.api.utxos('litecoin', store.addresses(vaultId).map((a) => a.address))).utxos.find((u) => u.amount === 2n * COIN)!;
    const to = await desk.node.newAddress('bech32');
    p = await proposePayment(deps, vaultId, { to, amount: COIN / 2n, minersFee: 0n, feeRate: 3n, inputs: [`${coin.txid}:${coin.vout}`] });
    const tx = decodeTx(p.unsignedTx, params) as BitcoinTx;
    expect(tx.version).toBe(2);
    expect(tx.inputs.map((i) => i.sequence)).toEqual([0xffffffff]);
    const owner = store.addresses(vaultId).find((a) => !a.change && a.index === 0)!;
    const spend = vaultInputSpend(params, storedVaultPolicy(deps, store.wallet(vaultId)!), false, 0, 0);
    expect(store.paymentHashes(p.id).map((h) => bytesToHex(h.publicKey))).toEqual(spend.pathKeys.map((k) => bytesToHex(k.publicKey)));
    expect(bytesToHex(store.paymentInputs(p.id)[0]!.redeemScript)).toBe(bytesToHex(owner.redeemScript));
    const change = store.addresses(vaultId).find((a) => a.change && tx.outputs.some((o) => bytesToHex(o.script) === bytesToHex(addressToScript(params, a.address))));
    expect(change).toBeDefined();
    expect(progress(deps, p.id).inputs).toEqual([{ inputIndex: 0, required: 2, signed: 0, signers: [] }]);
  });

  it('refuses in words, storing nothing: a recovery key asked to sign, a wrong signature, a tampered request', async () => {
    const request = await writeSigningRequest(deps, p.id);
    expect(() => signRequest(request, { xprv: dave.accountXprv })).toThrow('dave holds no key of the path this payment is spent on (the primary path): there is nothing to sign');
    const good = signRequest(request, { xprv: bob.accountXprv }).file;
    const file = JSON.parse(good) as { signatures: { signature: string }[] };
    const sig = file.signatures[0]!.signature;
    file.signatures[0]!.signature = sig.slice(0, -2) + (sig.endsWith('00') ? '01' : '00');
    const [wrong] = importSignatureFiles(deps, [{ name: 'bob-wrong.json', text: JSON.stringify(file) }]);
    expect(wrong).toMatchObject({ status: 'refused', refusal: 'tampered' });
    expect(wrong!.message).toMatch(/bob-wrong\.json: the signature of input 0 by bob does not verify/);
    const altered = request.replace(/"amount": "50000000"/, '"amount": "40000000"');
    expect(altered).not.toBe(request);
    expect(() => signRequest(altered, { xprv: alice.accountXprv })).toThrow('output 0 (payment) pays 0.5 LTC (regtest) instead of 0.4 LTC (regtest)');
    expect(store.signatures(p.id)).toEqual([]);
  });

  it('two primary signatures: submitted, the txid the one proposed, confirmed', async () => {
    const { payment } = await signAndSend(deps, p, [alice, carol]);
    expect(payment.state).toBe('broadcast');
    expect(payment.txid).toBe(txidHex(decodeTx(p.unsignedTx, params)));
    await desk.mine(1);
    expect((await refreshConfirmations(deps, p.id)).state).toBe('confirmed');
    const onChain = await desk.node.rpc.call<{ vin: { txinwitness: string[] }[] }>('getrawtransaction', [payment.txid, true]);
    // The cheapest satisfaction of 2-of-3: the dummy, two signatures, the witness script.
    expect(onChain.vin[0]!.txinwitness).toHaveLength(4);
  });

  it('a refresh: the change coin sent whole to the vault\'s own fresh address on the primary path, at a rate, restarts its clock', async () => {
    const change = store.addresses(vaultId).find((a) => a.change && a.index === 0)!;
    const coin = (await desk.api.utxos('litecoin', [change.address])).utxos[0]!;
    const to = (await nextReceiveAddress(deps, vaultId)).address;
    // The call shape the wallet screen's refresh uses.
    const refresh = await proposePayment(deps, vaultId, { to, amount: 0n, minersFee: 0n, feeRate: 2n, sendAll: true, inputs: [`${coin.txid}:${coin.vout}`], vaultPath: 0, purpose: 'refresh' });
    const tx = decodeTx(refresh.unsignedTx, params);
    expect(tx.outputs.map((o) => [bytesToHex(o.script), o.value])).toEqual([[bytesToHex(addressToScript(params, to)), coin.amount - refresh.minersFee]]);
    expect(refresh.minersFee % 2n).toBe(0n);
    const { payment } = await signAndSend(deps, refresh, [alice, bob]);
    await desk.mine(1);
    expect((await refreshConfirmations(deps, payment.id)).state).toBe('confirmed');
    const fresh = (await desk.api.utxos('litecoin', [to])).utxos[0]!;
    expect(fresh.height).toBe(await tip());
  });
});

describe('a vault spent on its recovery path', () => {
  const outpoint = () => `${recoveryCoin.txid}:${recoveryCoin.vout}`;
  const opens = () => recoveryCoin.height + 144;

  it('is refused by the desk before the path opens, naming the block; a hand-built spend is refused by the node (non-BIP68-final)', async () => {
    const to = await desk.node.newAddress('bech32');
    const now = await tip();
    await expect(proposePayment(deps, vaultId, { to, amount: COIN / 4n, minersFee: 0n, feeRate: 3n, inputs: [outpoint()], vaultPath: 144 })).rejects.toThrow(
      `the path of 1 of dave, erin is not open yet: ${outpoint()} confirmed in block ${recoveryCoin.height}, so this path opens at block ${opens()}; the chain is at block ${now}, ${plural(opens() - 1 - now, 'block')} to go`,
    );
    // Built and signed by hand with one recovery key, sequence 144, sent straight to the node.
    const owner = store.addresses(vaultId).find((a) => !a.change && a.index === 1)!;
    const spend = vaultInputSpend(params, storedVaultPolicy(deps, store.wallet(vaultId)!), false, 1, 144);
    expect(owner.address).toBe(spend.address.address);
    const compiled = compileWshMiniscript(spend.descriptor.slice(4, -1));
    const unsigned: BitcoinTx = {
      version: 2,
      inputs: [{ prevTxid: hexToBytes(recoveryCoin.txid), vout: recoveryCoin.vout, scriptSig: new Uint8Array(0), sequence: 144, witness: unsignedMiniscriptInput(compiled, 1).witness }],
      outputs: [{ value: COIN - 10_000n, script: addressToScript(params, to) }],
      locktime: 0,
    };
    const input = { compiled, paths: miniscriptPaths(compiled), path: 1, amount: COIN, scriptPubKey: spend.address.scriptPubKey };
    const hash = miniscriptInputHash(params, unsigned, 0, input);
    const daveKey = spend.pathKeys.find((k) => k.key === 3)!;
    const hand = assembleMiniscriptSpend(params, unsigned, [input], [{ inputIndex: 0, publicKey: daveKey.publicKey, signature: signDer(hash, keyAt(dave, daveKey.path)) }]);
    await expect(desk.node.rpc.call('sendrawtransaction', [encodeTxHex(hand)])).rejects.toThrow(/non-BIP68-final/);
  });

  it('once open: a service answer with another nSequence or another witness script is refused in words, nothing stored', async () => {
    await desk.mine(opens() - 1 - (await tip()));
    const to = await desk.node.newAddress('bech32');
    const before = store.payments(vaultId).length;
    const ask = { to, amount: COIN / 4n, minersFee: 0n, feeRate: 3n, inputs: [outpoint()], vaultPath: 144 };
    const later: CoreDeps = {
      ...deps,
      api: apiWith(desk.api, { createMultisig: (coin, body) => desk.api.createMultisig(coin, { ...body, redeem_scripts: body.redeem_scripts.map((r) => ({ ...r, sequence: 200 })) }) } satisfies Partial<CoordinatorApi>),
    };
    await expect(proposePayment(later, vaultId, ask)).rejects.toThrow('refusing the proposed payment: input 0 has nSequence 0xc8: input 0 is locked for 200 blocks (about 8.3 hours) after its coin confirms; the payment asked for spends it with nSequence 144 (older(144))');
    // The service's transaction spends with the witness script of another of the vault's scripts.
    const other = compileWshMiniscript(vaultInputSpend(params, storedVaultPolicy(deps, store.wallet(vaultId)!), false, 40, 144).descriptor.slice(4, -1));
    const swapped: CoreDeps = {
      ...deps,
      api: apiWith(desk.api, {
        createMultisig: async (coin, body) => {
          const real = await desk.api.createMultisig(coin, body);
          const tx = decodeTx(hexToBytes(real.tx), params) as BitcoinTx;
          const forged = { ...tx, inputs: tx.inputs.map((i) => ({ ...i, witness: unsignedMiniscriptInput(other, 1).witness })) };
          return { ...real, tx: bytesToHex(encodeTx(forged)) };
        },
      } satisfies Partial<CoordinatorApi>),
    };
    await expect(proposePayment(swapped, vaultId, ask)).rejects.toThrow("refusing the proposed payment: input 0's witness script is not the one this vault derives for any of its addresses");
    expect(store.payments(vaultId)).toHaveLength(before);
  });

  it('one recovery key signs and it confirms; a primary key\'s signature is refused in words', async () => {
    const to = await desk.node.newAddress('bech32');
    const p = await proposePayment(deps, vaultId, { to, amount: COIN / 4n, minersFee: 0n, feeRate: 3n, inputs: [outpoint()], vaultPath: 144 });
    const tx = decodeTx(p.unsignedTx, params) as BitcoinTx;
    expect([tx.version, tx.inputs[0]!.sequence]).toEqual([2, 144]);
    const spend = vaultInputSpend(params, storedVaultPolicy(deps, store.wallet(vaultId)!), false, 1, 144);
    expect(store.paymentHashes(p.id).map((h) => bytesToHex(h.publicKey))).toEqual(spend.pathKeys.map((k) => bytesToHex(k.publicKey)));
    expect(progress(deps, p.id).inputs).toEqual([{ inputIndex: 0, required: 1, signed: 0, signers: [] }]);

    const request = await writeSigningRequest(deps, p.id);
    expect(() => signRequest(request, { xprv: alice.accountXprv })).toThrow('alice holds no key of the path this payment is spent on (the path that opens after 144 blocks)');
    // Alice's key of the primary path signs the right hash anyway, by hand: refused, nothing stored.
    const aliceKey = Object.values(spend.address.derived).find((d) => d.key === 0)!;
    const hash = hexToBytes(JSON.parse(request).inputs[0].hash as string);
    const forged = { format: SIGNATURE_FORMAT, version: 1, request_id: p.id, payment_hash: JSON.parse(request).payment_hash, signer: { name: 'alice', xpub: alice.xpub }, signatures: [{ input_index: 0, public_key: bytesToHex(aliceKey.publicKey), signature: bytesToHex(signDer(hash, keyAt(alice, aliceKey.path))) }], created_at: new Date().toISOString() };
    const [byAlice] = importSignatureFiles(deps, [{ name: 'alice.json', text: JSON.stringify(forged) }]);
    expect(byAlice).toMatchObject({ status: 'refused', refusal: 'foreign' });
    expect(byAlice!.message).toBe(`alice.json: alice's key ${bytesToHex(aliceKey.publicKey)} signs another path of the vault; input 0 is spent on the path of 1 of dave, erin after 144 blocks, so only those keys' signatures are taken`);
    expect(store.signatures(p.id)).toEqual([]);

    const { payment } = await signAndSend(deps, p, [erin]);
    expect(payment.state).toBe('broadcast');
    await desk.mine(1);
    expect((await refreshConfirmations(deps, p.id)).state).toBe('confirmed');
    const onChain = await desk.node.rpc.call<{ vin: { sequence: number; txinwitness: string[] }[] }>('getrawtransaction', [payment.txid, true]);
    expect(onChain.vin[0]!.sequence).toBe(144);
  });
});

describe('a vault payment on its recovery path through a PSBT', () => {
  it('carries the witness script, both UTXO forms, the recovery keys\' origins, version 2 and nSequence 144 (litecoind decodes it); a primary key\'s signature is refused, a recovery key\'s taken, and it confirms', async () => {
    const to = await desk.node.newAddress('bech32');
    const p = await proposePayment(deps, vaultId, { to, amount: COIN / 4n, minersFee: 0n, feeRate: 3n, inputs: [`${psbtCoin.txid}:${psbtCoin.vout}`], vaultPath: 144 });
    const { base64 } = await exportPsbt(deps, p.id);
    const spend = vaultInputSpend(params, storedVaultPolicy(deps, store.wallet(vaultId)!), false, 2, 144);

    // The node as an independent reader of the PSBT's fields.
    const decoded = await desk.node.rpc.call<{
      tx: { version: number; vin: { sequence: number }[] };
      inputs: { witness_utxo: { amount: number; scriptPubKey: { hex: string } }; non_witness_utxo: unknown; witness_script: { hex: string }; bip32_derivs: { pubkey: string; master_fingerprint: string; path: string }[] }[];
      outputs: { witness_script?: { hex: string }; bip32_derivs?: unknown[] }[];
    }>('decodepsbt', [base64]);
    expect(decoded.tx.version).toBe(2);
    expect(decoded.tx.vin.map((v) => v.sequence)).toEqual([144]);
    const inp = decoded.inputs[0]!;
    expect(inp.non_witness_utxo).toBeDefined();
    expect(inp.witness_utxo.amount).toBe(1);
    expect(inp.witness_utxo.scriptPubKey.hex).toBe(bytesToHex(spend.address.scriptPubKey));
    expect(inp.witness_script.hex).toBe(bytesToHex(spend.witnessScript));
    expect(inp.bip32_derivs.map((d) => [d.pubkey, d.master_fingerprint, d.path])).toEqual([
      [bytesToHex(spend.pathKeys[0]!.publicKey), dave.fingerprint, "m/45'/0'/0/2"],
      [bytesToHex(spend.pathKeys[1]!.publicKey), erin.fingerprint, "m/45'/0'/0/2"],
    ]);
    // The node finds each input's UTXO and reads the fee from them: the one the desk stored. (It
    // names the next role 'updater': Core 0.21's signer knows standard scripts only, not miniscript.)
    const analysed = await desk.node.rpc.call<{ inputs: { has_utxo: boolean }[]; fee: number }>('analyzepsbt', [base64]);
    expect(analysed.inputs.map((i) => i.has_utxo)).toEqual([true]);
    expect(BigInt(Math.round(analysed.fee * 1e8))).toBe(p.minersFee);
    // The change back to the vault is marked as its own (witness script and every key's origin).
    expect(decoded.outputs.filter((o) => o.witness_script)).toHaveLength(1);

    // Alice (a primary key) signs it in another wallet anyway: refused in words, nothing stored.
    const aliceKey = Object.values(spend.address.derived).find((d) => d.key === 0)!;
    const byAlice = Psbt.fromBase64(base64, { network });
    byAlice.signInput(0, bip32.fromBase58(alice.accountXprv, network).derivePath(aliceKey.path));
    const [refusedAlice] = importPaymentFiles(deps, [{ name: 'alice.psbt', text: byAlice.toBase64() }]);
    expect(refusedAlice).toMatchObject({ status: 'refused', refusal: 'foreign' });
    expect(refusedAlice!.message).toBe(`alice.psbt: alice's key ${bytesToHex(aliceKey.publicKey)} signs another path of the vault; input 0 is spent on the path of 1 of dave, erin after 144 blocks, so only those keys' signatures are taken`);
    expect(store.signatures(p.id)).toEqual([]);

    // Dave signs it in another wallet, found through the derivations (his master key): taken, ready, sent.
    const byDave = Psbt.fromBase64(base64, { network });
    byDave.signAllInputsHD(bip32.fromBase58(dave.masterXprv, network));
    const [fromDave] = importPaymentFiles(deps, [{ name: 'dave.psbt', text: byDave.toBase64() }]);
    expect(fromDave).toMatchObject({ status: 'imported', added: 1 });
    expect(fromDave!.message).toBe('dave.psbt: 1 signature by dave imported from the PSBT');
    expect(progress(deps, p.id)).toMatchObject({ state: 'ready', complete: true });
    const sent = await submitPayment(deps, p.id);
    expect(sent.txid).toBe(txidHex(decodeTx(p.unsignedTx, params)));
    await desk.mine(1);
    expect((await refreshConfirmations(deps, p.id)).state).toBe('confirmed');
  });
});

describe('replacing a vault payment', () => {
  it('a recovery-path spend is not bumped, in words; a primary-path payment is, on its own path, and confirms in place of the original', async () => {
    const to = await desk.node.newAddress('bech32');
    const recovery = await proposePayment(deps, vaultId, { to, amount: COIN / 4n, minersFee: 0n, feeRate: 1n, inputs: [`${bumpCoin.txid}:${bumpCoin.vout}`], vaultPath: 144 });
    const sent = (await signAndSend(deps, recovery, [erin])).payment;
    await desk.synced();
    await expect(proposeBump(deps, recovery.id, 10n)).rejects.toThrow(`refusing the replacement: payment ${recovery.id} spends on the vault's path that opens after 144 blocks; a replacement of such a spend is not sent by the service yet`);
    await desk.mine(1);
    expect((await refreshConfirmations(deps, recovery.id)).state).toBe('confirmed');

    // Its change, a vault coin, paid on the primary path, replaceable, then bumped.
    const change = decodeTx(recovery.unsignedTx, params).outputs.length - 1;
    const p = await proposePayment(deps, vaultId, { to, amount: COIN / 10n, minersFee: 0n, feeRate: 1n, inputs: [`${sent.txid}:${change}`], replaceable: true });
    expect(decodeTx(p.unsignedTx, params).inputs.map((i) => i.sequence)).toEqual([0xfffffffd]);
    await signAndSend(deps, p, [alice, bob]);
    await desk.synced();
    const bump = await proposeBump(deps, p.id, 10n);
    expect(decodeTx(bump.unsignedTx, params).inputs.map((i) => i.sequence)).toEqual([0xfffffffd]);
    expect(store.paymentHashes(bump.id)).toHaveLength(3); // the primary keys of its one input
    expect(bump.minersFee).toBeGreaterThan(p.minersFee);
    await signAndSend(deps, bump, [bob, carol]);
    await desk.mine(1);
    expect((await refreshConfirmations(deps, bump.id)).state).toBe('confirmed');
  });
});
