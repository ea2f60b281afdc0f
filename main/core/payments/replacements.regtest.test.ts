// Stuck payments on a real litecoind -regtest (started with -mempoolreplacement=1: Litecoin Core
// 0.21 replaces nothing without it) and the embedded service: a 2-of-3 payment sent at 1 unit/vbyte
// and held unconfirmed is bumped to 20 (the node's mempool holds the replacement, not the original;
// a block confirms it; the desk shows the original dropped), a cancel, a bump that pays no more
// (refused in the service's words, nothing stored), signatures of the original refused for its
// replacement, and a child-pays-for-parent whose package rate the node's ancestor figures confirm.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addressToScript, chainParams, decodeTx, decodeTxHex, encodeTxHex, hexToBytes } from '../../../shared/coins/index.ts';
import { childFee, proposeCpfp, rateText } from './cpfp.ts';
import { replacementView } from '../../bridge/replacement-view.ts';
import { proposePayment } from './propose.ts';
import { proposeBump, proposeCancel, whyNotReplaceable } from './replace.ts';
import { importSignatureFiles } from './signature-import.ts';
import { writeSigningRequest } from './signing-request.ts';
import { signRequest } from '../software-signer.ts';
import { openStore, type CoordinatorStore, type PaymentRow } from '../store/store.ts';
import { refreshConfirmations, submitPayment } from './submit.ts';
import { testCosigner } from '../../../dev/desk-testing/keys.ts';
import { apiWith, startRegtestDesk, type RegtestDesk, fundWallet, signAndSend as signSubmit, startWalletDesk, type WalletDesk } from '../../../dev/desk-testing/regtest.ts';
import { proposeTreasurySpend } from './spend.ts';
import { followBroadcastPayments } from '../payment-follower.ts';
import { createWallet, nextReceiveAddress, type CoreDeps } from '../wallets/wallets.ts';

const params = chainParams('litecoin', 'regtest');
const COIN = 100_000_000n;
const [alice, bob, carol] = [testCosigner('alice'), testCosigner('bob'), testCosigner('carol')];

let fixture: WalletDesk;
let desk: RegtestDesk;
let store: CoordinatorStore;
let deps: CoreDeps;
let walletId: string;
/** Alice's signature file of each payment sent, by payment id. */
const aliceFiles = new Map<string, string>();

const mempool = () => desk.node.rpc.call<string[]>('getrawmempool');
interface MempoolEntry {
  vsize: number;
  fees: { base: number; ancestor: number };
  ancestorsize: number;
}
const entry = (txid: string) => desk.node.rpc.call<MempoolEntry>('getmempoolentry', [txid]);
/** Litecoins as the node's JSON number, in units (8 decimals, exact for these sizes). */
const units = (ltc: number) => BigInt(Math.round(ltc * 1e8));

/** Alice and Bob sign the payment's request; the payment is then submitted. */
/** Alice and bob sign and the desk submits; alice's file is kept (a stale file is imported again later). */
async function signAndSend(p: PaymentRow): Promise<PaymentRow> {
  const { payment, files } = await signSubmit(deps, p, [alice, bob]);
  aliceFiles.set(p.id, files[0]!.text);
  return payment;
}

/** A replaceable payment of `amount` at 1 unit/vbyte from the wallet's output `txid:vout`, broadcast. */
async function stuckPayment(outpoint: { txid: string; vout: number }, amount: bigint): Promise<PaymentRow> {
  const to = await desk.node.newAddress('legacy');
  const p = await proposeTreasurySpend(deps, walletId, { to, amount, inputs: [outpoint], fee: { rate: 1n }, replaceable: true, kind: 'payment' });
  const sent = await signAndSend(p);
  expect(sent.state).toBe('broadcast');
  await desk.synced();
  return sent;
}

/** The wallet's unspent outputs holding exactly `amount`. */
async function outputOf(amount: bigint): Promise<{ txid: string; vout: number }> {
  const { utxos } = await desk.api.utxos('litecoin', store.addresses(walletId).map((a) => a.address));
  const u = utxos.find((x) => x.amount === amount);
  if (!u) throw new Error(`no output of ${amount}`);
  return { txid: u.txid, vout: u.vout };
}

