// A miniscript vault (issue 27: 2-of-3 now, or 1-of-2 recovery keys after 144 blocks) watched on
// litecoind -regtest, registered over HTTP by its own wsh(miniscript) descriptor as the desk sends it
// (main/core/wallets/birthday.ts). Litecoin Core 0.21 reads no miniscript: scantxoutset refuses the
// descriptor, so the service asks the node about the vault's derived scripts as raw(<script>); the
// scan ends `ready`, its check against the node's UTXO set passed, and the balances are the payments.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fundedNode, nodeRpcBackendConfig, type RegtestNode } from '../../dev/chains/litecoind.ts';
import { bytesToHex } from '../../shared/coins/index.ts';
import type { NodeRpcBackend } from '../chains/utxo/node-rpc-backend.ts';
import { coinsToUnits } from '../chains/utxo/rpc-client.ts';
import { startTestService, type TestService } from '../test/http-service.ts';
import { testMiniscriptVault } from '../test/watch-vault.ts';

const vault = testMiniscriptVault('watch miniscript');
// Receive 0 and 7, change 2 (twice in one block): within the gap limit of 20.
const PAID: [boolean, number, string][] = [
  [false, 0, '1.5'],
  [false, 7, '0.25'],
  [true, 2, '0.4'],
  [true, 2, '0.6'],
];

describe('watching a miniscript vault on a node without miniscript', () => {
  let node: RegtestNode;
  let t: TestService;

  beforeAll(async () => {
    node = await fundedNode();
    t = await startTestService({ coins: { litecoin: { network: 'regtest', backend: { ...nodeRpcBackendConfig(node, 100), index: 'watch' } } } });
  }, 120_000);
  afterAll(async () => {
    await t?.dispose();
    await node?.stop();
  });

  it('the node refuses the vault descriptor itself in scantxoutset', async () => {
    await expect(node.rpc.call('scantxoutset', ['start', [{ desc: vault.descriptor.replace(/#.*$/, '').replace('/<0;1>/*', '/0/*').replaceAll('/<0;1>/*', '/0/*'), range: [0, 20] }]])).rejects.toThrow(
      /A function is needed within P2WSH/,
    );
  });

  it('registered by its descriptor, scanned from its birthday, ready with the UTXO-set check passed', async () => {
    const birthday = (await node.rpc.call<number>('getblockcount')) + 1;
    await node.mine(1); // the birthday block: nothing of the vault's
    const put = await t.request('PUT', '/v2/watch/litecoin/vault', { descriptors: [vault.descriptor], birthday_height: birthday });
    expect(put.status).toBe(200);
    for (const [change, index, coins] of PAID) {
      await node.rpc.call('sendtoaddress', [vault.address(change, index).address, coins]);
      if (!change) await node.mine(1);
    }
    await node.mine(1);
    await (t.service.backends.get('litecoin') as NodeRpcBackend).indexer.sync();
    const tip = await node.rpc.call<number>('getblockcount');
    const status = await t.request('GET', '/v2/watch/litecoin/vault');
    expect(status.status).toBe(200);
    // `ready` only once the scan's unspent outputs equalled the node's UTXO set at the tip.
    expect(status.json).toMatchObject({ state: 'ready', scanned_height: tip, tip_height: tip, birthday_height: birthday });
    expect(status.json).not.toHaveProperty('error');

    for (const [change, index] of [[false, 0], [false, 7], [true, 2]] as const) {
      const paid = PAID.filter(([c, i]) => c === change && i === index).reduce((s, [, , coins]) => s + coinsToUnits(coins), 0n);
      const balance = await t.request('GET', `/v2/address/balance/litecoin/${vault.address(change, index).address}`);
      expect(balance.status).toBe(200);
      expect(balance.json).toMatchObject({ balance: paid });
    }
    // The node's own count, asked the way the service asks it: the paid scripts as raw().
    const scripts = [...new Set(PAID.map(([c, i]) => bytesToHex(vault.address(c, i).scriptPubKey)))];
    const scan = await node.rpc.call<{ unspents: unknown[] }>('scantxoutset', ['start', scripts.map((s) => `raw(${s})`)]);
    expect(scan.unspents).toHaveLength(PAID.length);
  }, 180_000);
});
