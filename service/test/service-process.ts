// The service as a process of its own, as an operator runs it: its stdout read line by line as JSON
// (each line checked for repeated keys, log-lines.ts), stopped by a signal like systemd stops it.
import { spawn, type ChildProcess } from 'node:child_process';
import { parseLogLine, type LogLine } from './log-lines.ts';
import { until } from './until.ts';

export interface ServiceProcess {
  child: ChildProcess;
  /** Every stdout line so far, parsed. */
  lines: LogLine[];
  /** Stdout lines that were not one JSON object each, or repeated a key: with the reason. */
  problems: string[];
  stderr(): string;
  /** The first line (from the start) that `match` accepts; waits for it. */
  line(what: string, match: (l: LogLine) => boolean, deadlineMs?: number): Promise<LogLine>;
  /** The base URL from the "service listening" line. */
  url(): Promise<string>;
  /** Sends `signal` and waits for the exit code (null: killed by a signal). */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  exited: Promise<number | null>;
}

export function spawnService(command: string, args: readonly string[], options: { cwd: string; env?: NodeJS.ProcessEnv }): ServiceProcess {
  const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: LogLine[] = [];
  const problems: string[] = [];
  let partial = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => {
    partial += d.toString();
    const complete = partial.split('\n');
    partial = complete.pop()!;
    for (const text of complete) {
      if (text.trim() === '') continue;
      try {
        lines.push(parseLogLine(text));
      } catch (err) {
        problems.push(err instanceof Error ? err.message : String(err));
      }
    }
  });
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  let done = false;
  void exited.then(() => (done = true));
  const line = (what: string, match: (l: LogLine) => boolean, deadlineMs = 90_000) =>
    until(what, () => {
      const found = lines.find(match);
      if (!found && done) throw new Error(`the service exited before ${what}; stderr: ${stderr}; stdout: ${lines.map((l) => l.msg).join(' | ')}`);
      return found;
    }, { deadlineMs });
  return {
    child,
    lines,
    problems,
    stderr: () => stderr,
    line,
    url: async () => String((await line('the service listening', (l) => l.msg === 'service listening')).url),
    stop: async (signal = 'SIGTERM') => {
      if (!done) child.kill(signal);
      return exited;
    },
    exited,
  };
}