/** A new output of `amount` to the wallet's next receive address, confirmed. */
async function fundedOutput(amount: bigint): Promise<{ txid: string; vout: number }> {
  await fundWallet(desk, deps, walletId, amount);
  return outputOf(amount);
}

beforeAll(async () => {
  // A desk of its own: a node relaying replacements and an empty 2-of-3 wallet of alice, bob and carol.
  fixture = await startWalletDesk('Treasury');
  ({ desk, store, deps, walletId } = fixture);
});
afterAll(async () => fixture?.dispose());

describe('a fee bump', () => {
  it('replaces a payment stuck at 1 unit/vbyte with one at 20; a block confirms it and the original is dropped', async () => {
    const original = await stuckPayment(await fundedOutput(2n * COIN), COIN / 2n);
    expect(await mempool()).toContain(original.txid);
    expect(whyNotReplaceable(deps, original, true)).toBeNull();
    expect(replacementView(deps, original, true)).toMatchObject({ relief: 'replace', replaced_by: null, not_replaceable: null });

    // A bump that pays no more: refused in the service's words, with both figures; nothing stored.
    const before = store.payments(walletId).length;
    await expect(proposeBump(deps, original.id, 1n)).rejects.toThrow(/refusing the fee bump: .*this one pays 0\.\d+ LTC \(regtest\) at 1\.\d\d litoshi\/vB .* pays 0\.\d+ LTC \(regtest\) in total .*the fee is not higher/);
    expect(store.payments(walletId)).toHaveLength(before);

    const bump = await proposeBump(deps, original.id, 20n);
    expect(bump).toMatchObject({ kind: 'bump', replaces: original.id, to: original.to, amount: original.amount, state: 'awaiting_signatures' });
    expect(bump.minersFee).toBeGreaterThan(original.minersFee * 15n);
    // Same inputs, the change reduced by the fee difference.
    const txOf = (p: PaymentRow) => decodeTx(p.unsignedTx, params);
    expect(txOf(bump).inputs.map((i) => i.vout)).toEqual(txOf(original).inputs.map((i) => i.vout));
    expect(txOf(bump).inputs.every((i) => i.sequence === 0xfffffffd)).toBe(true);
    expect(txOf(bump).outputs[1]!.value).toBe(txOf(original).outputs[1]!.value - (bump.minersFee - original.minersFee));
    // A second replacement of the same payment waits for the first.
    expect(whyNotReplaceable(deps, original, true)).toMatch(/already replaces it/);

    // The original's signature files do not sign the replacement: the hashes differ.
    const stale = JSON.parse(aliceFiles.get(original.id)!) as { request_id: string };
    const misdirected = importSignatureFiles(deps, [{ name: 'alice-for-original.json', text: JSON.stringify({ ...stale, request_id: bump.id }) }])[0]!;
    expect(misdirected).toMatchObject({ status: 'refused', refusal: 'tampered' });
    expect(misdirected.message).toMatch(new RegExp(`it signs payment ${original.id}, which payment ${bump.id} replaces: the hashes differ`));
    expect(store.signatures(bump.id)).toHaveLength(0);

    const sent = await signAndSend(bump);
    expect(sent.state).toBe('broadcast');
    expect(replacementView(deps, store.payment(original.id)!, true)).toMatchObject({ replaced_by: bump.id, relief: null });
    expect(replacementView(deps, sent, true)).toMatchObject({ kind: 'bump', replaces: original.id });
    const pool = await mempool();
    expect(pool).toContain(sent.txid);
    expect(pool).not.toContain(original.txid);
    const e = await entry(sent.txid!);
    expect(units(e.fees.base)).toBe(bump.minersFee);
    expect(units(e.fees.base) / BigInt(e.vsize)).toBeGreaterThanOrEqual(20n);

    await desk.mine(1);
    // Following the original finds its replacement confirmed, and the original dropped.
    const followed = await refreshConfirmations(deps, original.id);
    expect(followed).toMatchObject({ state: 'failed', droppedBy: bump.id });
    expect(followed.reason).toMatch(/^dropped: payment .* spent the same inputs and confirmed/);
    expect(store.payment(bump.id)).toMatchObject({ state: 'confirmed' });
    expect(replacementView(deps, followed, true)).toMatchObject({ replaced_by: bump.id, dropped_by: bump.id, relief: null });
  });
});

