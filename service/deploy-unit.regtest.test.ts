// deploy/countersign.service run as systemd would run it, as far as a container allows (PID 1 is not
// systemd here): `systemd-analyze verify` on the unit, then its exact ExecStart line, as the unit's
// user (made from deploy/countersign.sysusers with useradd), from its WorkingDirectory, with the
// unit's environment and systemd's default PATH (where the system's Node is: Debian's 20 on CI),
// until the service answers /readyz on a litecoind regtest node. A private mount namespace puts this
// checkout at the unit's WorkingDirectory (read-only: ProtectSystem=strict), a config at
// /etc/countersign (ConfigurationDirectory), a state folder at /var/lib/countersign (StateDirectory),
// empty /tmp (PrivateTmp) and /home, /root (ProtectHome); setpriv adds NoNewPrivileges and the empty
// capability bounding set. The README's `sudo -u countersign ...` commands run in the same place.
// Needs root (accounts, mounts), unshare, setpriv, useradd, systemd-analyze and litecoind: it fails
// naming what is missing. It leaves the account and the three empty mount points on the host.
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLitecoind, type RegtestNode } from '../dev/chains/litecoind.ts';
import { spawnService } from './test/service-process.ts';
import { shellWords, unitSettings } from './test/unit-file.ts';
import { until } from './test/until.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const unitPath = join(root, 'deploy', 'countersign.service');
const unit = unitSettings(readFileSync(unitPath, 'utf8'));
const execStart = unit.get('ExecStart')!;
const workdir = unit.get('WorkingDirectory')!;
const configDir = `/etc/${unit.get('ConfigurationDirectory')}`;
const stateDir = `/var/lib/${unit.get('StateDirectory')}`;
// systemd's PATH for system services (systemd.exec(5), "Environment variables in spawned processes").
const SYSTEMD_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

// The sandbox: mounts in a private namespace (none of them reach the host), then the command as root
// ("root") or as the unit's user with the unit's environment ("user").
const SANDBOX = `
set -e
checkout="$1" etc="$2" state="$3" workdir="$4" confdir="$5" statedir="$6" mode="$7" user="$8" home="$9"; shift 9
mkdir -p "$workdir" "$confdir" "$statedir"
mount --bind "$checkout" "$workdir" && mount -o remount,bind,ro "$workdir"
mount --bind "$etc" "$confdir" && mount -o remount,bind,ro "$confdir"
mount --bind "$state" "$statedir"
for d in /home /root /run/user; do if [ -d "$d" ]; then mount -t tmpfs -o mode=0755 tmpfs "$d"; fi; done
mount -t tmpfs -o mode=1777 tmpfs /tmp
cd "$workdir"
[ "$mode" = root ] && exec "$@"
exec setpriv --reuid="$user" --regid="$user" --init-groups --no-new-privs --bounding-set=-all -- \\
  env -i PATH="${SYSTEMD_PATH}" HOME="$home" USER="$user" LOGNAME="$user" SHELL=/usr/sbin/nologin ${unit.get('Environment') ?? ''} "$@"
`;

interface Account {
  user: string;
  home: string;
}

function missingTools(): string[] {
  const missing: string[] = [];
  if (process.getuid?.() !== 0) missing.push('root (accounts and mounts)');
  for (const tool of ['unshare', 'setpriv', 'useradd', 'systemd-analyze', 'litecoind']) {
    if (spawnSync('sh', ['-c', `command -v ${tool}`], { env: { PATH: `${process.env.PATH}:${SYSTEMD_PATH}` } }).status !== 0) missing.push(tool);
  }
  return missing;
}

/** The account of deploy/countersign.sysusers (`u NAME ID "GECOS" HOME SHELL`), made with useradd when absent. */
function ensureAccount(): Account {
  const line = readFileSync(join(root, 'deploy', 'countersign.sysusers'), 'utf8')
    .split('\n')
    .find((l) => l.startsWith('u '));
  const [, user, , gecos, home, shell] = shellWords(line!);
  expect(user).toBe(unit.get('User'));
  if (spawnSync('id', ['-u', user!]).status !== 0) {
    const made = spawnSync('useradd', ['--system', '--user-group', '--no-create-home', '--home-dir', home!, '--shell', shell!, '--comment', gecos!, user!], { encoding: 'utf8' });
    // another run may have made it meanwhile
    if (made.status !== 0 && spawnSync('id', ['-u', user!]).status !== 0) throw new Error(`useradd ${user}: ${made.stderr}`);
  }
  return { user: user!, home: home! };
}

let node: RegtestNode;
let account: Account;
let etc: string;
let state: string;
let apiKey = '';

function sandboxArgs(mode: 'root' | 'user', argv: readonly string[]): string[] {
  return ['--mount', '--propagation', 'private', '--', 'sh', '-c', SANDBOX, 'sandbox', root, etc, state, workdir, configDir, stateDir, mode, account.user, account.home, ...argv];
}

function inSandbox(mode: 'root' | 'user', argv: readonly string[]) {
  return spawnSync('unshare', sandboxArgs(mode, argv), { encoding: 'utf8', timeout: 90_000, env: { PATH: `${process.env.PATH}:${SYSTEMD_PATH}` } });
}

