// The service's command line, as an operator uses it: API keys created and revoked against the
// configured database, and the server run from a config file and stopped gracefully.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = new URL('..', import.meta.url).pathname;
const tsx = join(root, 'node_modules', '.bin', 'tsx');
let dir: string;
let configPath: string;

function cli(...args: string[]) {
  const r = spawnSync(tsx, ['service/cli.ts', '--config', configPath, ...args], { cwd: root, encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'countersign-cli-'));
  configPath = join(dir, 'config.json');
  writeFileSync(configPath, JSON.stringify({ listen: { host: '127.0.0.1', port: 0 }, database: { sqlite: 'db/service.sqlite' }, log: { level: 'info' } }));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('countersign CLI', () => {
  it('creates a key (printed once), lists it without the secret, revokes it', () => {
    const created = cli('keys', 'create', '--label', 'treasury app');
    expect(created.status).toBe(0);
    const key = /^(cs_[A-Za-z0-9_-]+)$/m.exec(created.stdout)?.[1];
    expect(key).toBeDefined();
    const id = /id ([0-9a-f]+)/.exec(created.stdout)?.[1];
    const listed = cli('keys', 'list');
    expect(listed.stdout).toContain(`${id}\ttreasury app`);
    expect(listed.stdout).not.toContain(key!);
    expect(cli('keys', 'revoke', id!).status).toBe(0);
    expect(cli('keys', 'list').stdout).toMatch(/revoked/);
    const again = cli('keys', 'revoke', id!);
    expect(again.status).toBe(2);
    expect(again.stderr).toMatch(/no live key/);
  });

  it('--version: the version of package.json and the Node that runs it', () => {
    const version = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;
    const r = cli('--version');
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(`countersign ${version} (Node ${process.versions.node})\n`);
  });

  it("under the system's Node older than 22: the service, keys and --version refuse in words, before better-sqlite3 could crash", () => {
    const major = Number(spawnSync('/usr/bin/node', ['-p', 'process.versions.node.split(".")[0]'], { encoding: 'utf8' }).stdout.trim());
    expect(major, 'the CI machine has Debian\'s Node (20) as /usr/bin/node').toBeGreaterThan(0);
    for (const args of [[], ['keys', 'create', '--label', 'x'], ['--version']]) {
      if (major >= 22 && args[0] !== '--version') continue;
      const r = spawnSync('/usr/bin/node', ['--import', 'tsx', 'service/cli.ts', '--config', configPath, ...args], { cwd: root, encoding: 'utf8', timeout: 60_000 });
      if (major >= 22) {
        // nothing to refuse: a new enough system Node runs it (--version alone, the service would stay up)
        expect(r.status).toBe(0);
        continue;
      }
      expect(r.status, r.stderr).toBe(1);
      expect(r.stderr).toMatch(/^countersign: Node \d+\.\S+ \(\/usr\/bin\/node\) cannot run Countersign: it needs Node >= 22/);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
  });

  it('refuses a bad config file with a message, not a stack trace', () => {
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ coins: { litecoin: { backend: { type: 'node-rpc', url: 'not a url' } } } }));
    const r = spawnSync(tsx, ['service/cli.ts', '--config', bad], { cwd: root, encoding: 'utf8', timeout: 60_000 });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/invalid configuration: coins\.litecoin\.backend\.url/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('refuses a typo in the config: the service exits non-zero, naming the field and the one meant', () => {
    const typo = join(dir, 'typo.json');
    writeFileSync(typo, JSON.stringify({ database: { sqlite: 'typo.sqlite' }, coins: { litecoin: { netwrok: 'regtest', backend: { type: 'node-rpc', url: 'http://127.0.0.1:1', cookiefile: '/x/.cookie' } } } }));
    const r = spawnSync(tsx, ['service/cli.ts', '--config', typo], { cwd: root, encoding: 'utf8', timeout: 60_000 });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('coins.litecoin.netwrok: unknown field; did you mean network?');
    expect(r.stderr).toContain('coins.litecoin.backend.cookiefile: unknown field; did you mean cookieFile?');
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('never replaces an invalid ./countersign.config.json by the defaults', () => {
    const here = join(dir, 'invalid-default');
    mkdirSync(here);
    writeFileSync(join(here, 'countersign.config.json'), JSON.stringify({ coins: { litecion: { network: 'regtest', backend: { type: 'node-rpc', url: 'http://127.0.0.1:1' } } } }));
    const r = spawnSync(tsx, [join(root, 'service/cli.ts')], { cwd: here, encoding: 'utf8', timeout: 60_000 });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('coins.litecion: unknown coin; did you mean litecoin?');
    expect(readdirSync(here)).toEqual(['countersign.config.json']); // no database of the defaults
  });

  it('keys: refuses to make a key without the service configuration, rather than in a new database here', () => {
    const empty = join(dir, 'no-config');
    mkdirSync(empty);
    const r = spawnSync(tsx, [join(root, 'service/cli.ts'), 'keys', 'create', '--label', 'lost'], { cwd: empty, encoding: 'utf8', timeout: 60_000 });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/keys create needs the service's configuration, to reach the database the service reads: --config FILE/);
    expect(readdirSync(empty)).toEqual([]);
  });

  it("keys: finds the config as the service does, says the database, and the service started with that config takes the key", async () => {
    const here = join(dir, 'default-lookup');
    mkdirSync(here);
    writeFileSync(join(here, 'countersign.config.json'), JSON.stringify({ listen: { host: '127.0.0.1', port: 0 }, database: { sqlite: 'state/keys.sqlite' } }));
    const made = spawnSync(tsx, [join(root, 'service/cli.ts'), 'keys', 'create', '--label', 'desk'], { cwd: here, encoding: 'utf8', timeout: 60_000 });
    expect(made.stderr).toBe('');
    expect(made.status).toBe(0);
    expect(made.stdout).toContain(`API key created in the SQLite file ${join(here, 'state', 'keys.sqlite')} (configuration ${join(here, 'countersign.config.json')})`);
    const key = /^(cs_[A-Za-z0-9_-]+)$/m.exec(made.stdout)?.[1];
    // as systemd runs it: elsewhere, with --config
    const child = spawn(tsx, ['service/cli.ts', '--config', join(here, 'countersign.config.json')], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    const exited = new Promise((resolve) => child.on('exit', resolve));
    try {
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      await expect.poll(() => /service listening/.test(out), { timeout: 30_000 }).toBe(true);
      const url = /"url":"(http:\/\/127\.0\.0\.1:\d+)"/.exec(out)?.[1];
      expect((await fetch(`${url}/status`, { headers: { 'x-api-key': key! } })).status).toBe(200);
      expect((await fetch(`${url}/status`, { headers: { 'x-api-key': `${key!}x` } })).status).toBe(401);
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
  });

  it('runs from a config file and shuts down gracefully on SIGTERM', async () => {
    const child = spawn(tsx, ['service/cli.ts', '--config', configPath], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    await expect.poll(() => /service listening/.test(out), { timeout: 30_000 }).toBe(true);
    const url = /"url":"(http:\/\/127\.0\.0\.1:\d+)"/.exec(out)?.[1];
    const health = await fetch(`${url}/healthz`);
    expect(health.status).toBe(200);
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(out).toMatch(/shutting down/);
  });
});
