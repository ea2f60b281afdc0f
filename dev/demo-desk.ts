// npm run demo (npm run web is the same): a litecoind regtest chain and a hardhat node, a funded
// example 2-of-3 wallet and an Ether account with a token, and the desk served to a browser on
// 127.0.0.1, run as a treasurer with their own node runs it: the desk's embedded service watches
// its wallets on the node, which keeps block filters (-blockfilterindex=1). Beside it the dev
// service indexes the whole chain and serves the API whose URL is printed. Prints the desk's URL
// with its per-run token.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { addressToScript, chainParams } from '../shared/coins/index.ts';
import { testCosigner } from './desk-testing/keys.ts';
import { nextReceiveAddress } from '../main/core/wallets/wallets.ts';
import { createWalletWithBirthday } from '../main/core/wallets/birthday.ts';
import { addToken, createAccount } from '../main/core/accounts/accounts.ts';
import { fundEther, mintedToken } from './chains/hardhat.ts';
import { startDevDesk } from './dev-desk.ts';
import { DEMO_NODE_ARGS, mineUntilStopped } from './demo-chain.ts';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: process.env.PORT ?? '0' },
    'mine-every': { type: 'string', default: '20' },
    'no-example': { type: 'boolean', default: false },
  },
});
const rendererDir = join(import.meta.dirname, '../dist/renderer');
const COIN = 100_000_000n;
const ETH = 10n ** 18n;
// BIP39's published all-"abandon" test vector: for trying the desk, never for real funds.
const DEMO_WORDS = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';

async function main(): Promise<void> {
  if (!existsSync(join(rendererDir, 'index.html'))) throw new Error(`the renderer is not built in ${rendererDir}: run "npm run build:renderer"`);
  process.stdout.write('Starting litecoind -regtest, the service and the desk...\n');
  const desk = await startDevDesk({
    rendererDir,
    port: Number(values.port),
    log: (l) => process.stderr.write(`${l}\n`),
    ethereum: { intervalMs: Number(values['mine-every']) * 1000 },
    // Litecoin Core 0.21 relays replacements only with this flag (default 0): with it the fee bump
    // the desk offers is accepted. Without it the desk offers child-pays-for-parent instead.
    nodeArgs: [...DEMO_NODE_ARGS],
    ownNode: true,
  });
  // The example wallet asks the service about its addresses: wait until the index holds the
  // node's chain, or the service answers "try again later" (seen in CI on a loaded machine).
  await desk.synced();
  const lines: string[] = [];
  let watched: string | null = null;
  if (!values['no-example']) {
    // Example co-signers with published keys: for trying the desk, never for real funds.
    const cosigners = ['Alice', 'Bob', 'Carol'].map((name) => testCosigner(name));
    // Made as the desk makes a wallet: born at the tip, and registered with the desk's service to watch.
    const deps = { store: desk.store, api: desk.connection.api, actor: 'demo' };
    const wallet = await createWalletWithBirthday(deps, { coin: 'litecoin', network: 'regtest', name: 'Example treasury', m: 2, cosigners }, { source: 'tip' });
    const address = await nextReceiveAddress(deps, wallet.id);
    await desk.node.fundScript(addressToScript(chainParams('litecoin', 'regtest'), address.address), 10n * COIN);
    await desk.node.mine(1);
    await desk.synced();
    watched = `${desk.host!.url}/watch/litecoin/${encodeURIComponent(wallet.id)}`;
    lines.push('  Example 2-of-3 wallet "Example treasury", funded with 10 LTC (regtest). Co-signer keys to type in co-signer mode:');
    for (const c of cosigners) lines.push(`    ${c.name.padEnd(6)} ${c.accountXprv}\n           or the words: ${c.mnemonic}`);
    lines.push(`  Pay to (a node address):  ${await desk.node.newAddress('legacy')}`);
    if (desk.eth) {
      const deps = { store: desk.store, api: desk.connection.api, actor: 'demo', secrets: desk.accountSecrets };
      const account = await createAccount(deps, { kind: 'software', name: 'Example Ether account', key: { source: 'mnemonic', words: DEMO_WORDS } });
      await fundEther(desk.eth, account.address, 25n * ETH);
      const token = await mintedToken(desk.eth, 'Demo Dollar', 'DUSD', account.address, 5_000n * ETH);
      await addToken(deps, account.id, { contract: token, symbol: 'DUSD', decimals: 18 });
      lines.push('');
      lines.push(`  Example Ether account ${account.address} (hardhat node), with 25 ETH and 5,000 DUSD (an OpenZeppelin ERC20 at ${token}).`);
      lines.push(`    Its key: the words "${DEMO_WORDS}" (published test words).`);
      lines.push(`    Send to (a hardhat account):  ${await (await desk.eth.provider.getSigner(1)).getAddress()}`);
    }
  }
  mineUntilStopped(desk.node, Number(values['mine-every']), () => desk.dispose());
  process.stdout.write(`
Countersign desk (web mode) on a litecoind regtest chain and a hardhat node; a block is mined on each every ${values['mine-every']} s.
litecoind relays replacements (-mempoolreplacement=1), so a stuck payment can be bumped. Mine a litecoin block now:  kill -USR1 ${process.pid}

  Open  ${desk.web.openUrl}
  The desk's own service, watching its wallets on the node (block filters on), as on a treasurer's own node:  ${desk.host!.url}${watched ? `\n    The example wallet's scan:  ${watched}` : ''}
  The full-index service's v2 API (no key on 127.0.0.1):  ${desk.serviceUrl}

  The litecoind node, to test as a node of your own in Settings > Chains (My own node, network regtest):
    Node RPC address  ${desk.nodeLogin.url}
    Cookie file       ${desk.nodeLogin.cookieFile ?? '(none: this node has a user and password)'}
    or User ${desk.nodeLogin.username} and Password ${desk.nodeLogin.password}

${lines.join('\n')}

Press Ctrl-C to stop (the chain and both databases are removed).
`);
}

main().catch((err: unknown) => {
  process.stderr.write(`web failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
