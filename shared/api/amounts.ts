import { z } from 'zod';

// Amounts travel as JSON integers in the smallest unit. Values above 2^53 (ERC20, wei) must stay
// exact, so the server writes bigints as raw JSON integers and the client revives these keys as
// bigint from their source text (see json.ts).
export const AMOUNT_KEYS: ReadonlySet<string> = new Set([
  'balance',
  'unconfirmed_balance',
  'amount',
  'total_input_value',
  'fee_amount',
  'miners_fee',
]);

const digits = /^[0-9]{1,78}$/;

/** A non-negative amount in the smallest unit, from a JSON number, a bigint or a digit string. */
export const UnitsIn = z
  .union([
    z.bigint().nonnegative(),
    z.number().int().nonnegative().refine(Number.isSafeInteger, 'must be an exact integer: send amounts above 2^53 as a string of digits'),
    z.string().regex(digits, 'must be a whole number of the smallest unit'),
  ])
  .transform((v) => BigInt(v));

/** What the server emits: exact bigints. */
export const UnitsOut = z.bigint().nonnegative();
export const SignedUnitsOut = z.bigint();
