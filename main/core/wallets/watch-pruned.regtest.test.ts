// Issue 31, finding 5: a desk on a PRUNED node (litecoind -regtest -prune=1, no block filters). The
// desk handed out receive 0 to 25 in turn; 0 to 24 were paid and swept, 25 holds 1 LTC, all before
// the prune height. Below it the service knows only unspent outputs (scantxoutset), so the emptied
// addresses look unused and its own gap stopped at receive 19: the balance was 0 beside the words
// "balances and unspent outputs are complete". The desk now registers the highest index it has
// shown; the service takes the UTXO set over that and the gap past it: the balance equals the
// node's scantxoutset, the walk gives receive 26 next, and the words say exactly what is proven.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../../../shared/api/client.ts';
import type { WatchStatus } from '../../../shared/api/schemas.ts';
import { fillBlockFile, prunableNode, pruneAll } from '../../../dev/chains/pruned-chain.ts';
import type { RegtestNode } from '../../../dev/chains/litecoind.ts';
import { startDevService, type DevService } from '../../../dev/dev-service.ts';
import { testCosigner } from '../../../dev/desk-testing/keys.ts';
import { addressToScript, chainParams } from '../../../shared/coins/index.ts';
import { formatMultisigDescriptor } from '../../../shared/files/descriptor.ts';
import { openStore, type CoordinatorStore } from '../store/store.ts';
import { registerBirthday, watchWords, type BirthdayDeps } from './birthday.ts';
import { walletFunds } from './funds.ts';
import { createWallet, ensureAddresses, nextReceiveAddress, requireWallet } from './wallets.ts';

const params = chainParams('litecoin', 'regtest');
const signer = testCosigner('pruned-gap');
const key = { name: signer.name, xpub: signer.xpub, fingerprint: signer.fingerprint, derivationPath: signer.derivationPath };
const script = { scriptType: 'p2wsh' as const, sortKeys: true };
// Regtest prunes nothing below this height whatever is asked (its PruneAfterHeight).
const PRUNE_AFTER = 1_000;

let node: RegtestNode;
let service: DevService;
let dir: string;
let store: CoordinatorStore;
let deps: BirthdayDeps & { api: ApiClient };
let walletId = '';
let pruneHeight = 0;

async function scanned(): Promise<WatchStatus> {
  for (;;) {
    const tip = await node.rpc.call<number>('getblockcount');
    const s = await service.api.watchStatus('litecoin', walletId);
    if (s.state === 'error') throw new Error(`the service's scan failed: ${s.error ?? ''}`);
    if (s.state === 'ready' && s.scanned_height === tip) return s;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The node's own UTXO set for the wallet's receive branch, far past anything used. */
async function nodeUnspentTotal(): Promise<bigint> {
  const descriptor = formatMultisigDescriptor(1, [key], '/0/*', true, script).replace(/#.*$/, '');
  const scan = await node.rpc.call<{ unspents: { amount: number }[] }>('scantxoutset', ['start', [{ desc: descriptor, range: [0, 200] }]]);
  // Whole litoshi as the node prints them (8 decimals): exact through a rounded float.
  return scan.unspents.reduce((t, u) => t + BigInt(Math.round(u.amount * 1e8)), 0n);
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'countersign-watch-pruned-'));
  node = await prunableNode();
  service = await startDevService(node, dir, { pollIntervalMs: 100, index: 'watch' });
  store = openStore(join(dir, 'desk.sqlite'));
  deps = { store, api: service.api, actor: 'treasurer' };
  const birthday = (await node.rpc.call<number>('getblockcount')) + 1;
  // A 1-of-1 wallet whose key the node's wallet holds too, so that the node can sweep it.
  const w = await createWallet(deps, { coin: 'litecoin', network: 'regtest', name: 'Pruned', m: 1, cosigners: [key], ...script, birthday: { height: birthday, source: 'file' } });
  walletId = w.id;
  // The desk's walks stored each address as it was used, and the next one: receive 0 to 26.
  const shown = await ensureAddresses(deps, w.id, false, 1, 27);
  const address = (i: number) => (i === 0 ? store.addresses(w.id).find((a) => !a.change && a.index === 0)!.address : shown[i - 1]!.address);
  const priv = `wsh(sortedmulti(1,${signer.accountXprv}/0/*))`;
  const { checksum } = await node.rpc.call<{ checksum: string }>('getdescriptorinfo', [priv]);
  await node.walletRpc.call('importmulti', [[{ desc: `${priv}#${checksum}`, range: [0, 40], timestamp: 'now', watchonly: false }]]);
  const outs: Record<string, number> = {};
  for (let i = 0; i < 25; i++) outs[address(i)] = 0.1;
  outs[address(25)] = 1;
  const fund = await node.walletRpc.call<string>('sendmany', ['', outs]);
  await node.mine(1);
  const { hex } = await node.walletRpc.call<{ hex: string }>('gettransaction', [fund]);
  const fundTx = await node.rpc.call<{ vout: { n: number; scriptPubKey: { hex: string } }[] }>('decoderawtransaction', [hex]);
  const swept = new Set(Array.from({ length: 25 }, (_, i) => Buffer.from(addressToScript(params, address(i))).toString('hex')));
  const inputs = fundTx.vout.filter((o) => swept.has(o.scriptPubKey.hex)).map((o) => ({ txid: fund, vout: o.n }));
  expect(inputs).toHaveLength(25);
  const raw = await node.rpc.call<string>('createrawtransaction', [inputs, { [await node.newAddress('bech32')]: 2.49 }]);
  const signed = await node.walletRpc.call<{ hex: string; complete: boolean }>('signrawtransactionwithwallet', [raw]);
  expect(signed.complete).toBe(true);
  await node.rpc.call('sendrawtransaction', [signed.hex]);
  await node.mine(1);
  await fillBlockFile(node);
  const tip = await node.rpc.call<number>('getblockcount');
  await node.mine(Math.max(300, PRUNE_AFTER + 1 - tip));
  pruneHeight = await pruneAll(node);
}, 600_000);

afterAll(async () => {
  store?.close();
  await service?.service.close();
  await node?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('a desk on a pruned node', () => {
  it('registers every address it has shown: the coin past the emptied ones is found, and the words say what is proven', async () => {
    expect(await registerBirthday(deps, requireWallet(deps, walletId))).toBe(true);
    const s = await scanned();
    const total = await nodeUnspentTotal();
    expect(total).toBe(100_000_000n);
    expect((await walletFunds(deps, walletId)).balance).toBe(total);
    expect(s).toMatchObject({ pruned: true, history_from: pruneHeight, watched: { receive: 46, change: 20 } });
    expect(watchWords(s).historyLimit).toBe(
      `unspent outputs complete for receive addresses 0 to 45 and change addresses 0 to 19; history from block ${pruneHeight} (the node is pruned: what was received and spent before it is not listed)`,
    );
    expect((await nextReceiveAddress(deps, walletId)).index).toBe(26);
  });
});
