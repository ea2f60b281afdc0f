// Amounts on screen: exact decimal strings from bigint smallest units, never floats.
import type { Unit } from '../../main/bridge/contract.ts';

export function formatUnits(units: bigint, decimals: number, minFraction = 2): string {
  const negative = units < 0n;
  const abs = negative ? -units : units;
  const base = 10n ** BigInt(decimals);
  const whole = (abs / base).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  let fraction = (abs % base).toString().padStart(decimals, '0').replace(/0+$/, '');
  if (fraction.length < minFraction) fraction = fraction.padEnd(Math.min(minFraction, decimals), '0');
  return `${negative ? '−' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
}

export const amount = (units: bigint, unit: Unit): string => `${formatUnits(units, unit.decimals)} ${unit.ticker}`;

/** Parses what a treasurer types ("1.25", "0,5") into smallest units; null when it is not a plain amount. */
export function parseUnits(text: string, decimals: number): bigint | null {
  const t = text.trim().replace(',', '.').replace(/_/g, '');
  const m = /^([0-9]*)(?:\.([0-9]*))?$/.exec(t);
  if (!m || t === '' || t === '.') return null;
  const fraction = m[2] ?? '';
  if (fraction.length > decimals) return null;
  return BigInt(m[1] || '0') * 10n ** BigInt(decimals) + BigInt(fraction.padEnd(decimals, '0') || '0');
}

export const usd = (value: number): string => value.toLocaleString('en-US', { style: 'currency', currency: 'USD' });

export const shortId = (id: string): string => (id.length > 16 ? `${id.slice(0, 8)}…${id.slice(-6)}` : id);

export const when = (iso: string | number): string => {
  const d = typeof iso === 'number' ? new Date(iso * 1000) : new Date(iso);
  return Number.isNaN(d.getTime()) || d.getTime() === 0 ? '—' : d.toLocaleString('en-GB', { dateStyle: 'medium', timeStyle: 'short' });
};
