// Errors that carry the HTTP status they deserve, raised anywhere in the service and mapped to
// {"message": ...} by http/errors.ts.
export class ApiError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
  ) {
    super(message);
  }
}

export const badRequest = (message: string) => new ApiError(400, message);

/**
 * An address whose balance or history the LevelDB index would have to hold whole in memory (its
 * per-script summary) beyond what the service's heap allows: refused in words, 422, rather than
 * running the heap out for every key's requests (docs/api-decisions.md, section 6). Its unspent
 * outputs are still served, in pages.
 */
export class AddressTooLarge extends ApiError {
  constructor(readonly rows: number) {
    super(
      422,
      `this address has more than ${rows.toLocaleString('en-US')} outputs: its balance and history are more than this service's LevelDB index works out in memory; its unspent outputs are served in pages (GET /address/utxos with cursor), or ask an operator to serve it from SQLite or PostgreSQL`,
    );
  }
}
export const notFound = (message: string) => new ApiError(404, message);

/**
 * The coin's index is too far behind its node for an answer to be the truth (during the first
 * sync, or after a long outage): 503 with Retry-After (docs/api-decisions.md).
 */
export class IndexLagging extends ApiError {
  readonly retryAfterSeconds = 10;
  /** `message`: other words (a watched wallet's own scan), else the coin's index's. */
  constructor(
    readonly coin: string,
    readonly indexedHeight: number | null,
    readonly tipHeight: number,
    message?: string,
  ) {
    const at = indexedHeight === null ? 'has indexed no block yet' : `is at ${indexedHeight.toLocaleString('en-US')}`;
    super(503, message ?? `the ${coin} index ${at} of ${tipHeight.toLocaleString('en-US')} blocks; try again later`);
  }
}

/** An upstream node or indexer failed (502) or timed out (504). */
export class UpstreamFailure extends ApiError {
  constructor(timeout: boolean, message: string) {
    super(timeout ? 504 : 502, message);
  }
}

/**
 * The coin's upstream follows another chain than the coin's configured network (a regtest node
 * configured as mainnet): nothing of the coin is served, 503 naming the reason, until it does.
 */
export class WrongChain extends ApiError {
  readonly retryAfterSeconds = 60;
  constructor(
    readonly coin: string,
    readonly why: string,
  ) {
    super(503, `${coin}: ${why}; nothing is served for ${coin} until its backend is on the configured network`);
  }
}
