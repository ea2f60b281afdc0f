// Runs a bench child (a .ts file beside this one) under tsx in its own Node process: input as JSON
// in an environment variable (keeps RPC credentials off the process list), result as one
// "RESULT {...}" line on stdout. The caller may sample the child's memory while it runs.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { memoryOf } from './machine.ts';

export const CHILD_ENV = 'COUNTERSIGN_BENCH_CHILD';
export const RESULT_PREFIX = 'RESULT ';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const running = new Set<ChildProcess>();

/** For the parent's signal handler: children die with the bench. */
export function killChildren(): void {
  for (const child of running) child.kill('SIGKILL');
}

export interface ChildRun<R> {
  result: R;
  /** Highest VmHWM the parent saw while sampling (0 if the child was too quick to sample). */
  sampledPeakKb: number;
}

export function runChild<R>(file: string, input: unknown, nodeArgs: readonly string[] = []): Promise<ChildRun<R>> {
  const script = fileURLToPath(new URL(file, import.meta.url));
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', script], {
      cwd: repoRoot, // `--import tsx` resolves from here
      env: { ...process.env, [CHILD_ENV]: JSON.stringify(input) },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    running.add(child);
    let out = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      out += chunk;
    });
    let sampledPeakKb = 0;
    const sampler = setInterval(() => {
      try {
        if (child.pid !== undefined) sampledPeakKb = Math.max(sampledPeakKb, memoryOf(child.pid).peakKb);
      } catch {
        // exited between ticks
      }
    }, 200);
    child.on('error', (err) => {
      clearInterval(sampler);
      running.delete(child);
      reject(err);
    });
    child.on('close', (code, signal) => {
      clearInterval(sampler);
      running.delete(child);
      const line = out.split('\n').find((l) => l.startsWith(RESULT_PREFIX));
      if (code !== 0 || line === undefined) {
        reject(new Error(`bench child ${file} failed (${signal ?? `exit code ${code}`})${out.trim() ? `: ${out.trim().slice(-2000)}` : ''}`));
        return;
      }
      resolve({ result: JSON.parse(line.slice(RESULT_PREFIX.length)) as R, sampledPeakKb });
    });
  });
}

/** The child's side: prints the result line, or the error and a failing exit code. */
export function childMain<R>(work: (input: unknown) => Promise<R>): void {
  const text = process.env[CHILD_ENV];
  const run = async (): Promise<R> => {
    if (!text) throw new Error(`${CHILD_ENV} is not set: this file is started by scripts/bench/run.ts`);
    return work(JSON.parse(text));
  };
  run().then(
    (result) => {
      process.stdout.write(`${RESULT_PREFIX}${JSON.stringify(result)}\n`);
    },
    (err: unknown) => {
      console.error(err instanceof Error ? (err.stack ?? err.message) : String(err));
      process.exitCode = 1;
    },
  );
}
