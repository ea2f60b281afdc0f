// The one spend pipeline on litecoind -regtest: a service that builds a proposal, a fee bump, a
// cancel or a child-pays-for-parent paying ten times the fee asked (a real answer of the real
// service, to a request the test inflates on the way) is refused in words, and nothing is stored.
// A bump or cancel whose service states other inputs than it spends is refused the same way, and
// one written with 0x in capitals is read as the proposal reads it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bytesToHex, chainParams, decodeTx, hexToBytes } from '../../../shared/coins/index.ts';
import type { MultisigHashesToSign } from '../../../shared/api/schemas.ts';
import type { CoordinatorApi } from '../api.ts';
import type { CoordinatorStore, PaymentRow } from '../store/store.ts';
import { testCosigner } from '../../../dev/desk-testing/keys.ts';
import { apiWith, fundWallet, type RegtestDesk, signAndSend as signSubmit, startWalletDesk, type WalletDesk } from '../../../dev/desk-testing/regtest.ts';
import type { CoreDeps } from '../wallets/wallets.ts';
import { proposeCpfp } from './cpfp.ts';
import { cancelPayment } from './payments.ts';
import { proposePayment } from './propose.ts';
import { proposeBump, proposeCancel } from './replace.ts';
import { proposeTreasurySpend } from './spend.ts';

const params = chainParams('litecoin', 'regtest');
const COIN = 100_000_000n;
const [alice, bob] = [testCosigner('alice'), testCosigner('bob')];

let fixture: WalletDesk;
let desk: RegtestDesk;
let store: CoordinatorStore;
let deps: CoreDeps;
let walletId: string;
let stuck: PaymentRow;

/** The real service, asked for ten times the fee (rate or amount) the desk asked for. */
const greedy = (): CoreDeps => ({
  ...deps,
  api: apiWith(desk.api, {
    createMultisig: (coin, body) => {
      if (body.fee_rate !== undefined) return desk.api.createMultisig(coin, { ...body, fee_rate: BigInt(body.fee_rate) * 10n });
      const fee = BigInt(body.miners_fee ?? 0n);
      // A one-recipient spend of everything (cancel, child): the recipient gets the difference less.
      return desk.api.createMultisig(coin, { ...body, miners_fee: fee * 10n, ...(body.amount !== undefined ? { amount: BigInt(body.amount) - 9n * fee } : {}) });
    },
  } satisfies Partial<CoordinatorApi>),
});

const signAndSend = async (p: PaymentRow): Promise<PaymentRow> => (await signSubmit(deps, p, [alice, bob])).payment;

beforeAll(async () => {
  // A desk of its own: a node relaying replacements and an empty 2-of-3 wallet of alice, bob and carol.
  fixture = await startWalletDesk('Treasury');
  ({ desk, store, deps, walletId } = fixture);
  await fundWallet(desk, deps, walletId, 2n * COIN);
  await fundWallet(desk, deps, walletId, 3n * COIN);
  // A replaceable payment at 1 unit/vbyte, broadcast and unconfirmed: the one to bump and cancel.
  const { utxos } = await desk.api.utxos('litecoin', store.addresses(walletId).map((a) => a.address));
  const two = utxos.find((u) => u.amount === 2n * COIN)!;
  const p = await proposeTreasurySpend(deps, walletId, { to: await desk.node.newAddress('legacy'), amount: COIN / 2n, inputs: [two], fee: { rate: 1n }, replaceable: true, kind: 'payment' });
  stuck = await signAndSend(p);
  expect(stuck.state).toBe('broadcast');
  await desk.synced();
}, 300_000);
afterAll(async () => fixture?.dispose());