describe('a fee bump of a batch', () => {
  it('pays every recipient of the batch as the original did', async () => {
    const outpoint = await fundedOutput(3n * COIN);
    const recipients = await Promise.all([COIN / 10n, COIN / 5n, COIN / 4n].map(async (amount, i) => ({ to: await desk.node.newAddress('legacy'), amount, label: `supplier ${i + 1}` })));
    const total = recipients.reduce((sum, r) => sum + r.amount, 0n);
    const p = await proposeTreasurySpend(deps, walletId, { to: recipients[0]!.to, amount: total, recipients, inputs: [outpoint], fee: { rate: 1n }, replaceable: true, kind: 'payment' });
    store.labels.put(walletId, { type: 'payment', ref: p.id, label: 'March suppliers', spendable: null }, new Date().toISOString());
    const original = await signAndSend(p);
    await desk.synced();

    const bump = await proposeBump(deps, original.id, 20n);
    // The bump keeps the batch's purpose.
    expect(store.labels.get(walletId, 'payment', bump.id)?.label).toBe('March suppliers');
    const paid = (q: PaymentRow) => decodeTx(q.unsignedTx, params).outputs.slice(0, recipients.length).map((o) => o.value);
    // Each recipient keeps its amount: the bump takes the fee from the change only.
    expect(paid(bump)).toEqual(recipients.map((r) => r.amount));
    expect(paid(bump)).toEqual(paid(original));
    expect(store.paymentRecipients(bump.id)).toEqual(recipients.map((r) => ({ address: r.to, amount: r.amount, label: r.label })));
    const sent = await signAndSend(bump);
    expect(await mempool()).toContain(sent.txid);
    expect(await mempool()).not.toContain(original.txid);
    await desk.mine(1);
  });
});

describe('a fee bump the change cannot pay', () => {
  it('adds another of the wallet\'s outputs', async () => {
    // Nearly all of it paid: the change is below the dust limit and goes to the miners.
    const original = await stuckPayment(await fundedOutput(COIN), COIN - 600n);
    expect(decodeTx(original.unsignedTx, params).outputs).toHaveLength(1);
    const bump = await proposeBump(deps, original.id, 20n);
    const tx = decodeTx(bump.unsignedTx, params);
    expect(tx.inputs).toHaveLength(2);
    expect(tx.outputs.map((o) => o.value)[0]).toBe(COIN - 600n);
    expect(bump.totalInputValue).toBeGreaterThan(COIN);
    const sent = await signAndSend(bump);
    const pool = await mempool();
    expect(pool).toContain(sent.txid);
    expect(pool).not.toContain(original.txid);
    await desk.mine(1);
    expect(await refreshConfirmations(deps, original.id)).toMatchObject({ state: 'failed', droppedBy: bump.id });
  });
});

describe('a cancel', () => {
  it('pays everything back to one fresh change address at a higher fee and rate', async () => {
    const original = await stuckPayment(await fundedOutput(3n * COIN), COIN);
    const cancel = await proposeCancel(deps, original.id, 10n);
    const tx = decodeTx(cancel.unsignedTx, params);
    expect(tx.outputs).toHaveLength(1);
    const back = store.addresses(walletId).find((a) => a.change && cancel.to === a.address);
    expect(back).toBeDefined();
    expect(cancel).toMatchObject({ kind: 'cancel', replaces: original.id, amount: 3n * COIN - cancel.minersFee });
    expect(cancel.minersFee).toBeGreaterThan(original.minersFee);
    const sent = await signAndSend(cancel);
    const pool = await mempool();
    expect(pool).toContain(sent.txid);
    expect(pool).not.toContain(original.txid);
    await desk.mine(1);
    expect(await refreshConfirmations(deps, cancel.id)).toMatchObject({ state: 'confirmed' });
    expect(store.payment(original.id)).toMatchObject({ state: 'failed', droppedBy: cancel.id });
  });
});