beforeAll(async () => {
  const missing = missingTools();
  if (missing.length > 0) throw new Error(`the deploy test needs ${missing.join(', ')}: run it as root on Debian with the systemd, util-linux, passwd and litecoind packages`);
  account = ensureAccount();
  node = await startLitecoind();
  await node.mine(120);
  // /etc/countersign as the README installs it: root:countersign 0750, the file 0640.
  const gid = Number(spawnSync('id', ['-g', account.user], { encoding: 'utf8' }).stdout.trim());
  const uid = Number(spawnSync('id', ['-u', account.user], { encoding: 'utf8' }).stdout.trim());
  etc = mkdtempSync(join(tmpdir(), 'countersign-deploy-etc-'));
  state = mkdtempSync(join(tmpdir(), 'countersign-deploy-state-'));
  const example = JSON.parse(readFileSync(join(root, 'deploy', 'config.example.json'), 'utf8')) as Record<string, unknown>;
  const config = {
    ...example,
    listen: { host: '127.0.0.1', port: 0 },
    coins: {
      litecoin: {
        network: 'regtest',
        backend: { type: 'node-rpc', url: node.rpcConfig.url, username: node.rpcConfig.username, password: node.rpcConfig.password, pollIntervalMs: 500 },
      },
    },
    prices: { source: 'static' },
  };
  writeFileSync(join(etc, 'config.json'), JSON.stringify(config, null, 2));
  chownSync(etc, 0, gid);
  chmodSync(etc, 0o750);
  chownSync(join(etc, 'config.json'), 0, gid);
  chmodSync(join(etc, 'config.json'), 0o640);
  // what StateDirectory=countersign with StateDirectoryMode=0750 makes
  chownSync(state, uid, gid);
  chmodSync(state, 0o750);
}, 180_000);

afterAll(async () => {
  await node?.stop();
  for (const d of [etc, state]) if (d) rmSync(d, { recursive: true, force: true });
});

describe('deploy/countersign.service in a sandbox like its own', () => {
  it('passes systemd-analyze verify, its ExecStart binary in place at the installed path', () => {
    const r = inSandbox('root', ['systemd-analyze', 'verify', `${workdir}/deploy/countersign.service`]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  it("runs the README's commands as the unit's user: keys create writes to the unit's database", () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const commands = readme.split('\n').filter((l) => l.startsWith(`sudo -u ${account.user} `));
    expect(commands.length).toBeGreaterThan(0);
    for (const command of commands) {
      const argv = shellWords(command.replace(/#.*$/, '')).slice(3); // after sudo -u USER
      const r = inSandbox('user', argv);
      expect(r.status, `${command}\n${r.stderr}`).toBe(0);
      apiKey ||= /^(cs_[A-Za-z0-9_-]+)$/m.exec(r.stdout)?.[1] ?? '';
    }
    expect(apiKey).not.toBe('');
  });

  it("refuses the system's Node in words (the old unit's /usr/bin/node), not with a crash", () => {
    const systemNode = spawnSync('sh', ['-c', 'command -v node'], { encoding: 'utf8', env: { PATH: SYSTEMD_PATH } }).stdout.trim();
    expect(systemNode, 'a node on the PATH').not.toBe('');
    const major = Number(spawnSync(systemNode, ['-p', 'process.versions.node.split(".")[0]'], { encoding: 'utf8' }).stdout.trim());
    const [, ...args] = execStart.split(/\s+/);
    const r = inSandbox('user', [systemNode, ...args, '--version']);
    if (major < 22) {
      expect(r.status, r.stderr).toBe(1);
      expect(r.stderr).toMatch(/cannot run Countersign: it needs Node >= 22/);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    } else {
      // a system Node new enough runs it: the check has nothing to refuse
      expect(r.status, r.stderr).toBe(0);
    }
  });

  it('runs its exact ExecStart line as its user until /readyz answers, then stops on SIGTERM', async () => {
    const argv = execStart.split(/\s+/);
    expect(argv[0], 'an absolute path, no systemd prefix').toMatch(/^\//);
    const service = spawnService('unshare', sandboxArgs('user', argv), { cwd: root, env: { PATH: `${process.env.PATH}:${SYSTEMD_PATH}` } });
    try {
      const url = await service.url();
      const tip = await node.rpc.call<number>('getblockcount');
      await until('/readyz answering 200', async () => (await fetch(`${url}/readyz`)).status === 200, { deadlineMs: 120_000, everyMs: 250 });
      // the key the README's `keys create` made, in the database the running service reads
      expect((await fetch(`${url}/status`, { headers: { 'x-api-key': apiKey } })).status).toBe(200);
      const start = service.lines.find((l) => /starting on Node/.test(l.msg))!;
      expect(start).toMatchObject({ store: { kind: 'sqlite', path: `${stateDir}/service.sqlite`, index: `${stateDir}/index` }, coins: [{ coin: 'litecoin', network: 'regtest', index: 'full' }] });
      expect(Number((start.node as string).split('.')[0])).toBeGreaterThanOrEqual(22);
      await until('the index at the node tip', async () => {
        const body = (await (await fetch(`${url}/status`, { headers: { 'x-api-key': apiKey } })).json()) as { coins: { coin: string; indexed_height: number | null }[] };
        return body.coins.find((c) => c.coin === 'litecoin')?.indexed_height === tip;
      });
      expect(await service.stop('SIGTERM')).toBe(0);
      expect(service.problems).toEqual([]);
    } finally {
      await service.stop('SIGKILL');
    }
  }, 240_000);
});
