// A dropped payment is followed until what it conflicts with is buried (issue 31, finding 3), on a
// real litecoind -regtest (-mempoolreplacement=1) and the embedded service. A payment to a supplier
// spends the unconfirmed change of a stuck payment; the stuck payment is bumped, the node evicts the
// supplier payment, and the desk drops it. Then either a miner that never saw the bump mines the
// original and the supplier payment (the supplier is paid: the desk shows it paid, with an audit
// entry saying so), or the bump is mined and buried 6 blocks deep (the drop is final). Until then,
// paying the supplier again is warned of, naming the dropped payment.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chainParams, decodeTx } from '../../../shared/coins/index.ts';
import { fundWallet, signAndSend, startWalletDesk, type WalletDesk } from '../../../dev/desk-testing/regtest.ts';
import { testCosigner } from '../../../dev/desk-testing/keys.ts';
import { followBroadcastPayments } from '../payment-follower.ts';
import type { PaymentRow } from '../store/store.ts';
import { droppedButPossible } from './dropped.ts';
import { proposeBump } from './replace.ts';
import { proposeTreasurySpend } from './spend.ts';

const params = chainParams('litecoin', 'regtest');
const COIN = 100_000_000n;
const [alice, bob] = [testCosigner('alice'), testCosigner('bob')];

let fixture: WalletDesk;

beforeAll(async () => {
  fixture = await startWalletDesk('Dropped');
});
afterAll(async () => fixture?.dispose());

/** A stuck replaceable payment, a supplier payment from its unconfirmed change, and a bump of the first the node accepts (evicting the supplier payment). */
async function bumpedWithChild(): Promise<{ original: PaymentRow; child: PaymentRow; bump: PaymentRow; supplier: string; rawOriginal: string; rawChild: string }> {
  const { desk, deps, store, walletId } = fixture;
  const txid = await fundWallet(desk, deps, walletId, 2n * COIN);
  const { utxos } = await desk.api.utxos('litecoin', store.addresses(walletId).map((a) => a.address));
  const coin = utxos.find((u) => u.txid === txid)!;
  const stuck = await proposeTreasurySpend(deps, walletId, { to: await desk.node.newAddress('legacy'), amount: COIN / 2n, inputs: [coin], fee: { rate: 1n }, replaceable: true, kind: 'payment' });
  const original = (await signAndSend(deps, stuck, [alice, bob])).payment;
  await desk.synced();
  const changeVout = decodeTx(original.unsignedTx, params).outputs.findIndex((o) => o.value > COIN);
  const supplier = await desk.node.newAddress('bech32');
  const p = await proposeTreasurySpend(deps, walletId, { to: supplier, amount: COIN / 4n, inputs: [{ txid: original.txid!, vout: changeVout }], fee: { rate: 5n }, replaceable: false, kind: 'payment' });
  const child = (await signAndSend(deps, p, [alice, bob])).payment;
  await desk.synced();
  const rawOriginal = await desk.node.rpc.call<string>('getrawtransaction', [original.txid]);
  const rawChild = await desk.node.rpc.call<string>('getrawtransaction', [child.txid]);
  const bump = (await signAndSend(deps, await proposeBump(deps, original.id, 20n), [alice, bob])).payment;
  expect(bump.state).toBe('broadcast');
  expect(store.payment(child.id)).toMatchObject({ state: 'failed', droppedBy: bump.id });
  return { original, child, bump, supplier, rawOriginal, rawChild };
}

describe('a dropped payment', () => {
  it('that a miner takes after all is shown paid, with an audit entry saying so', async () => {
    const { desk, deps, store } = fixture;
    const { original, child, bump, rawOriginal, rawChild } = await bumpedWithChild();
    // A miner that never saw the bump mines the original and the supplier payment.
    await desk.node.rpc.call('generateblock', [await desk.node.newAddress('bech32'), [rawOriginal, rawChild]]);
    await desk.mine(1);
    await followBroadcastPayments(deps);
    expect(store.payment(original.id)).toMatchObject({ state: 'confirmed' });
    expect(store.payment(bump.id)).toMatchObject({ state: 'failed', droppedBy: original.id });
    expect(store.payment(child.id)).toMatchObject({ state: 'confirmed', confirmations: 2, droppedBy: null, droppedByTxid: null, reason: null });
    const audit = store.auditLog().filter((a) => a.paymentId === child.id && a.action === 'payment.confirmed');
    expect(audit).toHaveLength(1);
    expect(audit[0]!.detail).toMatch(/^payment [0-9a-f-]+: confirmed after all: it had been dropped \(dropped: it spends an output of payment .*\), but a miner took it and the recipient is paid; confirmed in block \d+ at .* \(block time; 2 confirmations when seen\)$/);
  });

  it('not final yet is named when its recipient is about to be paid again', async () => {
    const { desk, deps } = fixture;
    const { child, supplier, rawOriginal, rawChild } = await bumpedWithChild();
    expect(droppedButPossible(deps, [supplier])).toEqual([
      `payment ${child.id} (${child.txid}) of 0.25 LTC (regtest) to ${supplier} was dropped, but it can still confirm until what replaced it is 6 blocks deep: paying ${supplier} again now may pay twice; wait, or check that payment first`,
    ]);
    expect(droppedButPossible(deps, [await desk.node.newAddress('bech32')])).toEqual([]);
    // Paid after all: no warning any more.
    await desk.node.rpc.call('generateblock', [await desk.node.newAddress('bech32'), [rawOriginal, rawChild]]);
    await desk.synced();
    await followBroadcastPayments(deps);
    expect(droppedButPossible(deps, [supplier])).toEqual([]);
  });

  it('whose conflict is buried 6 blocks deep is final, and looked at no more', async () => {
    const { desk, deps, store } = fixture;
    const { original, child, bump, supplier } = await bumpedWithChild();
    await desk.mine(1);
    await followBroadcastPayments(deps);
    expect(store.payment(bump.id)).toMatchObject({ state: 'confirmed' });
    expect(store.payment(original.id)).toMatchObject({ state: 'failed', droppedBy: bump.id, droppedFinal: false });
    // One block deep: a reorganisation could still bring the child back.
    expect(store.payment(child.id)).toMatchObject({ state: 'failed', droppedFinal: false });
    expect(droppedButPossible(deps, [supplier])).toHaveLength(1);
    await desk.mine(4);
    await followBroadcastPayments(deps);
    expect(store.payment(child.id)).toMatchObject({ droppedFinal: false });
    await desk.mine(1);
    await followBroadcastPayments(deps);
    expect(store.payment(child.id)).toMatchObject({ state: 'failed', droppedFinal: true });
    expect(store.payment(original.id)).toMatchObject({ state: 'failed', droppedFinal: true });
    expect(store.auditLog().filter((a) => a.paymentId === child.id && a.action === 'payment.dropped_final').map((a) => a.detail)).toEqual([
      `payment ${child.id}: final: transaction ${bump.txid} that it conflicts with is 6 blocks deep; it can never confirm`,
    ]);
    expect(droppedButPossible(deps, [supplier])).toEqual([]);
  });
});
