// The service's log as an operator reads it, from the process itself (node_modules/.bin/node
// --import tsx service/cli.ts, as the unit runs it) on litecoind -regtest behind dev/chains/slow-rpc.ts,
// which slows its block reads so a catch-up lasts long enough to be seen and interrupted. Every stdout
// line is parsed with a check for repeated keys (test/log-lines.ts). One database goes through the
// tests in order: a catch-up stopped by SIGTERM, a restart that resumes there and catches up, then
// two changes of database.index.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fundedNode, nodeRpcBackendConfig, type RegtestNode } from '../dev/chains/litecoind.ts';
import { startSlowRpc, type SlowRpc } from '../dev/chains/slow-rpc.ts';
import type { LogLine } from './test/log-lines.ts';
import { spawnService, type ServiceProcess } from './test/service-process.ts';
import { until } from './test/until.ts';

const root = new URL('..', import.meta.url).pathname;
const version = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;
const INFO = 30;
const DEBUG = 20;

let node: RegtestNode;
let slow: SlowRpc;
let dir: string;
let tip: number;

function start(database: Record<string, string>): ServiceProcess {
  const configPath = join(dir, `config-${Date.now()}.json`);
  const config = {
    listen: { host: '127.0.0.1', port: 0 },
    database,
    auth: { required: false },
    log: { level: 'debug' },
    coins: { litecoin: { network: 'regtest', backend: { ...nodeRpcBackendConfig(node, 200), url: slow.url } } },
  };
  writeFileSync(configPath, JSON.stringify(config));
  return spawnService(join(root, 'node_modules', '.bin', 'node'), ['--import', 'tsx', 'service/cli.ts', '--config', configPath], { cwd: root });
}

const startLine = (s: ServiceProcess) => s.line('the startup line', (l) => /starting on Node/.test(l.msg));
const msgs = (s: ServiceProcess, re: RegExp): LogLine[] => s.lines.filter((l) => re.test(l.msg));

async function indexedHeight(s: ServiceProcess): Promise<number | null> {
  const body = (await (await fetch(`${await s.url()}/status`)).json()) as { coins: { coin: string; indexed_height: number | null }[] };
  return body.coins.find((c) => c.coin === 'litecoin')?.indexed_height ?? null;
}

beforeAll(async () => {
  node = await fundedNode();
  await node.mine(300);
  tip = await node.rpc.call<number>('getblockcount');
  // six block reads in flight at 300 ms each: 20 blocks a second at most, so the 400 blocks take 20 s
  // and the restarted catch-up (from block 20 to 60, wherever SIGTERM ended the first) over 10 s
  slow = await startSlowRpc(node.rpcConfig.url, 300);
  dir = mkdtempSync(join(tmpdir(), 'countersign-logs-'));
}, 180_000);