describe('a service that builds ten times the fee asked', () => {
  it('is refused for a fee bump, in words, and nothing is stored', async () => {
    const before = store.payments(walletId).length;
    await expect(proposeBump(greedy(), stuck.id, 20n)).rejects.toThrow(
      /refusing the proposed fee bump: the fee 0\.\d+ LTC \(regtest\) is not 20 litoshi\/vB x \d+ vbytes = 0\.\d+ LTC \(regtest\)/,
    );
    expect(store.payments(walletId)).toHaveLength(before);
    // The honest service's bump at the same rate is accepted: the refusal was the fee's.
    const bump = await proposeBump(deps, stuck.id, 20n);
    expect(bump).toMatchObject({ kind: 'bump', replaces: stuck.id });
    const tx = decodeTx(bump.unsignedTx, params);
    expect(bump.minersFee).toBe(bump.totalInputValue - tx.outputs.reduce((s, o) => s + o.value, 0n));
    cancelPayment(deps, bump.id, 'test: the original is cancelled and bumped by greedy services next');
  });

  it('is refused for a cancel', async () => {
    const before = store.payments(walletId).length;
    await expect(proposeCancel(greedy(), stuck.id, 20n)).rejects.toThrow(/refusing the proposed cancel: output 0 \(payment\) pays [\d.]+ LTC \(regtest\) instead of [\d.]+ LTC \(regtest\)/);
    expect(store.payments(walletId)).toHaveLength(before);
  });

  it('is refused for a child-pays-for-parent', async () => {
    const before = store.payments(walletId).length;
    const change = decodeTx(stuck.unsignedTx, params).outputs.length - 1;
    await expect(proposeCpfp(greedy(), walletId, { txid: stuck.txid!, vout: change }, 30n)).rejects.toThrow(
      /refusing the proposed child-pays-for-parent: output 0 \(payment\) pays [\d.]+ LTC \(regtest\) instead of [\d.]+ LTC \(regtest\)/,
    );
    expect(store.payments(walletId)).toHaveLength(before);
  });

  it('is refused for a proposal at a rate, and for send all', async () => {
    const before = store.payments(walletId).length;
    const to = await desk.node.newAddress('bech32');
    await expect(proposePayment(greedy(), walletId, { to, amount: COIN / 10n, minersFee: 0n, feeRate: 5n })).rejects.toThrow(/refusing the proposed payment: the fee 0\.\d+ LTC \(regtest\) is not 5 litoshi\/vB x/);
    await expect(proposePayment(greedy(), walletId, { to, amount: 0n, minersFee: 0n, feeRate: 5n, sendAll: true })).rejects.toThrow(/refusing the proposed payment: output 0 \(payment\) pays [\d.]+ LTC \(regtest\) instead of [\d.]+ LTC \(regtest\)/);
    expect(store.payments(walletId)).toHaveLength(before);
  });
});

/** The real service's answer, rewritten by `edit` on its way to the desk. */
const answering = (edit: (answer: MultisigHashesToSign) => MultisigHashesToSign): CoreDeps => ({
  ...deps,
  api: apiWith(desk.api, { createMultisig: async (coin, body) => edit(await desk.api.createMultisig(coin, body)) } satisfies Partial<CoordinatorApi>),
});
const shouted = (hex: string): string => `0x${hex.toUpperCase()}`;
/**
 * What the answer's inputs spend, stated as the service's extension states it (it states nothing for
 * this P2SH wallet on its own), each passed through `edit`. The bump below spends one coin, so its
 * amount is the answer's whole input value.
 */
const statedInputs = (a: MultisigHashesToSign, edit: (s: { txid: string; vout: number }) => { txid: string; vout: number }): MultisigHashesToSign['inputs'] =>
  decodeTx(hexToBytes(a.tx.replace(/^0x/i, '')), params).inputs.map((i) => ({
    ...edit({ txid: bytesToHex(i.prevTxid), vout: i.vout }),
    amount: a.total_input_value,
    script_type: 'p2sh' as const,
    script: '',
    script_pub_key: '',
  }));