describe('child pays for parent', () => {
  it('pulls a stuck payment through by its change, to the package rate the node reports', async () => {
    const parent = await stuckPayment(await fundedOutput(5n * COIN), COIN);
    const parentTx = decodeTx(parent.unsignedTx, params);
    const changeVout = parentTx.outputs.length - 1;
    const target = 25n;
    const { payment, package: pkg } = await proposeCpfp(deps, walletId, { txid: parent.txid!, vout: changeVout }, target);
    expect(payment.kind).toBe('cpfp');
    expect(pkg.parentFee).toBe(parent.minersFee);
    expect(pkg.childFee).toBe(childFee(target, pkg.parentVsize, pkg.childVsize, pkg.parentFee));
    expect(pkg.childFee).toBe(payment.minersFee);
    const sent = await signAndSend(payment);
    const e = await entry(sent.txid!);
    // The node's own view of the package: ancestor fees over ancestor size, at least the target.
    const ancestorFee = units(e.fees.ancestor);
    expect(ancestorFee).toBe(parent.minersFee + payment.minersFee);
    expect(ancestorFee / BigInt(e.ancestorsize)).toBeGreaterThanOrEqual(target);
    expect(Number(rateText(ancestorFee, e.ancestorsize))).toBeGreaterThanOrEqual(Number(pkg.rate) - 0.5);
    expect(e.ancestorsize).toBeLessThanOrEqual(pkg.parentVsize + pkg.childVsize);
    await desk.mine(1);
    expect(await refreshConfirmations(deps, payment.id)).toMatchObject({ state: 'confirmed' });
    expect(await refreshConfirmations(deps, parent.id)).toMatchObject({ state: 'confirmed' });
  });

  it("counts the parent's own unconfirmed parent: the child lifts all three to the target", async () => {
    const grandparent = await stuckPayment(await fundedOutput(4n * COIN), COIN);
    const gpChange = decodeTx(grandparent.unsignedTx, params).outputs.length - 1;
    // The parent spends the grandparent's unconfirmed change, also at 1 unit/vbyte.
    const p = await proposeTreasurySpend(deps, walletId, { to: await desk.node.newAddress('legacy'), amount: COIN / 2n, inputs: [{ txid: grandparent.txid!, vout: gpChange }], fee: { rate: 1n }, replaceable: false, kind: 'payment' });
    const parent = await signAndSend(p);
    await desk.synced();
    const target = 30n;
    const changeVout = decodeTx(parent.unsignedTx, params).outputs.length - 1;
    const { payment, package: pkg } = await proposeCpfp(deps, walletId, { txid: parent.txid!, vout: changeVout }, target);
    expect(pkg.ancestors).toEqual([grandparent.txid]);
    expect(pkg.parentFee).toBe(grandparent.minersFee + parent.minersFee);
    expect(pkg.childFee).toBe(childFee(target, pkg.parentVsize, pkg.childVsize, pkg.parentFee));
    const sent = await signAndSend(payment);
    // The node counts the same three: their fees, and a rate at or above the target.
    const e = await entry(sent.txid!);
    expect(units(e.fees.ancestor)).toBe(grandparent.minersFee + parent.minersFee + payment.minersFee);
    expect(e.ancestorsize).toBeLessThanOrEqual(pkg.parentVsize + pkg.childVsize);
    expect(units(e.fees.ancestor) / BigInt(e.ancestorsize)).toBeGreaterThanOrEqual(target);
    await desk.mine(1);
    expect(await refreshConfirmations(deps, payment.id)).toMatchObject({ state: 'confirmed' });
  });

  it('is dropped, in words and in the audit log, the moment a bump of its parent is broadcast; the block changes nothing', async () => {
    const original = await stuckPayment(await fundedOutput(3n * COIN), COIN);
    const changeVout = decodeTx(original.unsignedTx, params).outputs.length - 1;
    const { payment: child } = await proposeCpfp(deps, walletId, { txid: original.txid!, vout: changeVout }, 5n);
    const sentChild = await signAndSend(child);
    expect(await mempool()).toContain(sentChild.txid);
    // A bump pays more than the original and the child together (BIP125 rule 3) and evicts both.
    const bump = await signAndSend(await proposeBump(deps, original.id, 60n));
    // No block yet: the node holds the bump only, and the desk says the child is dropped.
    const pool = await mempool();
    expect(pool).toContain(bump.txid);
    expect(pool).not.toContain(original.txid);
    await expect(entry(sentChild.txid!)).rejects.toThrow(/not in mempool/i);
    const dropped = store.payment(child.id)!;
    expect(dropped).toMatchObject({ state: 'failed', droppedBy: bump.id, droppedByTxid: null });
    expect(dropped.reason).toBe(`dropped: it spends an output of payment ${original.id} (${original.txid}), which payment ${bump.id} replaced: the node dropped it with its parent`);
    const audited = () => store.auditLog().filter((a) => a.paymentId === child.id);
    expect(audited().map((a) => a.action)).toContain('payment.failed');
    expect(replacementView(deps, dropped, true)).toMatchObject({ dropped_by: bump.id, dropped_by_txid: null, dropped_parent: original.id, relief: null });
    // The original stays broadcast until one of the two confirms.
    expect(store.payment(original.id)).toMatchObject({ state: 'broadcast', droppedBy: null });
    const auditBefore = audited().length;

    await desk.mine(1);
    expect(await refreshConfirmations(deps, bump.id)).toMatchObject({ state: 'confirmed' });
    expect(store.payment(original.id)).toMatchObject({ state: 'failed', droppedBy: bump.id });
    expect(store.payment(child.id)).toMatchObject({ state: 'failed', droppedBy: bump.id, reason: dropped.reason });
    expect(audited()).toHaveLength(auditBefore);
    expect(replacementView(deps, store.payment(child.id)!, true)).toMatchObject({ dropped_by: bump.id, dropped_parent: original.id });
  });

  it('stays as it was when the node refuses the bump of its parent', async () => {
    const original = await stuckPayment(await fundedOutput(3n * COIN), COIN);
    const changeVout = decodeTx(original.unsignedTx, params).outputs.length - 1;
    // The bump is proposed first, then a child paying more than it adds: the node refuses the bump (BIP125 rule 3).
    const bump = await proposeBump(deps, original.id, 3n);
    const { payment } = await proposeCpfp(deps, walletId, { txid: original.txid!, vout: changeVout }, 80n);
    const child = await signAndSend(payment);
    await desk.synced();
    await expect(signAndSend(bump)).rejects.toThrow(/the network refused payment/);
    expect(await mempool()).toContain(child.txid);
    expect(store.payment(child.id)).toMatchObject({ state: 'broadcast', droppedBy: null, droppedByTxid: null, reason: null });
    // The follower asks too: the node still holds the child, so nothing changes.
    expect(await refreshConfirmations(deps, child.id)).toMatchObject({ state: 'broadcast', droppedBy: null });
    expect(store.payment(bump.id)).toMatchObject({ state: 'ready' });
    await desk.mine(1);
    expect(await refreshConfirmations(deps, child.id)).toMatchObject({ state: 'confirmed' });
  });

  it('is dropped by the follower when another desk replaces its parent, once the node no longer holds it', async () => {
    const outpoint = await fundedOutput(3n * COIN);
    const original = await stuckPayment(outpoint, COIN);
    const changeVout = decodeTx(original.unsignedTx, params).outputs.length - 1;
    const child = await signAndSend((await proposeCpfp(deps, walletId, { txid: original.txid!, vout: changeVout }, 5n)).payment);
    await desk.synced();
    // While the node holds the child, following changes nothing.
    await followBroadcastPayments(deps);
    expect(store.payment(child.id)).toMatchObject({ state: 'broadcast' });

    // Another desk of the same wallet (a store of its own, knowing nothing of the child) replaces the original.
    const other = openStore(`${desk.dir}/other-desk.sqlite`);
    try {
      const otherDeps: CoreDeps = { store: other, api: desk.api, actor: 'treasurer' };
      const ow = await createWallet(otherDeps, { coin: 'litecoin', network: 'regtest', name: 'Treasury elsewhere', m: 2, cosigners: [alice, bob, carol] });
      const spent = store.paymentInputs(original.id)[0]!;
      const address = store.addresses(walletId).find((a) => a.change === spent.change && a.index === spent.index)!.address;
      while (!other.addresses(ow.id).some((a) => a.address === address)) await nextReceiveAddress(otherDeps, ow.id);
      const theirs = await proposeTreasurySpend(otherDeps, ow.id, { to: await desk.node.newAddress('legacy'), amount: COIN, inputs: [outpoint], fee: { rate: 60n }, replaceable: true, kind: 'payment' });
      const replacement = (await signSubmit(otherDeps, theirs, [alice, bob])).payment;
      expect(await mempool()).toContain(replacement.txid);
      await expect(entry(child.txid!)).rejects.toThrow(/not in mempool/i);
      await desk.synced();

      // Faulty service answers drop nothing: it still holds the child; its history hides the replacement; it forges the replacement's bytes.
      const holding = apiWith(desk.api, { rawTransaction: async (c, txid) => desk.api.rawTransaction(c, txid === child.txid ? replacement.txid! : txid) });
      const hiding = apiWith(desk.api, { history: async (c, a, p) => {
        const h = await desk.api.history(c, a, p);
        return { ...h, txs: h.txs.filter((t) => t.txid !== replacement.txid) };
      } });
      const forging = apiWith(desk.api, { rawTransaction: async (c, txid) => {
        const raw = await desk.api.rawTransaction(c, txid);
        if (txid !== replacement.txid) return raw;
        const tx = decodeTxHex(raw.hex);
        tx.outputs[0]!.value -= 1n;
        return { txid, hex: encodeTxHex(tx) };
      } });
      for (const [name, api] of Object.entries({ holding, hiding, forging })) {
        await followBroadcastPayments({ ...deps, api });
        expect({ name, ...store.payment(child.id) }).toMatchObject({ name, state: 'broadcast', droppedBy: null, droppedByTxid: null });
      }

      // No block: the follower finds the child gone from the node and the original's inputs spent by another transaction.
      expect(await followBroadcastPayments(deps)).toContain(child.id);
      const dropped = store.payment(child.id)!;
      expect(dropped).toMatchObject({ state: 'failed', droppedBy: null, droppedByTxid: replacement.txid });
      expect(dropped.reason).toBe(`dropped: it spends an output of payment ${original.id} (${original.txid}), which transaction ${replacement.txid} (sent from elsewhere) replaced: the node dropped it with its parent`);
      expect(store.auditLog().filter((a) => a.paymentId === child.id).map((a) => a.action)).toContain('payment.failed');
      expect(replacementView(deps, dropped, true)).toMatchObject({ dropped_by: null, dropped_by_txid: replacement.txid, dropped_parent: original.id });
      await desk.mine(1);
      await followBroadcastPayments(deps);
      expect(store.payment(child.id)).toMatchObject({ state: 'failed', reason: dropped.reason });
    } finally {
      other.close();
    }
  });

  it('pulls an unconfirmed deposit through; a confirmed output is refused', async () => {
    const a = await nextReceiveAddress(deps, walletId);
    const txid = await desk.node.fundScript(addressToScript(params, a.address), COIN);
    await desk.synced();
    const vout = decodeTx(hexToBytes((await desk.api.rawTransaction('litecoin', txid)).hex), params).outputs.findIndex((o) => o.value === COIN);
    const target = 60n;
    // Picked from the history, without an output index: the output paying the wallet is found.
    const { payment, package: pkg } = await proposeCpfp(deps, walletId, { txid }, target);
    expect(decodeTx(payment.unsignedTx, params).inputs[0]!.vout).toBe(vout);
    const sent = await signAndSend(payment);
    const e = await entry(sent.txid!);
    expect(units(e.fees.ancestor)).toBe(pkg.parentFee + pkg.childFee);
    expect(units(e.fees.ancestor) / BigInt(e.ancestorsize)).toBeGreaterThanOrEqual(target);
    await desk.mine(1);
    await expect(proposeCpfp(deps, walletId, { txid: sent.txid!, vout: 0 }, target)).rejects.toThrow(/already has 1 confirmation/);
  });

  it('is what a payment sent without BIP125 is offered, from its change', async () => {
    const p = await proposePayment(deps, walletId, { to: await desk.node.newAddress('legacy'), amount: COIN / 10n, minersFee: 5_000n });
    const sent = await signAndSend(p);
    await desk.synced();
    const view = replacementView(deps, sent, true);
    expect(view.relief).toBe('cpfp');
    expect(view.not_replaceable).toMatch(/^this payment was sent as final, without signalling replacement \(BIP125\)/);
    expect(view.change_output).toEqual({ txid: sent.txid, vout: 1 });
    await expect(proposeBump(deps, sent.id, 20n)).rejects.toThrow(/refusing the replacement: .*without signalling replacement/);
    await desk.mine(1);
    expect(await refreshConfirmations(deps, sent.id)).toMatchObject({ state: 'confirmed' });
  });
});

