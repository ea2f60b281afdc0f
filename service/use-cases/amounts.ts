// Amounts as a person reads them (docs/api-decisions.md): smallest units to a decimal number, USD to cents.
import { isExactAsNumber, unitsToDecimal } from '../../shared/coins/units.ts';

// Powers of ten a double holds exactly (10^22 is the last).
const EXACT_POWERS_OF_TEN = [1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22];

/** Smallest units as the decimal number a person reads (exact digits, then one rounding). */
export function human(units: bigint, decimals: number): number {
  const divisor = EXACT_POWERS_OF_TEN[decimals];
  // Both operands exact as doubles: IEEE division rounds the exact quotient once, which is the
  // number the decimal text parses to, without building the text.
  if (divisor !== undefined && isExactAsNumber(units)) return Number(units) / divisor;
  return Number(unitsToDecimal(units, decimals));
}

export function usd(humanAmount: number, rate: number): number {
  return Math.round(humanAmount * rate * 100) / 100;
}
