// The service as an operator runs it, in a process of its own under the heap cap of package.json's
// scripts (--max-old-space-size=192), for the proofs that no request can take it down (issue 33):
// its resident memory read from /proc, and many requests fired at it at once.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { get as httpGet } from 'node:http';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;

/** The heap cap of `npm run service` (package.json). */
export const SERVICE_HEAP_MB = 192;

export interface ServiceChild {
  url: string;
  pid: number;
  /** Resident memory now and at its peak (VmRSS, VmHWM), in MiB. */
  memory(): { rssMb: number; peakMb: number };
  /** Whether the process is still running. */
  alive(): boolean;
  /** What it printed (its log), for a failure's message. */
  output(): string;
  stop(): Promise<void>;
}

/** Starts `service/cli.ts` with `config` (listen and log are set here) under the heap cap; resolves once it listens. */
export async function startServiceChild(config: Record<string, unknown>, options: { heapMb?: number; timeoutMs?: number } = {}): Promise<ServiceChild> {
  const dir = mkdtempSync(join(tmpdir(), 'countersign-child-'));
  const configPath = join(dir, 'config.json');
  writeFileSync(configPath, JSON.stringify({ listen: { host: '127.0.0.1', port: 0 }, log: { level: 'info' }, ...config }));
  // node itself (not the tsx wrapper, which runs the program in a second process): the pid is the server's
  const child: ChildProcess = spawn(process.execPath, [`--max-old-space-size=${options.heapMb ?? SERVICE_HEAP_MB}`, '--import', 'tsx', 'service/cli.ts', '--config', configPath], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const take = (d: Buffer) => {
    out += d.toString();
    if (out.length > 200_000) out = out.slice(-100_000);
  };
  child.stdout!.on('data', take);
  child.stderr!.on('data', take);
  let exited = false;
  const exit = new Promise<void>((resolve) => child.on('exit', () => ((exited = true), resolve())));
  const stop = async () => {
    if (!exited) child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    await exit;
    clearTimeout(timer);
    rmSync(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  let url: string | undefined;
  while (url === undefined) {
    url = /"url":"(http:\/\/127\.0\.0\.1:\d+)"/.exec(out)?.[1];
    if (url) break;
    if (exited || Date.now() > deadline) {
      await stop();
      throw new Error(`the service did not start listening:\n${out.slice(-4000)}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  const pid = child.pid!;
  return {
    url,
    pid,
    memory: () => {
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
      return { rssMb: Math.round(kb('VmRSS') / 1024), peakMb: Math.round(kb('VmHWM') / 1024) };
    },
    alive: () => !exited,
    output: () => out,
    stop,
  };
}

/** Waits until GET `path` answers 200 (an index catching up answers 503). */
export async function untilAnswers(url: string, path: string, timeoutMs = 180_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await fetch(`${url}${path}`).catch(() => null);
    if (res?.status === 200) return void (await res.arrayBuffer());
    if (res) await res.arrayBuffer();
    if (Date.now() > deadline) throw new Error(`GET ${path} still answers ${res?.status ?? 'nothing'} after ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/**
 * Fires `count` GETs of `path` at once, each on a connection of its own closed after its answer (a
 * kept-alive socket the server times out while idle would fail the next burst on the client's
 * side); counts the answers by status (0: no answer, its reasons in `errors`) and their bytes.
 */
export async function fireAtOnce(url: string, path: string, count: number): Promise<{ statuses: Record<number, number>; errors: Record<string, number>; bytes: number; ms: number }> {
  const started = performance.now();
  const statuses: Record<number, number> = {};
  const errors: Record<string, number> = {};
  let bytes = 0;
  const one = () =>
    new Promise<number>((resolve, reject) => {
      const req = httpGet(`${url}${path}`, { agent: false, timeout: 300_000 }, (res) => {
        res.on('data', (chunk: Buffer) => (bytes += chunk.length));
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', reject);
      });
      req.on('timeout', () => req.destroy(new Error('no answer within 300 s')));
      req.on('error', reject);
    });
  await Promise.all(
    Array.from({ length: count }, async () => {
      try {
        const status = await one();
        statuses[status] = (statuses[status] ?? 0) + 1;
      } catch (err) {
        statuses[0] = (statuses[0] ?? 0) + 1;
        const why = err instanceof Error ? err.message : String(err);
        errors[why] = (errors[why] ?? 0) + 1;
      }
    }),
  );
  return { statuses, errors, bytes, ms: Math.round(performance.now() - started) };
}
