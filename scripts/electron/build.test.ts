// The desktop build (`electron-vite build`, electron.vite.config.ts): bundles are produced, and the
// bundled main process really starts (in plain Node, with a recording stand-in for the electron
// module, since Electron cannot start on this machine): the embedded service comes up, every
// bridge channel is registered, the window is secure and loads the built renderer, and the bridge
// answers our page and refuses another; every web contents gets the app-wide guards.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHANNELS, ipcName } from '../../main/bridge/channels.ts';
import { CSP, DEV_CSP } from '../../main/bridge/security.ts';
import { EXPLORER_SETTING } from '../../main/core/chains/explorer-settings.ts';
import { openStore } from '../../main/core/store/store.ts';
import { hexToBytes } from '../../shared/coins/index.ts';
import type { ParseAnswer, ParseRequest } from '../../service/chains/utxo/block-parse-pool.ts';
import { encodeRawBlockBytes } from '../../service/chains/utxo/raw-block.ts';
import { RowBuffer, streamRows } from '../../service/index/level-rows.ts';

const REPO_ROOT = join(import.meta.dirname, '../..');

// Inside the repository, so the bundle resolves its npm packages from node_modules as the app does.
const out = join(REPO_ROOT, '.tmp', `desktop-build-${process.pid}`);
const stubRegistration = join(import.meta.dirname, 'testing', 'register-electron-stub.mjs');

interface StubReport {
  channels: string[];
  window: { preload: string; contextIsolation: boolean; sandbox: boolean; nodeIntegration: boolean };
  loaded: string;
  csp: string[];
  bridge: { ok: boolean; value?: { mode: string; notice: string | null } };
  /** Settings > Chains: where the embedded service's chains come from, and why none when none. */
  chains: { ok: boolean; value?: { embedded: boolean; notice: string | null } };
  untrusted: { ok: boolean; error?: { code: string } };
  guards: {
    webContentsListeners: number;
    /** For each web contents: whether each hostile step was prevented, and what window.open answered. */
    contents: {
      navigateAway: boolean;
      navigateOwn: boolean;
      redirectAway: boolean;
      attachWebview: boolean;
      openEvil: { action: string } | null;
      openFile: { action: string } | null;
      openAllowed: { action: string } | null;
    }[];
    permissionRequest: boolean | null;
    permissionCheck: boolean[] | null;
  };
  /** What reached shell.openExternal. */
  opened: string[];
}

