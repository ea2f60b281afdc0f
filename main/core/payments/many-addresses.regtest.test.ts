// A wallet that has used more addresses than the service takes in one request (200): on a real
// litecoind -regtest node, 1,000 of its addresses are paid by one transaction of the node's wallet
// (sendmany); it then shows its balance and outputs, proposes, bumps, and exports its books, each
// asking the service in batches.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeTx, chainParams } from '../../../shared/coins/index.ts';
import { exportBooks } from '../books.ts';
import type { CoordinatorStore, PaymentRow } from '../store/store.ts';
import { testCosigner } from '../../../dev/desk-testing/keys.ts';
import { apiWith, type RegtestDesk, signAndSend as signSubmit, startWalletDesk, type WalletDesk } from '../../../dev/desk-testing/regtest.ts';
import { walletFunds, walletHistory, walletUnspent } from '../wallets/funds.ts';
import { ensureAddresses } from '../wallets/wallets.ts';
import { proposePayment } from './propose.ts';
import { proposeBump } from './replace.ts';

const params = chainParams('litecoin', 'regtest');
const COIN = 100_000_000n;
const USED = 1000;
const EACH = COIN / 100n;
const [alice, bob] = [testCosigner('alice'), testCosigner('bob')];

let fixture: WalletDesk;
let desk: RegtestDesk;
let store: CoordinatorStore;
let deps: WalletDesk['deps'];
let walletId: string;

const signAndSend = async (p: PaymentRow): Promise<PaymentRow> => (await signSubmit(deps, p, [alice, bob])).payment;

beforeAll(async () => {
  // A desk of its own: a node relaying replacements and an empty 2-of-3 wallet of alice, bob and carol.
  fixture = await startWalletDesk('Busy');
  ({ desk, store, deps, walletId } = fixture);
  const known = store.addresses(walletId).filter((a) => !a.change).length;
  // Derived (and each checked against the service) 50 at a time, as a scan moves along.
  for (let from = known; from < USED; from += 50) await ensureAddresses(deps, walletId, false, from, Math.min(from + 50, USED));
  const receive = store.addresses(walletId).filter((a) => !a.change);
  expect(receive).toHaveLength(USED);
  // One node transaction pays every one of them.
  const amounts = Object.fromEntries(receive.map((a) => [a.address, 0.01]));
  await desk.node.walletRpc.call<string>('sendmany', ['', amounts]);
  await desk.mine(1);
}, 600_000);
afterAll(async () => fixture?.dispose());

describe(`a wallet that used ${USED} addresses`, () => {
  it('shows its balance and its outputs', async () => {
    expect(store.addresses(walletId).length).toBeGreaterThan(5 * 200);
    expect(await walletFunds(deps, walletId)).toMatchObject({ balance: BigInt(USED) * EACH, unconfirmedBalance: 0n });
    const unspent = await walletUnspent(deps, walletId);
    expect(unspent).toHaveLength(USED);
    expect(unspent.every((u) => u.confirmations === 1)).toBe(true);
  });

  it('proposes a payment and bumps it', async () => {
    const to = await desk.node.newAddress('bech32');
    // Coins are aged oldest first by the height the service gives each unspent output, not by reading
    // the wallet's history: proposing reads the history of none of the paid addresses (only the
    // change chain's walk to a fresh change address does), and asks for outputs 200 at a time.
    const asked = { history: [] as string[], utxos: [] as number[] };
    const counting = {
      ...deps,
      api: apiWith(desk.api, {
        history: (c, a, p) => (asked.history.push(...a), desk.api.history(c, a, p)),
        utxos: (c, a) => (asked.utxos.push(a.length), desk.api.utxos(c, a)),
      }),
    };
    const paid = new Set(store.addresses(walletId).filter((a) => !a.change).map((a) => a.address));
    const p = await proposePayment(counting, walletId, { to, amount: 5n * EACH, minersFee: 0n, feeRate: 1n, replaceable: true });
    expect(asked.history.filter((a) => paid.has(a))).toEqual([]);
    expect(asked.utxos.length).toBeGreaterThanOrEqual(5);
    expect(Math.max(...asked.utxos)).toBeLessThanOrEqual(200);
    expect(decodeTx(p.unsignedTx, params).inputs.length).toBeGreaterThan(5);
    const sent = await signAndSend(p);
    expect(sent.state).toBe('broadcast');
    await desk.synced();
    const bump = await proposeBump(deps, sent.id, 20n);
    expect(bump).toMatchObject({ kind: 'bump', replaces: sent.id, amount: 5n * EACH });
    const bumped = await signAndSend(bump);
    expect(bumped.state).toBe('broadcast');
    await desk.mine(1);
  });

  it('exports its books', async () => {
    const { text } = await exportBooks(deps, walletId, {});
    const lines = text.trim().split('\n');
    // The funding transaction (one row, however many addresses it paid) and the bump.
    expect(lines.length).toBe(3);
    expect(text).toContain('10');
  });

  it('lists every deposit when 200 addresses hold more than one page of history (1,000 entries)', async () => {
    // Five more node payments to the first 200 receive addresses: 1,200 entries in the desk's first
    // batch of 200 addresses, so the first funding's entries there sit on a second page.
    const first = store.addresses(walletId).filter((a) => !a.change).slice(0, 200);
    const again: string[] = [];
    for (let i = 0; i < 5; i++) again.push(await desk.node.walletRpc.call<string>('sendmany', ['', Object.fromEntries(first.map((a) => [a.address, 0.001]))]));
    await desk.mine(1);
    await desk.synced();
    const history = await walletHistory(deps, walletId);
    for (const txid of again) expect(history.find((t) => t.txid === txid)?.amount).toBe(200n * (EACH / 10n));
    // The first funding paid all 1,000 addresses: every one of its entries is counted.
    const funding = history.filter((t) => t.amount === BigInt(USED) * EACH);
    expect(funding).toHaveLength(1);
  });
});
