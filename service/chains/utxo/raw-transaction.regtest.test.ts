// The raw-transaction extension on a litecoind without -txindex: confirmed txs are found through
// the block height our own index knows, mempool txs directly; unknown txids are a 404.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addressToScript, p2pkhAddressOfPublicKey } from '../../../shared/coins/address.ts';
import { chainParams } from '../../../shared/coins/coin-table.ts';
import { decodeTxHex, txidHex } from '../../../shared/coins/tx.ts';
import type { RawTransaction } from '../../../shared/api/schemas.ts';
import { testKey } from '../../test/keys.ts';
import { startRegtestService, type RegtestService } from '../../test/regtest-service.ts';

const params = chainParams('litecoin', 'regtest');
let t: RegtestService;
let confirmedTxid: string;
let pendingTxid: string;

beforeAll(async () => {
  t = await startRegtestService(['litecoin'], { node: { extraArgs: ['-txindex=0'] } });
  const script = addressToScript(params, p2pkhAddressOfPublicKey(params, testKey('raw tx').publicKey));
  confirmedTxid = await t.node.fundScript(script, 100_000_000n);
  await t.node.mine(1);
  pendingTxid = await t.node.fundScript(script, 50_000_000n);
  await t.synced();
});
afterAll(async () => t?.dispose());

describe('GET /transaction/raw/{coin}/{txid}', () => {
  it('the node has no txindex, so a bare getrawtransaction of a confirmed tx fails', async () => {
    await expect(t.node.rpc.call('getrawtransaction', [confirmedTxid, false])).rejects.toThrow(/txindex|No such mempool/i);
  });

  it.each([
    ['confirmed', () => confirmedTxid],
    ['in the mempool', () => pendingTxid],
  ])('returns the bytes of a transaction %s, hashing to its txid', async (_label, txid) => {
    const res = await t.request('GET', `/transaction/raw/litecoin/${txid().toUpperCase()}`);
    expect(res.status).toBe(200);
    const body = res.json as RawTransaction;
    expect(body.txid).toBe(txid());
    expect(txidHex(decodeTxHex(body.hex))).toBe(txid());
  });

  it('is a 404 with a message for a txid nobody knows, and a 400 for a malformed one', async () => {
    const unknown = await t.request('GET', `/transaction/raw/litecoin/${'ab'.repeat(32)}`);
    expect(unknown.status).toBe(404);
    expect((unknown.json as { message: string }).message).toMatch(/neither in the litecoin chain .* nor in its mempool/);
    const malformed = await t.request('GET', '/transaction/raw/litecoin/xyz');
    expect(malformed.status).toBe(400);
    expect((malformed.json as { message: string }).message).toMatch(/txid must be 64 hex digits/);
  });
});
