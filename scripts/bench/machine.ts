// What the figures were measured on: they mean little without it.
import { cpus, totalmem, release } from 'node:os';
import { readFileSync } from 'node:fs';

export function machineLine(extra: Record<string, string> = {}): string {
  const cores = cpus();
  const model = cores[0]?.model.trim() ?? 'unknown CPU';
  const parts = [
    `${cores.length} cores (${model})`,
    `${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM`,
    `node ${process.version}`,
    `linux ${release()}`,
    ...Object.entries(extra).map(([k, v]) => `${k} ${v}`),
  ];
  return parts.join(', ');
}

/** VmHWM (peak resident set) and VmRSS of a process, in KiB, from /proc. */
/**
 * VmHWM and VmRSS count file pages mapped into the process (LevelDB maps its table files); RssAnon
 * is the process's own memory.
 */
export function memoryOf(pid: number | 'self'): { peakKb: number; rssKb: number; anonKb: number } {
  const text = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name: string): number => {
    const m = new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(text);
    return m ? Number(m[1]) : 0;
  };
  return { peakKb: field('VmHWM'), rssKb: field('VmRSS'), anonKb: field('RssAnon') };
}

/**
 * Starts sampling the process's own memory (RssAnon) every 100 ms, from now: the kernel keeps a
 * peak of RSS with mapped files only. The function returned gives the highest seen, this moment's included.
 */
export function sampleOwnMemoryPeak(): () => number {
  let most = memoryOf('self').anonKb;
  const now = () => (most = Math.max(most, memoryOf('self').anonKb));
  setInterval(now, 100).unref();
  return now;
}

// /proc reports CPU times in USER_HZ ticks, 100 per second on every Linux architecture.
const TICK_MS = 10;

/** utime + stime of a /proc/<pid>/stat line, in ms. */
export function statCpuMs(stat: string): number {
  // After the command name in parentheses (which may hold spaces and parentheses itself): state
  // is field 3, utime 14, stime 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  if (!Number.isSafeInteger(ticks)) throw new Error(`not a /proc/<pid>/stat line: ${stat.slice(0, 80)}`);
  return ticks * TICK_MS;
}

/** CPU time (user + system, all threads) a process has used so far, in ms, from /proc. */
export function cpuMsOf(pid: number): number {
  return statCpuMs(readFileSync(`/proc/${pid}/stat`, 'utf8'));
}

/** CPU time this process (all its threads) has used so far, in ms. */
export function ownCpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

export function mb(kb: number): string {
  return `${(kb / 1024).toFixed(0)} MB`;
}
