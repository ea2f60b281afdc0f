// The background follower on litecoind -regtest: a broadcast payment becomes confirmed without
// anyone opening it, the audit entry says in which block and at what block time (as the node
// says), a pass and a screen asking at once confirm it once, a failing service leaves the state
// alone and the follower running, and a stopped follower schedules nothing. Its timer is fired by
// hand: no test here waits for time to pass.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiWith, fundWallet, startWalletDesk, type WalletDesk } from '../../dev/desk-testing/regtest.ts';
import { testCosigner } from '../../dev/desk-testing/keys.ts';
import { proposePayment } from './payments/propose.ts';
import { writeSigningRequest } from './payments/signing-request.ts';
import { importSignatureFiles } from './payments/signature-import.ts';
import { signRequest } from './software-signer.ts';
import { confirmationWords, followPayment, submitPayment } from './payments/submit.ts';
import { FOLLOW_EVERY_MS, startPaymentFollower, type FollowerTimer } from './payment-follower.ts';
import type { CoreDeps } from './wallets/wallets.ts';

const COIN = 100_000_000n;
const [alice, bob] = [testCosigner('alice'), testCosigner('bob')];

/** A timer that runs nothing by itself: `fire` runs the one pending callback. */
function handTimer(): FollowerTimer & { pending: { run: () => void; ms: number } | null; fire(): void } {
  const t = {
    pending: null as { run: () => void; ms: number } | null,
    set(run: () => void, ms: number) {
      t.pending = { run, ms };
      return t.pending;
    },
    clear(handle: unknown) {
      if (t.pending === handle) t.pending = null;
    },
    fire() {
      const p = t.pending;
      if (!p) throw new Error('nothing scheduled');
      t.pending = null;
      p.run();
    },
  };
  return t;
}

let wd: WalletDesk;
let deps: CoreDeps;

async function broadcastPayment(amount: bigint): Promise<string> {
  const p = await proposePayment(deps, wd.walletId, { to: await wd.desk.node.newAddress('legacy'), amount, minersFee: 10_000n });
  const request = await writeSigningRequest(deps, p.id);
  importSignatureFiles(deps, [alice, bob].map((c, i) => ({ name: `${p.id}-${i}.json`, text: signRequest(request, { xprv: c.accountXprv }).file })));
  await submitPayment(deps, p.id);
  await wd.desk.synced();
  return p.id;
}

const confirmedEntries = (id: string) => wd.store.auditLog().filter((e) => e.action === 'payment.confirmed' && e.paymentId === id);

beforeAll(async () => {
  wd = await startWalletDesk('Followed treasury');
  deps = wd.deps;
  await fundWallet(wd.desk, deps, wd.walletId, 3n * COIN);
  await fundWallet(wd.desk, deps, wd.walletId, 3n * COIN);
}, 120_000);
afterAll(() => wd?.dispose());

describe('the payment follower', () => {
  it('confirms a broadcast payment nobody opened, with the block height and block time in the audit log', async () => {
    const id = await broadcastPayment(COIN);
    const timer = handTimer();
    const follower = startPaymentFollower(deps, { timer });
    expect(timer.pending?.ms).toBe(FOLLOW_EVERY_MS);

    // Not mined yet: a pass changes nothing and schedules the next.
    timer.fire();
    await follower.settled();
    expect(wd.store.payment(id)!.state).toBe('broadcast');
    expect(timer.pending?.ms).toBe(FOLLOW_EVERY_MS);

    await wd.desk.mine(1);
    timer.fire();
    await follower.settled();
    expect(wd.store.payment(id)).toMatchObject({ state: 'confirmed', confirmations: 1 });

    const txid = wd.store.payment(id)!.txid!;
    const onChain = await wd.desk.node.rpc.call<{ blockhash: string; blocktime: number }>('getrawtransaction', [txid, true]);
    const block = await wd.desk.node.rpc.call<{ height: number; time: number }>('getblock', [onChain.blockhash]);
    const [entry] = confirmedEntries(id);
    expect(entry!.detail).toBe(`payment ${id}: confirmed in block ${block.height} at ${new Date(block.time * 1000).toISOString().replace('.000Z', 'Z')} (block time; 1 confirmation when seen)`);
    expect(confirmedEntries(id)).toHaveLength(1);
    // Amounts in the audit log are in the coin's unit, not raw base units.
    const proposed = wd.store.auditLog().find((e) => e.action === 'payment.propose' && e.paymentId === id)!;
    expect(proposed.detail).toMatch(new RegExp(`^payment ${id}: 1 LTC \\(regtest\\) to \\S+, miners fee 0\\.0001 LTC \\(regtest\\)(, replaceable)?; hash [0-9a-f]{64}$`));

    // Two more blocks: noticed later, the entry is not written again and the height does not move.
    await wd.desk.mine(2);
    timer.fire();
    await follower.settled();
    expect(confirmedEntries(id)).toHaveLength(1);

    await follower.stop();
    expect(timer.pending).toBeNull();
  }, 120_000);

  it('confirms once when a pass and an opened payment ask at the same time', async () => {
    const id = await broadcastPayment(COIN / 2n);
    await wd.desk.mine(1);
    const timer = handTimer();
    const follower = startPaymentFollower(deps, { timer });
    timer.fire();
    const [opened] = await Promise.all([followPayment(deps, id), follower.settled()]);
    expect(opened.state).toBe('confirmed');
    expect(confirmedEntries(id)).toHaveLength(1);
    await follower.stop();
  }, 120_000);

  it('keeps the state and keeps following when the service fails, and reports nothing for it', async () => {
    const id = await broadcastPayment(COIN / 4n);
    const reports: unknown[] = [];
    const timer = handTimer();
    const failing = { ...deps, api: apiWith(deps.api, { history: () => Promise.reject(new Error('the service did not answer')) }) };
    const down = startPaymentFollower(failing, { timer, report: (err) => reports.push(err) });
    await wd.desk.mine(1);
    timer.fire();
    await down.settled();
    expect(wd.store.payment(id)!.state).toBe('broadcast');
    expect(timer.pending).not.toBeNull();
    expect(reports).toEqual([]);
    await down.stop();

    // The service is back: the next follower's first pass confirms it.
    const up = startPaymentFollower(deps, { timer });
    timer.fire();
    await up.settled();
    expect(wd.store.payment(id)!.state).toBe('confirmed');
    await up.stop();
  }, 120_000);

  it('words a confirmation the service gave no block for', () => {
    expect(confirmationWords({ confirmations: 1, time: 1_700_000_000 })).toBe('1 confirmation; the service did not say in which block');
    expect(confirmationWords({ confirmations: 3, time: 1_700_000_000, block_height: 250 })).toBe('confirmed in block 250 at 2023-11-14T22:13:20Z (block time; 3 confirmations when seen)');
  });
});
