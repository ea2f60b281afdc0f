// Two service processes on one store (issue 33, points 9 and 7): the second on the same SQLite file
// exits non-zero naming the instance that holds it, and once the first is killed with -9 a new one
// starts (the kernel released the lock). Two on one LevelDB index folder: the second exits with one
// line in words, before listening, not a stack trace after it.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

const root = new URL('../..', import.meta.url).pathname;
let dir: string;
const running: ChildProcess[] = [];

interface Run {
  child: ChildProcess;
  out: () => string;
  err: () => string;
  exited: Promise<number | null>;
}

/** The service CLI in its own Node process (not through the tsx wrapper: kill -9 must reach the service itself). */
function serve(config: object, name: string): Run {
  const path = join(dir, `${name}.json`);
  writeFileSync(path, JSON.stringify(config));
  const child = spawn(process.execPath, ['--import', 'tsx', 'service/cli.ts', '--config', path], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  running.push(child);
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code, signal) => resolve(code ?? (signal ? -1 : null))));
  return { child, out: () => out, err: () => err, exited };
}

async function listening(run: Run): Promise<void> {
  await expect.poll(() => /service listening/.test(run.out()) || run.child.exitCode !== null, { timeout: 60_000, interval: 100 }).toBe(true);
  expect(run.out(), run.err()).toMatch(/service listening/);
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'countersign-instances-'));
});
afterEach(async () => {
  for (const c of running.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('one instance per store', () => {
  it('refuses a second service on the same SQLite file, naming the first; after kill -9 of the first a new one starts', async () => {
    const config = { listen: { host: '127.0.0.1', port: 0 }, database: { sqlite: join(dir, 'one.sqlite') }, log: { level: 'info' } };
    const first = serve(config, 'first');
    await listening(first);

    const second = serve(config, 'second');
    expect(await second.exited).not.toBe(0);
    const lines = second.err().trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`another instance \\(pid ${first.child.pid} on .*, started .*, listening on 127\\.0\\.0\\.1:0\\) already serves the database ${join(dir, 'one.sqlite')}`));
    expect(second.out()).not.toMatch(/service listening/);

    first.child.kill('SIGKILL');
    await first.exited;
    const third = serve(config, 'third');
    await listening(third);
    third.child.kill('SIGTERM');
    expect(await third.exited).toBe(0);
  });

  it('refuses a second service on the same LevelDB index folder in one line, before listening', async () => {
    // A node that is not there: the index folder is opened at start whatever the node does.
    const coins = { litecoin: { network: 'regtest', backend: { type: 'node-rpc', url: 'http://127.0.0.1:1', username: 'u', password: 'p' } } };
    const index = join(dir, 'index');
    const first = serve({ listen: { host: '127.0.0.1', port: 0 }, database: { sqlite: join(dir, 'a.sqlite'), index }, coins, log: { level: 'info' } }, 'level-first');
    await listening(first);
    const second = serve({ listen: { host: '127.0.0.1', port: 0 }, database: { sqlite: join(dir, 'b.sqlite'), index }, coins, log: { level: 'info' } }, 'level-second');
    expect(await second.exited).not.toBe(0);
    const lines = second.err().trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^countersign: cannot open the LevelDB index in ${join(index, 'litecoin')}.*: another process \\(a second service on this folder\\?\\) holds it`));
    expect(second.out()).not.toMatch(/service listening/);
  });
});
