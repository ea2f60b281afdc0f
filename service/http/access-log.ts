// One line per answered request, in place of fastify's two ("incoming request" and "request
// completed", each serialising the whole request or response). At info: every request that is
// not a read, and every refusal or failure. A read answered well (a balance poll, say) is at
// debug: at the default level it would otherwise cost as much as the lookup it logs and write a
// line per poll forever. The line says who asked (the API key's id, never the key), what (the URL
// with its secrets hidden: a key sent as ?api_key= is still a key), the answer's status and how
// long it took.
import { LogController, type FastifyBaseLogger, type FastifyReply, type FastifyRequest } from 'fastify';
import pino from 'pino';
import { redactUrl, SECRET_HEADERS } from '../redact.ts';

/**
 * The app's logger: fastify's own lines that carry the request (a failed reply's headers, say) say
 * its URL with the secrets hidden, and credential headers are censored wherever a line holds them.
 */
export function requestLogger(logger: FastifyBaseLogger): FastifyBaseLogger {
  const headerPaths = SECRET_HEADERS.flatMap((h) => [`req.headers["${h}"]`, `headers["${h}"]`, `request.headers["${h}"]`]);
  return logger.child(
    {},
    {
      serializers: { req: (req: FastifyRequest) => ({ method: req.method, url: redactUrl(req.url), host: req.host, remoteAddress: req.ip }) },
      redact: { paths: headerPaths, censor: '***' },
    },
  );
}

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

export function accessLogLevel(method: string, status: number): 'info' | 'debug' {
  return READS.has(method) && status < 400 ? 'debug' : 'info';
}

// pino's own level numbers; 'silent' is not among them and writes nothing.
const enabled = (logger: FastifyBaseLogger, level: 'info' | 'debug'): boolean => (pino.levels.values[logger.level] ?? Infinity) <= pino.levels.values[level]!;

export class AccessLog extends LogController {
  override incomingRequest(): void {}

  // The access line already says 404.
  override routeNotFound(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const level = accessLogLevel(request.method, reply.statusCode);
    // Not even the line is built for a level that is off: this runs on every request.
    if (!error && !enabled(request.log, level)) return;
    const line = {
      method: request.method,
      url: redactUrl(request.url),
      status: reply.statusCode,
      ms: Math.round(reply.elapsedTime * 10) / 10,
      apiKey: request.apiKeyId ?? undefined,
      ip: request.ip,
    };
    if (error) request.log.error({ ...line, err: error }, 'request failed while answering');
    else request.log[level](line, 'request');
  }
}
