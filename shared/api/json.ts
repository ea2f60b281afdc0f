import { isExactAsNumber } from '../coins/units.ts';
import { AMOUNT_KEYS } from './amounts.ts';

interface ReviverContext {
  source?: string;
}

// JSON.parse hands revivers the source text of primitives (V8 >= 11.4, Node >= 21), so amounts
// beyond 2^53 come back exact.
function reviveAmounts(this: unknown, key: string, value: unknown, context?: ReviverContext): unknown {
  if (AMOUNT_KEYS.has(key) && typeof value === 'number' && context?.source !== undefined && /^-?[0-9]+$/.test(context.source)) {
    return BigInt(context.source);
  }
  return value;
}

export function parseApiJson(text: string): unknown {
  return JSON.parse(text, reviveAmounts as (this: unknown, key: string, value: unknown) => unknown);
}

interface JsonWithRaw {
  rawJSON(text: string): unknown;
}

// Writes bigints as bare JSON integers instead of throwing. Within 2^53 a double holds the amount
// exactly and JSON writes it with the same digits, without the object JSON.rawJSON (Node >= 21)
// allocates through V8's slow path, which showed in every balance answer.
export function bigintReplacer(_key: string, value: unknown): unknown {
  if (typeof value !== 'bigint') return value;
  if (isExactAsNumber(value)) return Number(value);
  return (JSON as unknown as JsonWithRaw).rawJSON(value.toString());
}

export function stringifyApiJson(value: unknown): string {
  return JSON.stringify(value, bigintReplacer);
}
