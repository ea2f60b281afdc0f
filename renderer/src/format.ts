// Amounts on screen: exact decimal strings from bigint smallest units, never floats.
import type { Unit } from '../../main/bridge/contract.ts';
import { amountRefusalWords, parseAmount } from '../../shared/api/amount-text.ts';

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

/**
 * An amount field as typed, read by the one amount reader (shared/api/amount-text.ts): its units,
 * or the words saying what is wrong and what to type. A blank field is neither: it is not filled yet.
 */
export function readAmount(text: string, unit: Unit): { units: bigint | null; error: string | null } {
  const r = parseAmount(text, unit.decimals, unit.places ?? unit.decimals);
  if (r.ok) return { units: r.units, error: null };
  return { units: null, error: r.refusal.kind === 'empty' ? null : amountRefusalWords(r, unit) };
}

/** "read as 1.25 LTC" when the amount typed ("1.250", ".5") is not written as the desk reads it; null when it is, or nothing is read. */
export function readAsWords(text: string, units: bigint | null, unit: Unit): string | null {
  if (units === null) return null;
  const read = formatUnits(units, unit.decimals, 0);
  return text.trim() === read.replace(/,/g, '') || text.trim() === read ? null : `read as ${read} ${unit.ticker}`;
}

/** Whom a payment pays, in a few words: its address, or how many recipients a batch has. */
export const payee = (p: { to: string; recipients: number }): string => (p.recipients > 1 ? `${p.recipients} recipients` : p.to);

export const usd = (value: number): string => value.toLocaleString('en-US', { style: 'currency', currency: 'USD' });

export const shortId = (id: string): string => (id.length > 16 ? `${id.slice(0, 8)}…${id.slice(-6)}` : id);

export const when = (iso: string | number): string => {
  const d = typeof iso === 'number' ? new Date(iso * 1000) : new Date(iso);
  return Number.isNaN(d.getTime()) || d.getTime() === 0 ? '—' : d.toLocaleString('en-GB', { dateStyle: 'medium', timeStyle: 'short' });
};