// Once only the proposal checked what the service states each input spends, and only it read hashes
// written with 0x: a bump, a cancel and a child now go through the same checks.
describe('a fee bump checked as a proposal is', () => {
  it('refused when the service states another output for an input than its transaction spends, and nothing is stored', async () => {
    const before = store.payments(walletId).length;
    const lying = answering((a) => ({ ...a, inputs: statedInputs(a, (i) => ({ ...i, vout: i.vout + 1 })) }));
    await expect(proposeBump(lying, stuck.id, 20n)).rejects.toThrow(
      /refusing the proposed fee bump: the service says input 0 spends [\d.]+ LTC \(regtest\) at [0-9a-f]{64}:\d+; the previous transaction says [\d.]+ LTC \(regtest\) at [0-9a-f]{64}:\d+/,
    );
    const renamed = answering((a) => ({ ...a, inputs: statedInputs(a, (i) => ({ ...i, txid: 'ab'.repeat(32) })) }));
    await expect(proposeCancel(renamed, stuck.id, 20n)).rejects.toThrow(/refusing the proposed cancel: the service says input 0 spends .* at (ab){32}:\d+/);
    expect(store.payments(walletId)).toHaveLength(before);
  });

  it('read alike when the service writes its transaction, txids and hashes with 0x in capitals', async () => {
    const loud = answering((a) => ({
      ...a,
      tx: shouted(a.tx),
      replaces: a.replaces?.map(shouted),
      inputs: statedInputs(a, (i) => ({ ...i, txid: shouted(i.txid) })),
      hashes: a.hashes.map((h) => ({ ...h, public_key: shouted(h.public_key), hash_to_sign: shouted(h.hash_to_sign) })),
    }));
    const bump = await proposeBump(loud, stuck.id, 20n);
    expect(bump).toMatchObject({ kind: 'bump', replaces: stuck.id });
    // The same coins as the original, read from the shouted hex.
    const spends = (tx: Uint8Array) => decodeTx(tx, params).inputs.map((i) => `${bytesToHex(i.prevTxid)}:${i.vout}`);
    expect(spends(bump.unsignedTx)).toEqual(spends(stuck.unsignedTx));
    cancelPayment(deps, bump.id, 'test: releases the original to the tests after this one');
  });
});

// Found by the hostile-service bench (issue 31): a send-all's amount is the listed total less the
// fee, so a coin listed one litoshi short left that litoshi as dust change, which went to the miners.
describe('send all from a service that lists a coin short', () => {
  it('is refused in words naming the coin, and nothing is stored', async () => {
    const before = store.payments(walletId).length;
    const short = {
      ...deps,
      api: apiWith(desk.api, {
        utxos: async (coin, addresses) => {
          const listed = await desk.api.utxos(coin, addresses);
          return { ...listed, utxos: listed.utxos.map((u, i) => (i === 0 ? { ...u, amount: u.amount - 1n } : u)) };
        },
      } satisfies Partial<CoordinatorApi>),
    };
    const to = await desk.node.newAddress('bech32');
    await expect(proposePayment(short, walletId, { to, amount: 0n, minersFee: 0n, feeRate: 5n, sendAll: true })).rejects.toThrow(
      /^refusing the proposed payment: the service lists [0-9a-f]{64}:\d+ as holding [\d.]+ LTC \(regtest\); its transaction says [\d.]+ LTC \(regtest\)$/,
    );
    expect(store.payments(walletId)).toHaveLength(before);
  });
});

describe('send all', () => {
  it('spends every free output to one recipient, no change, the fee at the rate taken from the amount', async () => {
    const to = await desk.node.newAddress('bech32');
    const p = await proposePayment(deps, walletId, { to, amount: 0n, minersFee: 0n, feeRate: 5n, sendAll: true });
    const tx = decodeTx(p.unsignedTx, params);
    expect(tx.outputs).toHaveLength(1);
    // The stuck payment's inputs are in flight; its change is unconfirmed but the wallet's: free.
    expect(p.amount + p.minersFee).toBe(p.totalInputValue);
    expect(p.minersFee % 5n).toBe(0n);
    expect(tx.outputs[0]!.value).toBe(p.amount);
  });
});
