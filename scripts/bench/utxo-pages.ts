// `npm run bench -- --utxo-pages [--outputs 400000] [--requests 1000] [--stores sqlite,level,postgres]`:
// issue 33's full-size proof. One 2-of-3 address is paid `outputs` unspent outputs on a litecoind
// regtest node (transactions of 3,000 outputs built and signed by the node's wallet); on each store
// the service runs as `npm run service` does, under the 192 MB heap cap, indexes the chain, and is
// asked for the address's outputs: once, page by page to the end, `requests` times at once, and
// once among 100 addresses; then multi_sig/create over it. Prints the times and the service's RSS.
// Exits 1 when the service fails or goes down (the CI test is service/http/utxo-pages.regtest.test.ts).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { fundedNode, nodeRpcBackendConfig } from '../../dev/chains/litecoind.ts';
import { payManyOutputs } from '../../dev/chains/many-outputs.ts';
import { fireAtOnce, SERVICE_HEAP_MB, startServiceChild, type ServiceChild } from '../../dev/service-child.ts';
import { scriptToAddress } from '../../shared/coins/address.ts';
import { chainParams } from '../../shared/coins/coin-table.ts';
import { hash160, sha256 } from '../../shared/coins/hash.ts';
import { multisigScripts } from '../../shared/coins/multisig-script.ts';
import { p2pkhScript } from '../../shared/coins/script.ts';
import { parseApiJson } from '../../shared/api/json.ts';
import type { Utxos } from '../../shared/api/schemas.ts';
import * as ecc from 'tiny-secp256k1';

const PG_URL = process.env.COUNTERSIGN_BENCH_PG_URL ?? 'postgresql://postgres@127.0.0.1:5432/test';
const STORES = ['sqlite', 'level', 'postgres'] as const;
type Store = (typeof STORES)[number];
const EACH = 10_000n;
const params = chainParams('litecoin', 'regtest');
const key = (seed: string) => ecc.pointFromScalar(sha256(new TextEncoder().encode(`countersign bench utxo pages ${seed}`)), true)!;

