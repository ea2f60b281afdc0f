// A node's cookie file the service may not read is said as a permission problem, with the fix
// (the node's -rpccookieperms=group, or its group), by the RPC client and by Settings' probe; a
// missing one still asks whether the node runs with that datadir. The unreadable file is real:
// tests run as root, who reads anything, so the reading runs in a child process as nobody.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { cookieProblem, readCookieFile } from './cookie-file.ts';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const NOBODY = 65534;
const dir = mkdtempSync(join(tmpdir(), 'countersign-cookie-'));
chmodSync(dir, 0o755);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// What the RPC client and the probe say of `path`, read by a user who may not read it.
const READ_BOTH = `
const path = process.argv[1];
const { probeChain } = await import('./service/service.ts');
const { RpcClient } = await import('./service/chains/utxo/rpc-client.ts');
const probe = await probeChain('litecoin', { network: 'regtest', backend: { type: 'node-rpc', url: 'http://127.0.0.1:1', cookieFile: path } });
const client = new RpcClient({ url: 'http://127.0.0.1:1', cookieFile: path });
const call = await client.call('getblockchaininfo').then(() => null, (e) => ({ kind: e.kind, message: e.message }));
client.close();
process.stdout.write(JSON.stringify({ probe, call }));
`;

/**
 * Runs `read` with every folder from `/` down to `path` open to others' passage (o+x), as it was
 * after: CI's clone sits in a 0700 temporary folder nobody may not enter, and the child as nobody
 * loads the checkout's code and its Node from there.
 */
function withPassage<T>(path: string, read: () => T): T {
  const opened: { dir: string; mode: number }[] = [];
  for (let d = path; ; d = dirname(d)) {
    const mode = statSync(d).mode & 0o7777;
    if ((mode & 0o001) === 0) {
      chmodSync(d, mode | 0o001);
      opened.push({ dir: d, mode });
    }
    if (dirname(d) === d) break;
  }
  try {
    return read();
  } finally {
    for (const { dir: d, mode } of opened) chmodSync(d, mode);
  }
}

function readAsNobody(path: string): { probe: { ok: boolean; field?: string; message?: string }; call: { kind: string; message: string } | null } {
  if (process.getuid?.() !== 0) throw new Error('this test reads the cookie as nobody from a child process, which needs root (tests run as root)');
  const r = withPassage(root, () => withPassage(dirname(process.execPath), () => spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', READ_BOTH, path], { cwd: root, uid: NOBODY, gid: NOBODY, encoding: 'utf8', timeout: 60_000 })));
  if (r.status !== 0) throw new Error(`the child as nobody failed (${r.status}): ${r.stderr}`);
  return JSON.parse(r.stdout) as ReturnType<typeof readAsNobody>;
}

describe('the cookie file', () => {
  it('says permission denied, who was denied, the file, and the fix', () => {
    const words = cookieProblem('/var/lib/litecoind/.cookie', 'EACCES', { user: 'countersign', uid: 998, file: { uid: 997, gid: 996, mode: 0o100600 } });
    expect(words).toBe(
      'cannot read the RPC cookie file /var/lib/litecoind/.cookie (EACCES): permission denied to countersign (uid 998); it belongs to uid 997, group 996, mode 600. ' +
        'The node writes its cookie for its own user only: start the node with -rpccookieperms=group (Bitcoin Core 28 and later; Litecoin Core 0.21: -sysperms with -disablewallet) ' +
        "and add countersign to the node's group (usermod -aG <node group> countersign, the data folder open to that group), or give the service an rpcauth user and password in place of the cookie",
    );
    expect(cookieProblem('/x/.cookie', 'EACCES')).toMatch(/permission denied to the user this service runs as; a folder on its way may not be entered/);
    expect(cookieProblem('/x/.cookie', 'ENOENT')).toBe('cannot read the RPC cookie file /x/.cookie (ENOENT): is the node running with this datadir?');
  });

  it('reads a readable one, trimmed', async () => {
    const path = join(dir, 'readable.cookie');
    writeFileSync(path, '__cookie__:abc\n');
    expect(await readCookieFile(path)).toBe('__cookie__:abc');
    await expect(readCookieFile(join(dir, 'missing.cookie'))).rejects.toThrow(/\(ENOENT\): is the node running with this datadir\?/);
  });

  it('of mode 000, read by another user: the client and the probe say permission denied and the fix', () => {
    const path = join(dir, '.cookie');
    writeFileSync(path, '__cookie__:secret');
    chmodSync(path, 0o000);
    const { probe, call } = readAsNobody(path);
    const denied = new RegExp(`^cannot read the RPC cookie file ${path.replaceAll('.', '\\.')} \\(EACCES\\): permission denied to nobody \\(uid ${NOBODY}\\); it belongs to uid 0, group 0, mode 000\\. .*-rpccookieperms=group`);
    expect(call).toEqual({ kind: 'auth', message: expect.stringMatching(denied) });
    expect(probe).toEqual({ ok: false, field: 'cookieFile', message: expect.stringMatching(denied) });
  });

  it('in a folder another user may not enter: permission denied too', () => {
    const closed = mkdtempSync(join(dir, 'datadir-'));
    const path = join(closed, '.cookie');
    writeFileSync(path, '__cookie__:secret', { mode: 0o644 });
    chmodSync(closed, 0o700);
    const { call } = readAsNobody(path);
    expect(call?.message).toMatch(/\(EACCES\): permission denied to nobody \(uid 65534\); a folder on its way may not be entered\. .*usermod -aG <node group> nobody/);
  });
});
