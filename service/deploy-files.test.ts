// The operator's files in deploy/ stay true to the service: the example configuration parses with
// the service's own schema (both database forms), and the systemd unit starts the CLI that exists.
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { loadConfigFile, parseConfig } from './config.ts';
import { unitSettings } from './test/unit-file.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const examplePath = join(root, 'deploy', 'config.example.json');
const unitText = readFileSync(join(root, 'deploy', 'countersign.service'), 'utf8');

describe('deploy/config.example.json', () => {
  const example = JSON.parse(readFileSync(examplePath, 'utf8')) as Record<string, unknown>;

  it('parses with the service configuration schema (the SQLite form)', () => {
    const config = loadConfigFile(examplePath);
    expect(config.database).toEqual({ sqlite: '/var/lib/countersign/service.sqlite', index: '/var/lib/countersign/index' });
    expect(Object.keys(config.coins).sort()).toEqual(['bitcoin', 'dash', 'ethereum', 'litecoin']);
    expect(config.rateLimit).toMatchObject({ enabled: true, requestsPerWindow: 600, windowSeconds: 60, burst: 60 });
    expect(config.cors.origins).toEqual([]);
    expect(config.readiness.maxLagBlocks).toBe(3);
    expect(config.metrics.enabled).toBe(true);
    expect(config.auth).toMatchObject({ required: true, maxFailures: 10, failureWindowSeconds: 60 });
  });

  it("names a cookie file the unit can see (ProtectHome=yes hides /home, /root and /run/user), as the README's example does", () => {
    const hidden = /^\/(home|root|run\/user)(\/|$)/;
    const config = loadConfigFile(examplePath);
    const cookie = config.coins.litecoin?.backend.type === 'node-rpc' ? config.coins.litecoin.backend.cookieFile : undefined;
    expect(cookie).toBe('/var/lib/litecoind/.cookie');
    expect(unitSettings(unitText).get('ProtectHome')).toBe('yes');
    // The service's part of the README (the desk's own node, run as the treasurer, is another matter).
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const servicePart = readme.slice(readme.indexOf('## Running the service'), readme.indexOf('## The desktop coordinator'));
    const cookies = [...servicePart.matchAll(/"cookieFile": "([^"]+)"/g)].map((m) => m[1]!);
    expect(cookies.length).toBeGreaterThan(0);
    for (const c of cookies) {
      expect(c, 'a README cookie path').not.toMatch(hidden);
      expect(c).toBe(cookie);
    }
  });

  it('parses with its PostgreSQL form in place of the SQLite one', () => {
    const key = Object.keys(example).find((k) => k.startsWith('//database'));
    expect(key).toBeDefined();
    const config = parseConfig({ ...example, database: example[key!] });
    expect(config.database).toEqual({ postgres: expect.stringMatching(/^postgresql:\/\//), schema: 'countersign' });
  });

  it('keeps the SQLite file and the LevelDB index where the unit may write', () => {
    const config = loadConfigFile(examplePath);
    const writable = (unitSettings(unitText).get('ReadWritePaths') ?? '').split(/\s+/);
    const db = config.database;
    if (!('sqlite' in db) || db.index === undefined) throw new Error('the example is meant to use SQLite with a LevelDB index');
    expect(writable).toContain(dirname(db.sqlite));
    expect(writable).toContain(dirname(db.index));
  });
});

describe('deploy/countersign.service', () => {
  const unit = unitSettings(unitText);
  const workdir = unit.get('WorkingDirectory')!;
  const execStart = unit.get('ExecStart')!.split(/\s+/);

  it('runs the CLI of this checkout as a dedicated user, restarting on failure, hardened', () => {
    expect(unit.get('User')).toBe('countersign');
    expect(unit.get('Restart')).toBe('on-failure');
    for (const [k, v] of [
      ['NoNewPrivileges', 'yes'],
      ['ProtectSystem', 'strict'],
      ['PrivateTmp', 'yes'],
      ['ProtectHome', 'yes'],
    ]) {
      expect(unit.get(k!), k).toBe(v);
    }
    const script = execStart.find((a) => a.endsWith('.ts'))!;
    expect(script).toBe('service/cli.ts');
    expect(existsSync(join(root, script))).toBe(true); // WorkingDirectory is this checkout, installed
    expect(execStart[execStart.indexOf('--config') + 1]).toBe('/etc/countersign/config.json');
    expect(readFileSync(join(root, 'deploy', 'countersign.sysusers'), 'utf8')).toMatch(new RegExp(`^u ${unit.get('User')} `, 'm'));
  });

  it('runs the Node that npm ci linked into the checkout (node_modules/.bin/node), never the system one', () => {
    expect(execStart[0]).toBe(`${workdir}/node_modules/.bin/node`);
    // scripts/ensure-node.cjs links it on every install: Node 22 fetched, or the running Node when new enough
    expect(existsSync(join(root, 'node_modules', '.bin', 'node'))).toBe(true);
  });

  it('gives the process room above its heap flag', () => {
    const heapMb = Number(/--max-old-space-size=(\d+)/.exec(unit.get('ExecStart')!)?.[1]);
    const package_ = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(package_.scripts.service).toContain(`--max-old-space-size=${heapMb}`);
    const maxMb = Number(/^(\d+)M$/.exec(unit.get('MemoryMax') ?? '')?.[1]);
    expect(maxMb).toBeGreaterThanOrEqual(2 * heapMb);
  });

  it('starts: the ExecStart command line, run from the checkout, answers --help', async () => {
    expect(workdir).toBe('/opt/countersign');
    const [, ...args] = execStart; // the node binary here is the one running the tests
    const withHelp = [...args.slice(0, args.indexOf('--config')), '--config', examplePath, '--help'];
    const { stdout } = await promisify(execFile)(process.execPath, withHelp, { cwd: root, timeout: 60_000 });
    expect(stdout).toMatch(/countersign --config FILE\s+run the service/);
  });
});

describe('the documented commands', () => {
  // README.md and docs/: a shell line that starts Countersign with a bare `node` (Debian's 20 on the
  // PATH) or /usr/bin/node would crash in better-sqlite3; they go through npm run or node_modules/.bin/node.
  const files = [join(root, 'README.md'), ...readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => join(root, 'docs', f))];

  it('run the Node the project installs, not the one on the PATH', () => {
    const bare: string[] = [];
    for (const file of files) {
      const blocks = readFileSync(file, 'utf8').split('```').filter((_, i) => i % 2 === 1);
      for (const block of blocks.filter((b) => /^(sh|bash|shell)\n/.test(b))) {
        for (const line of block.split('\n')) if (/(^|[\s;&|(])(\/usr\/bin\/)?node\s+(--|[\w./-]+\.[cm]?[jt]s\b)/.test(line.replace(/#.*$/, ''))) bare.push(`${file}: ${line}`);
      }
    }
    expect(bare).toEqual([]);
  });
});