function runBundledMain(userData: string, env: Record<string, string> = {}): StubReport {
  const run = spawnSync(process.execPath, ['--import', stubRegistration, join(out, 'main', 'main.mjs')], {
    env: { ...process.env, COUNTERSIGN_STUB_USER_DATA: userData, ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  const line = run.stdout.split('\n').find((l) => l.startsWith('{"report"'));
  if (!line) throw new Error(`the bundled main process printed no report (exit ${run.status}):\n${run.stdout}\n${run.stderr}`);
  return (JSON.parse(line) as { report: StubReport }).report;
}

// What `npm run build:desktop` runs, into another folder (each process gets its subfolder of it).
beforeAll(() => {
  const cli = join(REPO_ROOT, 'node_modules', 'electron-vite', 'bin', 'electron-vite.js');
  const run = spawnSync(process.execPath, [cli, 'build', '--outDir', out, '--logLevel', 'warn'], { cwd: REPO_ROOT, encoding: 'utf8', timeout: 170_000 });
  if (run.status !== 0) throw new Error(`electron-vite build failed (exit ${run.status}):\n${run.stdout}\n${run.stderr}`);
}, 180_000);
afterAll(() => rmSync(out, { recursive: true, force: true }));

describe('npm start: the desktop build', () => {
  it('writes the main bundle, its writer thread, the sandboxed preload and the renderer', () => {
    for (const file of ['main/main.mjs', 'main/sqlite-index-worker.mjs', 'main/block-parse-worker.mjs', 'preload/preload.cjs', 'renderer/index.html']) expect(existsSync(join(out, file)), file).toBe(true);
    const preload = readFileSync(join(out, 'preload', 'preload.cjs'), 'utf8');
    // The sandbox allows require('electron') only.
    expect([...preload.matchAll(/require\("([^"]+)"\)/g)].map((m) => m[1])).toEqual(['electron']);
  });

  it("carries the QR decoder's WebAssembly inside its lazily loaded chunk: no .wasm file for the file:// page to fetch", () => {
    const assets = readdirSync(join(out, 'renderer', 'assets'));
    expect(assets.filter((f) => f.endsWith('.wasm'))).toEqual([]);
    const decoder = assets.filter((f) => /^qr-decoder-.*\.js$/.test(f));
    expect(decoder).toHaveLength(1);
    expect(readFileSync(join(out, 'renderer', 'assets', decoder[0]!), 'utf8')).toContain('data:application/wasm;base64,AGFzbQ');
    // The main bundle imports it on demand and carries none of it.
    const main = assets.filter((f) => /^index-.*\.js$/.test(f)).map((f) => readFileSync(join(out, 'renderer', 'assets', f), 'utf8'));
    expect(main.some((js) => js.includes(`./${decoder[0]!}`))).toBe(true);
    expect(main.some((js) => js.includes('data:application/wasm'))).toBe(false);
  });

  it('the bundled index writer thread loads beside main.mjs (with the chunk it shares with it) and opens its SQLite file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'countersign-writer-'));
    const worker = new Worker(join(out, 'main', 'sqlite-index-worker.mjs'), { workerData: { path: join(dir, 'index.sqlite') } });
    try {
      const first = await new Promise<unknown>((resolve, reject) => {
        worker.once('message', resolve);
        worker.once('error', reject);
      });
      expect(first).toEqual({ ready: true });
    } finally {
      await worker.terminate();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the bundled block parse thread loads beside main.mjs and makes, from real blocks, the bytes and rows the source makes', async () => {
    // BIP158's test blocks (Bitcoin testnet3, segwit ones among them), parsed by the bundled thread as
    // the packaged desk's embedded service would, against the same functions run from source here.
    const vectors = JSON.parse(readFileSync(join(REPO_ROOT, 'shared/coins/fixtures/vectors/bip158-blockfilters.json'), 'utf8')) as unknown[][];
    const blocks = vectors.filter((r) => r.length > 1).map((r) => ({ height: r[0] as number, hash: r[1] as string, hex: r[2] as string }));
    const codec = { segwit: true, rawBlocks: 'bitcoin' } as const;
    const worker = new Worker(join(out, 'main', 'block-parse-worker.mjs'));
    const ask = (request: ParseRequest) =>
      new Promise<ParseAnswer>((resolve, reject) => {
        const fail = (err: Error) => reject(err);
        worker.once('error', fail);
        worker.once('message', (answer: ParseAnswer) => {
          worker.off('error', fail);
          resolve(answer);
        });
        worker.postMessage(request);
      });
    try {
      expect(blocks.length).toBeGreaterThan(5);
      for (const b of blocks) {
        const answer = await ask({ id: b.height, raw: hexToBytes(b.hex), hash: b.hash, height: b.height, codec, levelRows: true });
        const encoded = await ask({ id: b.height, raw: hexToBytes(b.hex), hash: b.hash, height: b.height, codec, levelRows: false });
        const parts = encodeRawBlockBytes(hexToBytes(b.hex), b.hash, b.height, codec);
        const rows = new RowBuffer();
        streamRows([{ height: parts.height, hash: parts.hash, time: parts.time, bytes: parts.bytes }], rows, true);
        expect(answer.ok && 'rows' in answer, `block ${b.height}`).toBe(true);
        expect(encoded.ok && 'parts' in encoded, `block ${b.height}`).toBe(true);
        if (!answer.ok || !('rows' in answer) || !encoded.ok || !('parts' in encoded)) continue;
        expect(Buffer.from(encoded.parts.bytes).equals(Buffer.from(parts.bytes)), `block ${b.height}'s bytes`).toBe(true);
        expect([...encoded.parts.offsets]).toEqual([...parts.offsets]);
        expect(Buffer.from(answer.rows.rows).equals(Buffer.from(rows.finish())), `block ${b.height}'s rows`).toBe(true);
      }
      // A block that is not one is refused in words, and the thread goes on.
      const bad = await ask({ id: 0, raw: new Uint8Array([1, 2, 3]), hash: '00'.repeat(32), height: 7, codec, levelRows: true });
      expect(bad.ok).toBe(false);
      expect(bad.ok ? '' : bad.message).toMatch(/\w+ \w+/);
    } finally {
      await worker.terminate();
    }
  });

  it('starts the bundled main process: embedded service, every bridge channel, a secure window on the built renderer', () => {
    const userData = mkdtempSync(join(tmpdir(), 'countersign-desktop-'));
    try {
      const report = runBundledMain(userData);
      expect(report.channels.sort()).toEqual(CHANNELS.map(ipcName).sort());
      expect(report.window).toEqual({ preload: join(out, 'preload', 'preload.cjs'), contextIsolation: true, sandbox: true, nodeIntegration: false });
      expect(fileURLToPath(report.loaded)).toBe(join(out, 'renderer', 'index.html'));
      expect(report.csp).toEqual([CSP]);
      expect(report.bridge).toMatchObject({ ok: true, value: { mode: 'embedded' } });
      expect(report.chains).toMatchObject({ ok: true, value: { embedded: true } });
      expect(report.chains.value?.notice).toBe(`no chain is connected: connect one in Settings (operators may also describe chains in ${join(userData, 'embedded-service.json')})`);
      expect(report.untrusted).toMatchObject({ ok: false, error: { code: 'forbidden' } });
      expect(existsSync(join(userData, 'desk.sqlite'))).toBe(true);
    } finally {
      rmSync(userData, { recursive: true, force: true });
    }
  });

  it('under `npm run dev:desktop` loads the dev server, trusts only it, and relaxes the CSP for hot reload; a packaged app ignores it', () => {
    const userData = mkdtempSync(join(tmpdir(), 'countersign-desktop-'));
    try {
      const devServer = 'http://localhost:5173';
      const dev = runBundledMain(userData, { ELECTRON_RENDERER_URL: devServer });
      expect(dev.loaded).toBe(devServer);
      expect(dev.csp).toEqual([DEV_CSP]);
      expect(dev.bridge).toMatchObject({ ok: true, value: { mode: 'embedded' } });
      expect(dev.untrusted).toMatchObject({ ok: false, error: { code: 'forbidden' } });
      const packaged = runBundledMain(userData, { ELECTRON_RENDERER_URL: devServer, COUNTERSIGN_STUB_PACKAGED: '1' });
      expect(fileURLToPath(packaged.loaded)).toBe(join(out, 'renderer', 'index.html'));
      expect(packaged.csp).toEqual([CSP]);
    } finally {
      rmSync(userData, { recursive: true, force: true });
    }
  });

  it('guards every web contents app-wide: no navigation or redirect away, no webview, no window, no permission; links open only through the allow-list', () => {
    const userData = mkdtempSync(join(tmpdir(), 'countersign-desktop-'));
    const denied = { navigateAway: true, navigateOwn: false, redirectAway: true, attachWebview: true, openEvil: { action: 'deny' }, openFile: { action: 'deny' }, openAllowed: { action: 'deny' } };
    try {
      // No explorer configured (the default): nothing opens, not even an explorer link.
      const fresh = runBundledMain(userData);
      expect(fresh.guards.webContentsListeners).toBe(1);
      // The window's web contents and a second one, each with every guard.
      expect(fresh.guards.contents).toEqual([denied, denied]);
      expect(fresh.guards.permissionRequest).toBe(false);
      expect(fresh.guards.permissionCheck).toEqual([false, false, false, false]);
      expect(fresh.opened).toEqual([]);

      // An explorer in the settings: its links open in the browser (the window itself still never opens); others do not.
      const store = openStore(join(userData, 'desk.sqlite'));
      store.setSettings({ [EXPLORER_SETTING]: JSON.stringify(['https://explorer.example/']) });
      store.close();
      const configured = runBundledMain(userData, { COUNTERSIGN_STUB_ALLOWED_LINK: 'https://explorer.example/tx/ab' });
      expect(configured.guards.contents).toEqual([denied, denied]);
      expect(configured.opened).toEqual(['https://explorer.example/tx/ab', 'https://explorer.example/tx/ab']);
    } finally {
      rmSync(userData, { recursive: true, force: true });
    }
  });

  it('says why the embedded service serves no chains when its file is refused', () => {
    const userData = mkdtempSync(join(tmpdir(), 'countersign-desktop-'));
    try {
      writeFileSync(join(userData, 'embedded-service.json'), JSON.stringify({ coins: { litecoin: { network: 'regtest', backend: { type: 'node-rpc', url: 'not a url' } } } }));
      const report = runBundledMain(userData);
      expect(report.chains.value?.notice).toMatch(/^the chains of .*embedded-service\.json were refused \(invalid configuration: coins\.litecoin\.backend.*\), so the embedded service serves none$/);
    } finally {
      rmSync(userData, { recursive: true, force: true });
    }
  });
});