afterAll(async () => {
  await slow?.close();
  await node?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the service log', () => {
  const sqlite = () => join(dir, 'service.sqlite');
  let stoppedAt = -1;

  it('SIGTERM in mid-catch-up: says where it stopped, never "caught up"', async () => {
    const s = start({ sqlite: sqlite() });
    try {
      const first = await startLine(s);
      expect(first).toMatchObject({ level: INFO, version, coins: [{ coin: 'litecoin', network: 'regtest', backend: 'node-rpc', index: 'full', indexedHeight: null }], store: { kind: 'sqlite', path: sqlite() } });
      expect(first.msg).toContain('from an empty index');
      await s.line('the catch-up start', (l) => /^index: catching up from block 0/.test(l.msg));
      await until('some blocks indexed', async () => ((await indexedHeight(s)) ?? 0) > 20);
      expect(await s.stop('SIGTERM')).toBe(0);
      expect(msgs(s, /caught up/)).toEqual([]);
      const stopped = msgs(s, /^index: stopped at block/);
      expect(stopped).toHaveLength(1);
      expect(stopped[0]).toMatchObject({ level: INFO, tip });
      stoppedAt = stopped[0]!.height as number;
      expect(stoppedAt).toBeLessThan(tip);
      expect(s.problems).toEqual([]);
    } finally {
      await s.stop('SIGKILL');
    }
  }, 180_000);

  it('a restart says where it resumes; progress with a percentage and an ETA; caught up; a new tip at debug; a lagging index as such', async () => {
    const s = start({ sqlite: sqlite() });
    try {
      const first = await startLine(s);
      expect(first).toMatchObject({ coins: [{ coin: 'litecoin', indexedHeight: stoppedAt }] });
      expect(first.msg).toContain(`resuming after block ${stoppedAt}`);
      const begin = await s.line('the catch-up start', (l) => /^index: catching up from block/.test(l.msg));
      expect(begin).toMatchObject({ from: stoppedAt + 1, tip, basis: 'transactions' });
      expect(begin.percent as number).toBeGreaterThan(0);
      // a query while the index lags: 503, logged as the index lagging, not as an upstream error
      const address = await node.newAddress();
      expect((await fetch(`${await s.url()}/address/balance/litecoin/${address}`)).status).toBe(503);
      const lagging = await s.line('the lagging answer', (l) => /^index lagging/.test(l.msg));
      expect(lagging).toMatchObject({ level: INFO, coin: 'litecoin', status: 503 });
      const progress = await s.line('a progress line', (l) => /^index: catching up: block/.test(l.msg), 90_000);
      expect(progress).toMatchObject({ level: INFO, tip, basis: 'transactions' });
      expect(progress.percent as number).toBeGreaterThan(begin.percent as number);
      expect(progress.percent as number).toBeLessThan(100);
      expect(typeof progress.etaSeconds).toBe('number');
      expect(progress.msg).toMatch(/%, about .* left$/);
      const caught = await s.line('caught up', (l) => /^index: caught up/.test(l.msg), 120_000);
      expect(caught).toMatchObject({ level: INFO, height: tip });
      // steady state: one new block, one line at debug
      await node.mine(1);
      const newTip = await s.line('the new tip', (l) => l.msg === `index: new tip ${tip + 1}`);
      expect(newTip.level).toBe(DEBUG);
      expect(msgs(s, /upstream error/)).toEqual([]);
      expect(await s.stop('SIGTERM')).toBe(0);
      expect(s.problems).toEqual([]);
      tip += 1;
    } finally {
      await s.stop('SIGKILL');
    }
  }, 180_000);

  it('a change of database.index says the index is built again elsewhere and names the old place', async () => {
    const moveTo = async (database: Record<string, string>) => {
      const s = start(database);
      try {
        const moved = await s.line('the move', (l) => /^index: the litecoin index moved/.test(l.msg));
        expect(await s.stop('SIGTERM')).toBe(0);
        expect(s.problems).toEqual([]);
        return moved;
      } finally {
        await s.stop('SIGKILL');
      }
    };
    {
      // said before the first block is read (the SIGTERM then ends the slow catch-up in the new place)
      const toLevel = await moveTo({ sqlite: sqlite(), index: join(dir, 'index-a') });
      expect(toLevel).toMatchObject({ level: 40, from: `the tables of ${sqlite()}`, to: `the LevelDB folder ${join(dir, 'index-a', 'litecoin')}`, resumesAfter: null });
      expect(toLevel.msg).toContain('it is built again from the start');
      const toOther = await moveTo({ sqlite: sqlite(), index: join(dir, 'index-b') });
      expect(toOther).toMatchObject({ oldFolder: join(dir, 'index-a', 'litecoin'), to: `the LevelDB folder ${join(dir, 'index-b', 'litecoin')}` });
      expect(toOther.msg).toContain(`delete that folder`);
      // back to the tables: they still hold the index at the height it had
      const back = await moveTo({ sqlite: sqlite() });
      expect(back).toMatchObject({ oldFolder: join(dir, 'index-b', 'litecoin'), resumesAfter: tip });
    }
  }, 180_000);
});