function options(argv: readonly string[]) {
  const { values } = parseArgs({ args: argv.filter((a) => a !== '--utxo-pages'), options: { outputs: { type: 'string' }, requests: { type: 'string' }, stores: { type: 'string' } }, strict: true });
  const whole = (text: string | undefined, fallback: number, name: string) => {
    const n = text === undefined ? fallback : Number(text);
    if (!Number.isSafeInteger(n) || n <= 0) throw new Error(`--${name} must be a whole number > 0, not ${JSON.stringify(text)}`);
    return n;
  };
  const stores = (values.stores ?? STORES.join(',')).split(',').map((s) => s.trim());
  const bad = stores.find((s) => !(STORES as readonly string[]).includes(s));
  if (bad !== undefined) throw new Error(`--stores takes ${STORES.join(', ')}, not ${JSON.stringify(bad)}`);
  return { outputs: whole(values.outputs, 400_000, 'outputs'), requests: whole(values.requests, 1000, 'requests'), stores: stores as Store[] };
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

async function timed<T>(run: () => Promise<T>): Promise<[T, number]> {
  const start = performance.now();
  const value = await run();
  return [value, performance.now() - start];
}

/** All 100 answered, or on LevelDB all refused in words (422: the address is beyond a summary, AddressTooLarge). */
function answeredOrRefused(statuses: Record<string, number>, kind: Store): boolean {
  return statuses[200] === 100 || (kind === 'level' && statuses[422] === 100);
}

export async function runUtxoPagesBench(argv: readonly string[]): Promise<number> {
  const o = options(argv);
  const cosigners = ['a', 'b', 'c'].map(key);
  const big = multisigScripts(params, 2, cosigners, { scriptType: 'p2sh', sortKeys: false });
  const address = scriptToAddress(params, big.scriptPubKey)!;
  const hundred = [address, ...Array.from({ length: 99 }, (_, i) => scriptToAddress(params, p2pkhScript(hash160(key(`other ${i}`))))!)].join(',');
  const dir = mkdtempSync(join(tmpdir(), 'countersign-bench-utxo-'));
  const node = await fundedNode({ walletName: 'bench' });
  let failed = false;
  try {
    console.log(`utxo pages bench: ${o.outputs.toLocaleString('en-US')} unspent outputs of one 2-of-3 P2SH address; the service under --max-old-space-size=${SERVICE_HEAP_MB}`);
    const [, payMs] = await timed(() => payManyOutputs(node, big.scriptPubKey, o.outputs, EACH, (n) => n % 60_000 === 0 && console.log(`  paid ${n.toLocaleString('en-US')}`)));
    const height = await node.rpc.call<number>('getblockcount');
    console.log(`chain built in ${seconds(payMs)}: ${height + 1} blocks`);
    for (const kind of o.stores) {
      const schema = `cs_bench_utxo_${Date.now().toString(36)}`;
      const database = kind === 'postgres' ? { postgres: PG_URL, schema } : { sqlite: join(dir, `${kind}.sqlite`), ...(kind === 'level' ? { index: join(dir, `${kind}-index`) } : {}) };
      let service: ServiceChild | undefined;
      try {
        const [started, indexMs] = await timed(async () => {
          const s = await startServiceChild({ database, auth: { required: false }, readiness: { maxLagBlocks: 0 }, coins: { litecoin: { network: 'regtest', backend: nodeRpcBackendConfig(node, 500) } } });
          for (;;) {
            const ready = await fetch(`${s.url}/readyz`).then((r) => r.json() as Promise<{ coins: { indexed_height: number | null }[] }>).catch(() => null);
            if (ready?.coins[0]?.indexed_height === height) return s;
            if (!s.alive()) throw new Error(`the service stopped while indexing:\n${s.output().slice(-3000)}`);
            await new Promise((r) => setTimeout(r, 500));
          }
        });
        service = started;
        const s = started;
        const indexed = s.memory();
        const get = async (path: string) => {
          const res = await fetch(`${s.url}${path}`);
          return { status: res.status, body: await res.text() };
        };
        const step = (what: string) => console.log(`  ${kind}: ${what} (service ${s.alive() ? 'up' : 'DOWN'}, RSS ${s.memory().rssMb} MiB)`);
        step('indexed; first page');
        const [first, firstMs] = await timed(() => get(`/address/utxos/litecoin/${address}`));
        const firstPage = parseApiJson(first.body) as Utxos;
        const [all, allMs] = await timed(async () => {
          let n = 0;
          let pages = 0;
          let cursor: string | undefined;
          let newest: Utxos['utxos'][number] | undefined;
          do {
            const page = parseApiJson((await get(`/address/utxos/litecoin/${address}${cursor ? `?cursor=${cursor}` : ''}`)).body) as Utxos;
            n += page.utxos.length;
            pages++;
            newest = page.utxos.at(-1) ?? newest;
            cursor = page.next_cursor;
          } while (cursor !== undefined);
          return { n, pages, newest };
        });
        step('every page read; 1,000 at once');
        const [burst, burstMs] = await timed(() => fireAtOnce(s.url, `/address/utxos/litecoin/${address}`, o.requests));
        const [among] = await timed(() => fireAtOnce(s.url, `/address/utxos/litecoin/${hundred}`, 100));
        // the address's other answers, 100 at once each: bounded as well (a balance, a history page)
        step('100 balances at once');
        const [balances, balancesMs] = await timed(() => fireAtOnce(s.url, `/address/balance/litecoin/${address}`, 100));
        step('100 history pages at once');
        const [histories, historiesMs] = await timed(() => fireAtOnce(s.url, `/address/history/litecoin/${address}`, 100));
        const create = await fetch(`${s.url}/multi_sig/create/litecoin`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ number_of_required_signatures: 2, redeem_scripts: [{ public_keys: cosigners.map((k) => Buffer.from(k).toString('hex')) }], to: address, amount: Number(50n * EACH) }),
        });
        await create.arrayBuffer();
        // coin control naming the newest output (paying 0.8 of it: above the dust limit): looked up by its key, not by paging to it
        const [named, namedMs] = await timed(async () => {
          const res = await fetch(`${s.url}/multi_sig/create/litecoin`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ number_of_required_signatures: 2, redeem_scripts: [{ public_keys: cosigners.map((k) => Buffer.from(k).toString('hex')) }], outputs: [{ to: address, amount: Number((EACH * 4n) / 5n) }], fee_rate: 1, inputs: [`${all.newest!.txid}:${all.newest!.vout}`] }),
          });
          await res.arrayBuffer();
          return res.status;
        });
        const after = s.memory();
        const up = s.alive() && (await fetch(`${s.url}/healthz`).then((r) => r.status).catch(() => 0)) === 200;
        console.log(`\n== ${kind} ==`);
        console.log(`indexed ${height + 1} blocks in ${seconds(indexMs)}; RSS after indexing ${indexed.rssMb} MiB`);
        console.log(`plain request: ${first.status}, ${firstPage.utxos.length} outputs, next_cursor ${firstPage.next_cursor ? 'given' : 'absent'}, ${(first.body.length / 1024).toFixed(0)} KiB in ${firstMs.toFixed(0)} ms`);
        console.log(`every page: ${all.n.toLocaleString('en-US')} outputs in ${all.pages} pages, ${seconds(allMs)} (${(allMs / all.pages).toFixed(1)} ms a page)`);
        console.log(`${o.requests.toLocaleString('en-US')} requests at once: ${JSON.stringify(burst.statuses)} in ${seconds(burstMs)}, ${(burst.bytes / 2 ** 20).toFixed(0)} MiB answered; 100 x 100 addresses at once: ${JSON.stringify(among.statuses)}${Object.keys({ ...burst.errors, ...among.errors }).length ? ` (failures: ${JSON.stringify({ ...burst.errors, ...among.errors })})` : ''}`);
        console.log(`100 balances at once: ${JSON.stringify(balances.statuses)} in ${seconds(balancesMs)}; 100 history pages at once: ${JSON.stringify(histories.statuses)} in ${seconds(historiesMs)}`);
        console.log(`multi_sig/create over the address: ${create.status}; with inputs naming its newest output: ${named} in ${namedMs.toFixed(0)} ms`);
        console.log(`service RSS: ${after.rssMb} MiB now, peak ${after.peakMb} MiB; up: ${up ? 'yes' : 'NO'}`);
        const ok = up && first.status === 200 && all.n === o.outputs && burst.statuses[200] === o.requests && among.statuses[200] === 100 && answeredOrRefused(balances.statuses, kind) && answeredOrRefused(histories.statuses, kind) && create.status === 200 && named === 200;
        if (!ok) {
          failed = true;
          console.log(`FAILED on ${kind}:\n${s.output().slice(-3000)}`);
        }
      } catch (err) {
        failed = true;
        console.log(`FAILED on ${kind}: ${err instanceof Error ? err.message : String(err)}\n${service?.output().slice(-4000) ?? ''}`);
      } finally {
        await service?.stop();
        if (kind === 'postgres') {
          const client = new pg.Client({ connectionString: PG_URL });
          await client.connect();
          await client.query(`drop schema if exists "${schema}" cascade`);
          await client.end();
        }
      }
    }
  } finally {
    await node.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  return failed ? 1 : 0;
}
