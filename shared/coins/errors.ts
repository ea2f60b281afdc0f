/**
 * The one error type of shared/coins. Messages are written for a treasurer reading them in
 * the app or in an API error body; `field` names the request field at fault when known, so
 * the service can map it to a 400 without parsing the message.
 */
export class CoinError extends Error {
  readonly field: string | undefined;

  // A plain field, not a parameter property: the indexer's parse threads load this file with
  // Node's own type stripping, which only erases types.
  constructor(message: string, field?: string) {
    super(message);
    this.name = 'CoinError';
    this.field = field;
  }
}

/** The subject of an input error: `field "x"` when the field is known, else `fallback`. */
export function subject(field: string | undefined, fallback: string): string {
  return field === undefined ? fallback : `field "${field}"`;
}

/** Longest caller text an error message repeats whole; longer text is shortened (a field may hold megabytes). */
const QUOTED_MAX = 120;

/** `text` in double quotes for an error message, shortened with its length when over-long. */
export function quoted(text: string): string {
  if (text.length <= QUOTED_MAX) return `"${text}"`;
  return `"${text.slice(0, QUOTED_MAX / 2)}…" (${text.length} characters)`;
}
