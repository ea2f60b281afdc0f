// The treasurer's own node as Settings saves it (ownNodesOf), asked over JSON-RPC on a real litecoind
// -regtest: with its .cookie file and with a user and password, a transaction in its mempool is
// "unconfirmed", a mined one is not; a coin with no node of its own is said to have none.
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLitecoind, type RegtestNode } from '../../../dev/chains/litecoind.ts';
import { memoryChainSecrets, saveChain } from './settings.ts';
import { ownNodesOf } from './own-node.ts';
import { openStore, type CoordinatorStore } from '../store/store.ts';

let node: RegtestNode;
let store: CoordinatorStore;
let dir: string;

beforeAll(async () => {
  node = await startLitecoind({ cookie: true });
  await node.mine(101);
  dir = mkdtempSync(join(tmpdir(), 'countersign-own-node-'));
  store = openStore(join(dir, 'desk.sqlite'));
});
afterAll(async () => {
  store?.close();
  await node?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("the treasurer's own node", () => {
  it('says whether a transaction is unconfirmed, with its cookie file and with a user and password', async () => {
    const secrets = memoryChainSecrets();
    const mined = await node.walletRpc.call<string>('sendtoaddress', [await node.newAddress('bech32'), 1]);
    await node.mine(1);
    const pending = await node.walletRpc.call<string>('sendtoaddress', [await node.newAddress('bech32'), 1]);
    expect(ownNodesOf(store, secrets).where('litecoin')).toBeNull();

    saveChain(store, secrets, 'litecoin', { kind: 'node', network: 'regtest', url: node.rpcConfig.url, auth: { kind: 'cookie', cookie_file: join(node.datadir, 'regtest', '.cookie') } }, null);
    const byCookie = ownNodesOf(store, secrets);
    expect(byCookie.where('litecoin')).toBe(node.rpcConfig.url);
    expect(await byCookie.inMempool('litecoin', pending)).toBe(true);
    expect(await byCookie.inMempool('litecoin', mined)).toBe(false);

    saveChain(store, secrets, 'litecoin', { kind: 'node', network: 'regtest', url: node.rpcConfig.url, auth: { kind: 'password', username: node.rpcConfig.username! } }, node.rpcConfig.password!);
    const byPassword = ownNodesOf(store, secrets);
    expect(await byPassword.inMempool('litecoin', pending)).toBe(true);
    expect(await byPassword.inMempool('litecoin', mined)).toBe(false);
    expect(byPassword.where('bitcoin')).toBeNull();

    saveChain(store, secrets, 'litecoin', { kind: 'node', network: 'regtest', url: node.rpcConfig.url, auth: { kind: 'password', username: node.rpcConfig.username! } }, 'wrong');
    await expect(ownNodesOf(store, secrets).inMempool('litecoin', pending)).rejects.toThrow(/^your node at http:\/\/127\.0\.0\.1:\d+\/ answered HTTP 401$/);
  });
});
