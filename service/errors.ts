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
export const notFound = (message: string) => new ApiError(404, message);

/** An upstream node or indexer failed (502) or timed out (504). */
export class UpstreamFailure extends ApiError {
  constructor(timeout: boolean, message: string) {
    super(timeout ? 504 : 502, message);
  }
}
