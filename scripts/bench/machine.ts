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
export function memoryOf(pid: number | 'self'): { peakKb: number; rssKb: number } {
  const text = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name: string): number => {
    const m = new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(text);
    return m ? Number(m[1]) : 0;
  };
  return { peakKb: field('VmHWM'), rssKb: field('VmRSS') };
}

export function mb(kb: number): string {
  return `${(kb / 1024).toFixed(0)} MB`;
}