describe('a node that does not relay replacements (litecoind without -mempoolreplacement=1)', () => {
  let plain: RegtestDesk;
  let plainStore: CoordinatorStore;
  let plainDeps: CoreDeps;
  beforeAll(async () => {
    plain = await startRegtestDesk();
    await plain.synced();
    plainStore = openStore(`${plain.dir}/desk.sqlite`);
    plainDeps = { store: plainStore, api: plain.api, actor: 'treasurer' };
  });
  afterAll(async () => {
    plainStore?.close();
    await plain?.dispose();
  });

  it('is what /status says; new payments asked replaceable still signal it, and a stuck one is offered a child, never a bump', async () => {
    expect((await plain.api.status()).coins.find((c) => c.coin === 'litecoin')?.replacements).toBe(false);
    expect((await desk.api.status()).coins.find((c) => c.coin === 'litecoin')?.replacements).toBe(true);
    const w = await createWallet(plainDeps, { coin: 'litecoin', network: 'regtest', name: 'Plain', m: 2, cosigners: [alice, bob, carol] });
    await fundWallet(plain, plainDeps, w.id, 2n * COIN);
    const spare = await fundWallet(plain, plainDeps, w.id, COIN);
    // Asked to be replaceable, it signals it whatever /status says (the bytes co-signers sign never
    // hinge on the service's word): harmless here, the node relays and mines it as any other.
    const p = await proposePayment(plainDeps, w.id, { to: await plain.node.newAddress('legacy'), amount: COIN / 2n, minersFee: 0n, feeRate: 1n, replaceable: true });
    expect(decodeTx(p.unsignedTx, params).inputs.every((i) => i.sequence === 0xfffffffd)).toBe(true);
    // One that signals anyway (sent before the operator said): still no bump, a child instead.
    const { utxos } = await plain.api.utxos('litecoin', plainStore.addresses(w.id).map((a) => a.address));
    const free = utxos.find((u) => u.txid === spare && u.amount === COIN)!;
    const signalled = await proposeTreasurySpend(plainDeps, w.id, { to: await plain.node.newAddress('legacy'), amount: COIN / 10n, inputs: [free], fee: { rate: 1n }, replaceable: true, kind: 'payment' });
    const request = await writeSigningRequest(plainDeps, signalled.id);
    importSignatureFiles(plainDeps, [alice, bob].map((c, i) => ({ name: `s${i}.json`, text: signRequest(request, { xprv: c.accountXprv }).file })));
    const sent = await submitPayment(plainDeps, signalled.id);
    await plain.synced();
    const view = replacementView(plainDeps, sent, false);
    expect(view.relief).toBe('cpfp');
    expect(view.not_replaceable).toMatch(/the service's litecoin node does not relay replacements .*-mempoolreplacement=1.*child-pays-for-parent on its change/);
    expect(view.change_output).toEqual({ txid: sent.txid, vout: 1 });
    const before = plainStore.payments(w.id).length;
    await expect(proposeBump(plainDeps, sent.id, 20n)).rejects.toThrow(/refusing the replacement: the service's litecoin node does not relay replacements/);
    await expect(proposeCancel(plainDeps, sent.id, 20n)).rejects.toThrow(/does not relay replacements/);
    expect(plainStore.payments(w.id)).toHaveLength(before);
    // The child from its change is accepted by the same node.
    const { payment } = await proposeCpfp(plainDeps, w.id, view.change_output!, 20n);
    const childRequest = await writeSigningRequest(plainDeps, payment.id);
    importSignatureFiles(plainDeps, [alice, bob].map((c, i) => ({ name: `c${i}.json`, text: signRequest(childRequest, { xprv: c.accountXprv }).file })));
    expect(await submitPayment(plainDeps, payment.id)).toMatchObject({ state: 'broadcast' });
  });
});
