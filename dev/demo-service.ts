// npm run demo:service: a litecoind regtest chain with funded example addresses, the service indexing it,
// and an API key — everything printed so the API can be tried at once with curl.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { addressToScript, p2pkhAddressOfPublicKey, p2shAddressOfRedeemScript } from '../shared/coins/address.ts';
import { chainParams } from '../shared/coins/coin-table.ts';
import { multisigRedeemScript } from '../shared/coins/script.ts';
import { fundedNode, nodeRpcBackendConfig } from './chains/litecoind.ts';
import { DEMO_NODE_ARGS, mineUntilStopped } from './demo-chain.ts';
import { createService } from '../service/service.ts';
import { createApiKey } from '../service/store/api-keys.ts';
import { testKey } from '../service/test/keys.ts';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: process.env.PORT ?? '8080' },
    'mine-every': { type: 'string', default: '30' },
  },
});

const COIN = 100_000_000n;
const params = chainParams('litecoin', 'regtest');

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'countersign-demo-'));
  process.stdout.write('Starting litecoind -regtest and mining 101 blocks...\n');
  const node = await fundedNode({ datadir: join(dir, 'chain'), extraArgs: [...DEMO_NODE_ARGS] });

  const treasurer = testKey('demo treasurer');
  const cosigners = [testKey('demo cosigner 1'), testKey('demo cosigner 2'), testKey('demo cosigner 3')];
  const single = p2pkhAddressOfPublicKey(params, treasurer.publicKey);
  const redeem = multisigRedeemScript(2, cosigners.map((k) => k.publicKey));
  const multisig = p2shAddressOfRedeemScript(params, redeem);
  await node.fundScript(addressToScript(params, single), 5n * COIN);
  await node.fundScript(addressToScript(params, multisig), 10n * COIN);
  await node.mine(1);
  await node.fundScript(addressToScript(params, multisig), COIN / 2n); // left unconfirmed

  const service = await createService({
    listen: { host: '127.0.0.1', port: Number(values.port) },
    database: { sqlite: join(dir, 'service.sqlite') },
    coins: {
      litecoin: {
        network: 'regtest',
        usdRate: 80,
        backend: nodeRpcBackendConfig(node, 1000),
      },
    },
    log: { level: 'warn' },
  });
  const { key } = await createApiKey(service.store, 'demo');
  const url = await service.listen();

  mineUntilStopped(node, Number(values['mine-every']), async () => {
    await service.close().catch(() => undefined);
    await node.stop().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  });

  const keys = cosigners.map((k) => k.publicKeyHex).join(',');
  process.stdout.write(`
Countersign service (demo) on a litecoind regtest chain; a block is mined every ${values['mine-every']} s.

  Base URL   ${url}
  API key    ${key}
  Status     curl -s -H 'X-API-KEY: ${key}' ${url}/status

  Single-sig address ${single} (5 LTC)
    curl -s -H 'X-API-KEY: ${key}' ${url}/address/balance/litecoin/${single}
  2-of-3 multisig    ${multisig} (10 LTC + 0.5 unconfirmed)
    co-signer keys   ${keys}
    curl -s -H 'X-API-KEY: ${key}' ${url}/address/history/litecoin/${multisig}
    curl -s -H 'X-API-KEY: ${key}' -H 'content-type: application/json' -X POST ${url}/multi_sig/create/litecoin \\
      -d '{"number_of_required_signatures":2,"amount":100000000,"to":"${single}","redeem_scripts":[{"public_keys":${JSON.stringify(cosigners.map((k) => k.publicKeyHex))}}]}'

Press Ctrl-C to stop (the chain and the database are removed).
`);
}

main().catch((err: unknown) => {
  process.stderr.write(`demo failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
