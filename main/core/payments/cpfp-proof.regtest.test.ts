// A child-pays-for-parent counts only ancestors proven unconfirmed (issue 31, finding 2), on a real
// litecoind -regtest and the embedded service: a service that calls a large, cheap, CONFIRMED
// ancestor unconfirmed used to add its size x the target to the child's fee (178 -> 1,058,870
// litoshi in the reproduction). Now the treasurer's own node is asked (it does not hold the
// ancestor: not counted), and without a node of its own the desk counts only its own payments: what
// the service alone calls unconfirmed is left out, said in words, and the child pays less, never more.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chainParams, decodeTx, hexToBytes } from '../../../shared/coins/index.ts';
import { apiWith, fundWallet, signAndSend, startWalletDesk, type WalletDesk } from '../../../dev/desk-testing/regtest.ts';
import { testCosigner } from '../../../dev/desk-testing/keys.ts';
import type { CoordinatorApi } from '../api.ts';
import { nextReceiveAddress, type CoreDeps } from '../wallets/wallets.ts';
import { childFee, proposeCpfp } from './cpfp.ts';
import { cancelPayment } from './payments.ts';
import { proposeTreasurySpend } from './spend.ts';

const params = chainParams('litecoin', 'regtest');
const COIN = 100_000_000n;
const [alice, bob] = [testCosigner('alice'), testCosigner('bob')];

let fixture: WalletDesk;
let deps: CoreDeps;
let walletId: string;

/** The service's history, except that `txid` is called unconfirmed. */
const callingUnconfirmed = (txid: string): CoordinatorApi =>
  apiWith(fixture.desk.api, {
    history: async (coin, addresses, page) => {
      const h = await fixture.desk.api.history(coin, addresses, page);
      return { ...h, txs: h.txs.map((t) => (t.txid === txid ? { ...t, confirmations: 0 } : t)) };
    },
  });

beforeAll(async () => {
  fixture = await startWalletDesk('CPFP proof');
  ({ deps, walletId } = fixture);
});
afterAll(async () => fixture?.dispose());

