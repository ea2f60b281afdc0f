// The EVM index on both stores: exact amounts beyond 2^63, per-(tx, address) nets, rollback, and
// the pending-create table.
import { afterEach, describe, expect, it } from 'vitest';
import { EvmIndexStore } from './evm-index.ts';
import { openTestStore, STORE_KINDS, type TestStore } from './test-stores.ts';

const a = `0x${'aa'.repeat(20)}`;
const b = `0x${'bb'.repeat(20)}`;
const token = `0x${'cc'.repeat(20)}`;
const huge = 2n ** 200n + 7n;

describe.each(STORE_KINDS)('EVM index on %s', (kind) => {
  let ts: TestStore | undefined;
  afterEach(async () => {
    await ts?.dispose();
    ts = undefined;
  });

  it('keeps exact amounts, nets per transaction, and rolls back above a fork point', async () => {
    ts = await openTestStore(kind);
    const index = new EvmIndexStore(ts.store, 'ethereum/regtest');
    await index.write(
      [
        { height: 1, hash: `0x${'01'.repeat(32)}`, time: 100 },
        { height: 2, hash: `0x${'02'.repeat(32)}`, time: 200 },
      ],
      [
        { txid: '0xt1', logIndex: 0, token, from: a, to: b, amount: huge, height: 1, time: 100 },
        { txid: '0xt2', logIndex: 0, token, from: b, to: a, amount: 5n, height: 2, time: 200 },
        { txid: '0xt2', logIndex: 1, token, from: a, to: b, amount: 2n, height: 2, time: 200 },
        { txid: '0xt3', logIndex: -1, token: '', from: a, to: b, amount: 9n, height: 2, time: 200 },
      ],
    );
    expect(await index.history([a], token)).toEqual([
      { txid: '0xt2', address: a, delta: 3n, height: 2, time: 200 },
      { txid: '0xt1', address: a, delta: -huge, height: 1, time: 100 },
    ]);
    expect((await index.history([b], ''))[0]!.delta).toBe(9n);
    expect((await index.tip())?.height).toBe(2);
    await index.rollbackAbove(1);
    expect((await index.tip())?.height).toBe(1);
    expect(await index.history([a, b], token)).toHaveLength(2);
    expect(await index.history([a], '')).toEqual([]);
  });

  it('remembers the latest create per (from, to, token, amount)', async () => {
    ts = await openTestStore(kind);
    const index = new EvmIndexStore(ts.store, 'ethereum/regtest');
    const key = { from: a, to: b, token, amount: huge };
    await index.savePending({ ...key, nonce: 1n, gasPrice: 10n, gasLimit: 21000n, chainId: 31337n });
    await index.savePending({ ...key, nonce: 2n, gasPrice: huge, gasLimit: 50000n, chainId: 31337n });
    expect(await index.pending(key)).toEqual({ ...key, nonce: 2n, gasPrice: huge, gasLimit: 50000n, chainId: 31337n });
    await index.deletePending(key);
    expect(await index.pending(key)).toBeNull();
  });
});
