// npm run web: a litecoind regtest chain, the embedded service, a funded example 2-of-3 wallet, and
// the desk served to a browser on 127.0.0.1. Prints the URL with its per-run token.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { addressToScript, chainParams } from '../../shared/coins/index.ts';
import { testCosigner } from '../core/testing/keys.ts';
import { createWallet, nextReceiveAddress } from '../core/wallets.ts';
import { startDevDesk } from './dev-desk.ts';
import { mineUntilStopped } from '../../scripts/dev-chain/run-demo-chain.ts';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: process.env.PORT ?? '0' },
    'mine-every': { type: 'string', default: '20' },
    'no-example': { type: 'boolean', default: false },
  },
});
const rendererDir = join(import.meta.dirname, '../../dist/renderer');
const COIN = 100_000_000n;

async function main(): Promise<void> {
  if (!existsSync(join(rendererDir, 'index.html'))) throw new Error(`the renderer is not built in ${rendererDir}: run "npm run build:renderer"`);
  process.stdout.write('Starting litecoind -regtest, the service and the desk...\n');
  const desk = await startDevDesk({ rendererDir, port: Number(values.port), log: (l) => process.stderr.write(`${l}\n`) });
  const lines: string[] = [];
  if (!values['no-example']) {
    // Example co-signers with published keys: for trying the desk, never for real funds.
    const cosigners = ['Alice', 'Bob', 'Carol'].map((name) => testCosigner(name));
    const deps = { store: desk.store, api: desk.api, actor: 'demo' };
    const wallet = await createWallet(deps, { coin: 'litecoin', network: 'regtest', name: 'Example treasury', m: 2, cosigners });
    const address = await nextReceiveAddress(deps, wallet.id);
    await desk.node.fundScript(addressToScript(chainParams('litecoin', 'regtest'), address.address), 10n * COIN);
    await desk.node.mine(1);
    lines.push('  Example 2-of-3 wallet "Example treasury", funded with 10 LTC (regtest). Co-signer keys to type in co-signer mode:');
    for (const c of cosigners) lines.push(`    ${c.name.padEnd(6)} ${c.accountXprv}\n           or the words: ${c.mnemonic}`);
    lines.push(`  Pay to (a node address):  ${await desk.node.newAddress('legacy')}`);
  }
  mineUntilStopped(desk.node, Number(values['mine-every']), () => desk.dispose());
  process.stdout.write(`
Countersign desk (web mode) on a litecoind regtest chain; a block is mined every ${values['mine-every']} s.

  Open  ${desk.web.openUrl}
  The embedded service's v2 API (no key on 127.0.0.1):  ${desk.serviceUrl}

${lines.join('\n')}

Press Ctrl-C to stop (the chain and both databases are removed).
`);
}

main().catch((err: unknown) => {
  process.stderr.write(`web failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
