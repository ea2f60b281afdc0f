/**
 * The one error type of shared/coins. Messages are written for a treasurer reading them in
 * the app or in an API error body; `field` names the request field at fault when known, so
 * the service can map it to a 400 without parsing the message.
 */
export class CoinError extends Error {
  constructor(
    message: string,
    readonly field?: string,
  ) {
    super(message);
    this.name = 'CoinError';
  }
}

/** The subject of an input error: `field "x"` when the field is known, else `fallback`. */
export function subject(field: string | undefined, fallback: string): string {
  return field === undefined ? fallback : `field "${field}"`;
}
