// Reserved and frozen outputs on litecoind -regtest: the desk picks each proposal's inputs itself,
// oldest first, never one an unsent proposal already spends nor a frozen one; cancelling releases.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bytesToHex, chainParams, decodeTx } from '../../../shared/coins/index.ts';
import { pickOldestFirst } from './coin-selection.ts';
import { outpointKey } from './outpoints.ts';
import { cancelPayment } from './payments.ts';
import { proposePayment } from './propose.ts';
import type { CoordinatorStore } from '../store/store.ts';
import { startWalletDesk, type RegtestDesk, type WalletDesk, fundWallet } from '../../../dev/desk-testing/regtest.ts';
import type { CoreDeps } from '../wallets/wallets.ts';

const params = chainParams('litecoin', 'regtest');
const COIN = 100_000_000n;

let desk: RegtestDesk;
let store: CoordinatorStore;
let deps: CoreDeps;
let walletId: string;
const spends = (unsignedTx: Uint8Array) => decodeTx(unsignedTx, params).inputs.map((i) => outpointKey({ txid: bytesToHex(i.prevTxid), vout: i.vout }));

let fixture: WalletDesk | undefined;

beforeAll(async () => {
  fixture = await startWalletDesk('Reserve');
  ({ desk, store, deps, walletId } = fixture);
  // Three outputs of 1 LTC, the first the oldest.
  for (let i = 0; i < 3; i++) await fundWallet(desk, deps, walletId, COIN);
}, 300_000);
afterAll(async () => fixture?.dispose());

describe('reserved and frozen outputs', () => {
  it('gives two proposals disjoint outputs, refuses a third with the reason, and cancelling releases', async () => {
    const to = await desk.node.newAddress('bech32');
    const first = await proposePayment(deps, walletId, { to, amount: COIN / 2n, minersFee: 10_000n });
    const second = await proposePayment(deps, walletId, { to, amount: COIN / 2n, minersFee: 10_000n });
    const [a, b] = [spends(first.unsignedTx), spends(second.unsignedTx)];
    expect(a).toHaveLength(1);
    expect(b).toHaveLength(1);
    expect(a[0]).not.toBe(b[0]);

    // Freeze the last free output: the third proposal finds nothing it may spend, and says why.
    const all = (await desk.api.utxos('litecoin', store.addresses(walletId).map((x) => x.address))).utxos.map((u) => outpointKey(u));
    const last = all.find((o) => o !== a[0] && o !== b[0])!;
    store.labels.put(walletId, { type: 'output', ref: last, label: 'cold reserve', spendable: false }, new Date().toISOString());
    const third = proposePayment(deps, walletId, { to, amount: COIN / 2n, minersFee: 10_000n });
    await expect(third).rejects.toThrow(/the wallet's free outputs hold 0 LTC \(regtest\), the payment needs about 0\.5001 LTC \(regtest\); 2 outputs holding 2 LTC \(regtest\) are reserved by payments awaiting signatures or ready \(.+\); 1 frozen output holds 1 LTC \(regtest\)/);

    // Picking a reserved output by hand is refused too, naming the payment that holds it.
    await expect(proposePayment(deps, walletId, { to, amount: COIN / 2n, minersFee: 10_000n, inputs: [a[0]!] })).rejects.toThrow(
      new RegExp(`${a[0]} is already spent by payment ${first.id} \\(awaiting signatures\\); cancel that payment to release it`),
    );
    // A frozen output may still be picked by hand.
    const byHand = await proposePayment(deps, walletId, { to, amount: COIN / 2n, minersFee: 10_000n, inputs: [last] });
    expect(spends(byHand.unsignedTx)).toEqual([last]);

    // Cancelling the first releases its output for the next proposal.
    cancelPayment(deps, first.id, 'test: release');
    const again = await proposePayment(deps, walletId, { to, amount: COIN / 2n, minersFee: 10_000n });
    expect(spends(again.unsignedTx)).toEqual(a);
  });
});

describe('pickOldestFirst', () => {
  it('adds outputs oldest first until they cover the need for that many inputs', () => {
    const c = [
      { outpoint: 'new:0', amount: 5n, confirmations: 1 },
      { outpoint: 'old:0', amount: 5n, confirmations: 9 },
      { outpoint: 'mid:0', amount: 5n, confirmations: 4 },
    ];
    expect(pickOldestFirst(c, (n) => 6n + BigInt(n))?.map((x) => x.outpoint)).toEqual(['old:0', 'mid:0']);
    expect(pickOldestFirst(c, () => 16n)).toBeNull();
  });
});
