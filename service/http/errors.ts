// Every error leaves the service as {"message": "..."} with a status that says whose fault it is.
// Send endpoints add status_code. Never a stack trace, never a 500 for bad input.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { CoinError } from '../../shared/coins/errors.ts';

import { ApiError, IndexLagging, WrongChain } from '../errors.ts';

export { ApiError, badRequest, notFound } from '../errors.ts';

const MAX_PROBLEMS_SHOWN = 5;
const MAX_FRAMEWORK_MESSAGE = 400;
const SEND_ROUTES = /\/(sign_and_send|send_raw)\b/;

function describeValidation(error: FastifyError): string {
  if (hasZodFastifySchemaValidationErrors(error)) {
    // A body of many bad entries has many problems: the first few say enough, and the answer stays small.
    const shown = error.validation.slice(0, MAX_PROBLEMS_SHOWN);
    const parts = shown.map((v) => {
      const field = v.instancePath.replace(/^\//, '').replaceAll('/', '.');
      const where = error.validationContext === 'body' ? 'body' : error.validationContext === 'params' ? 'path' : 'query';
      return `${field ? `${where} field "${field}"` : where}: ${v.message}`;
    });
    const more = error.validation.length - shown.length;
    return `invalid request: ${parts.join('; ')}${more > 0 ? `; and ${more} more` : ''}`;
  }
  return `invalid request: ${error.message}`;
}

/** Framework messages that quote the caller's input whole, cut to a readable length. */
export function shortened(message: string): string {
  return message.length <= MAX_FRAMEWORK_MESSAGE ? message : `${message.slice(0, MAX_FRAMEWORK_MESSAGE / 2)}… (${message.length} characters)`;
}

export function statusAndMessage(error: unknown): { status: number; message: string; internal: boolean } {
  if (error instanceof ApiError) return { status: error.statusCode, message: error.message, internal: false };
  if (error instanceof CoinError) return { status: 400, message: error.message, internal: false };
  const fe = error as Partial<FastifyError>;
  if (fe && typeof fe === 'object' && 'validation' in fe && fe.validation) {
    return { status: 400, message: describeValidation(fe as FastifyError), internal: false };
  }
  if (typeof fe?.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 500) {
    // fastify's own client errors: bad JSON, body too large, unsupported media type, a malformed
    // %-escape in the path (whose message repeats the whole URL: shortened)
    return { status: fe.statusCode, message: shortened(fe.message ?? 'bad request'), internal: false };
  }
  return { status: 500, message: 'internal error: the service failed to handle this request (logged)', internal: true };
}

export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: unknown, request: FastifyRequest, reply: FastifyReply) => {
    const { status, message, internal } = statusAndMessage(error);
    if (internal) request.log.error({ err: error }, 'unhandled error');
    // A lagging index is the service's own state, not a node's failure: said as such, at info (the
    // indexer's own lines tell its progress; the access log has the 503).
    else if (error instanceof IndexLagging) request.log.info({ status, coin: error.coin, indexedHeight: error.indexedHeight, tip: error.tipHeight }, `index lagging: ${message}`);
    else if (status >= 500) request.log.warn({ status, message }, 'upstream error');
    if (error instanceof IndexLagging || error instanceof WrongChain) void reply.header('retry-after', String(error.retryAfterSeconds));
    const body = SEND_ROUTES.test(request.url) ? { status_code: status, message } : { message };
    void reply.status(status).send(body);
  });
  app.setNotFoundHandler((request, reply) => {
    void reply.status(404).send({ message: shortened(`no such route: ${request.method} ${request.url.split('?')[0] ?? ''}`) });
  });
}