describe('the package a child pays for', () => {
  it("is the same with a service that calls a confirmed 12 kB ancestor unconfirmed: the treasurer's own node does not hold it", async () => {
    const { desk } = fixture;
    // A large, cheap, confirmed transaction (10 litoshi/vB, 401 outputs); the parent spends its 1 LTC output to the wallet.
    await desk.node.walletRpc.call('settxfee', [0.0001]);
    const outs: Record<string, number> = { [await desk.node.newAddress('bech32')]: 1 };
    for (let i = 0; i < 400; i++) outs[await desk.node.newAddress('bech32')] = 0.001;
    const bigTxid = await desk.node.walletRpc.call<string>('sendmany', ['', outs]);
    await desk.mine(1);
    const big = decodeTx(hexToBytes(await desk.node.rpc.call<string>('getrawtransaction', [bigTxid, false])), params);
    const k = big.outputs.findIndex((o) => o.value === COIN);
    const to = (await nextReceiveAddress(deps, walletId)).address;
    const raw = await desk.node.rpc.call<string>('createrawtransaction', [[{ txid: bigTxid, vout: k }], { [to]: 0.999 }]);
    const signed = await desk.node.walletRpc.call<{ hex: string }>('signrawtransactionwithwallet', [raw]);
    const parentTxid = await desk.node.rpc.call<string>('sendrawtransaction', [signed.hex]);
    await desk.synced();

    const honest = await proposeCpfp(deps, walletId, { txid: parentTxid }, 100n);
    expect(honest.package.childFee).toBe(childFee(100n, honest.package.parentVsize, honest.package.childVsize, honest.package.parentFee));
    cancelPayment(deps, honest.payment.id, 'test: the honest child, proposed again below');

    // With the treasurer's own node: the lie changes nothing (it raised the fee from 178 to 1,058,870 litoshi).
    const lied = await proposeCpfp({ ...deps, api: callingUnconfirmed(bigTxid) }, walletId, { txid: parentTxid }, 100n);
    expect(lied.payment.minersFee).toBe(honest.payment.minersFee);
    expect(lied.package).toMatchObject({ ancestors: [], childFee: honest.package.childFee, rate: honest.package.rate });
    expect(honest.package).toMatchObject({ ancestors: [], parentCounted: true, leftOut: [] });
    expect(lied.package).toMatchObject({ parentCounted: true, leftOut: [] });
    cancelPayment(deps, lied.payment.id, 'test');

    // Without one: the deposit is unconfirmed on the service's word only. Paying above the target
    // itself it is counted (it can only lower the child's fee), the lying ancestor is not; below the target (here 2,000
    // litoshi/vB) it is left out, the child pays for itself alone (less, never more), and the review says so.
    const { ownNode: _mine, ...noNode } = deps;
    const rich = await proposeCpfp({ ...noNode, api: callingUnconfirmed(bigTxid) }, walletId, { txid: parentTxid }, 100n);
    expect(rich.payment.minersFee).toBe(honest.payment.minersFee);
    expect(rich.package).toMatchObject({ ancestors: [], parentCounted: true, childFee: honest.package.childFee });
    // The lie itself: the confirmed 12 kB ancestor is named and left out, not paid for.
    expect(rich.package.leftOut).toEqual([
      `the ancestor ${bigTxid} is unconfirmed on the service's word only (no node of your own is connected for litecoin in Settings, and only the desk's own payments count without one) and pays below the target: it is left out, so the child pays for less than the whole package, never more`,
    ]);
    cancelPayment(deps, rich.payment.id, 'test');
    const alone = await proposeCpfp({ ...noNode, api: callingUnconfirmed(bigTxid) }, walletId, { txid: parentTxid }, 2000n);
    expect(alone.package).toMatchObject({ ancestors: [], parentCounted: false, parentFee: 0n, parentVsize: 0 });
    expect(alone.package.childFee).toBe(2000n * BigInt(alone.package.childVsize));
    expect(alone.package.childFee).toBeLessThan(childFee(2000n, honest.package.parentVsize, alone.package.childVsize, honest.package.parentFee));
    expect(alone.package.leftOut).toEqual([
      `the parent ${parentTxid} is unconfirmed on the service's word only (no node of your own is connected for litecoin in Settings, and only the desk's own payments count without one) and pays below the target: it is left out, so the child pays for itself alone at the target rate and does not lift it`,
    ]);
    cancelPayment(deps, alone.payment.id, 'test');
  });

  it("counts the desk's own unconfirmed payment without a node, and leaves out an ancestor only the service calls unconfirmed", async () => {
    const { desk, store } = fixture;
    const fundTxid = await fundWallet(desk, deps, walletId, 2n * COIN);
    const { utxos } = await desk.api.utxos('litecoin', store.addresses(walletId).map((a) => a.address));
    const coin = utxos.find((u) => u.txid === fundTxid)!;
    const p = await proposeTreasurySpend(deps, walletId, { to: await desk.node.newAddress('legacy'), amount: COIN / 2n, inputs: [coin], fee: { rate: 1n }, replaceable: false, kind: 'payment' });
    const parent = (await signAndSend(deps, p, [alice, bob])).payment;
    await desk.synced();
    const change = decodeTx(parent.unsignedTx, params).outputs.length - 1;
    const { ownNode: _unused, ...noNode } = deps;
    // The service calls the confirmed funding transaction unconfirmed: nothing proves it, so it is left out.
    const child = await proposeCpfp({ ...noNode, api: callingUnconfirmed(fundTxid) }, walletId, { txid: parent.txid!, vout: change }, 30n);
    expect(child.package.childFee).toBe(childFee(30n, child.package.parentVsize, child.package.childVsize, parent.minersFee));
    expect(child.package).toMatchObject({ ancestors: [], parentCounted: true, parentFee: parent.minersFee });
    expect(child.package.leftOut).toEqual([
      `the ancestor ${fundTxid} is unconfirmed on the service's word only (no node of your own is connected for litecoin in Settings, and only the desk's own payments count without one) and pays below the target: it is left out, so the child pays for less than the whole package, never more`,
    ]);
    cancelPayment(deps, child.payment.id, 'test');
  });
});
