// Request size limits: the body limit and the request line's length. Node itself refuses a request
// line plus headers above its header limit (431); ours answers 414 with a message below that.
import type { ServerOptions } from 'node:http';
import type { FastifyInstance } from 'fastify';
import type { LimitsConfig } from '../operations-config.ts';
import { ApiError } from './errors.ts';

/** Room for ordinary headers beside the longest request line we accept. */
const HEADER_ROOM = 16 * 1024;

export function serverLimits(limits: LimitsConfig): { bodyLimit: number; http: ServerOptions; maxParamLength: number } {
  const maxHeaderSize = limits.urlBytes + HEADER_ROOM;
  // The router's own param limit would answer first and echo the whole param: keep it out of reach.
  return { bodyLimit: limits.bodyBytes, maxParamLength: maxHeaderSize, http: { maxHeaderSize } };
}

/** First hook of every request, before authentication spends a database read on it. */
export function installUrlLimit(app: FastifyInstance, limits: LimitsConfig): void {
  // Callback style, not async: it runs on every request and a promise per hook shows in the bench.
  app.addHook('onRequest', (request, _reply, done) => {
    if (request.url.length > limits.urlBytes) {
      done(new ApiError(414, `request URL too long: ${request.url.length} bytes, at most ${limits.urlBytes} (limits.urlBytes); list fewer addresses per request`));
      return;
    }
    done();
  });
}
