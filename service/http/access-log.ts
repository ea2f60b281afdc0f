// One line per answered request, in place of fastify's two ("incoming request" and "request
// completed", each serialising the whole request or response). At info: every request that is
// not a read, and every refusal or failure. A read answered well (a balance poll, say) is at
// debug: at the default level it would otherwise cost as much as the lookup it logs and write a
// line per poll forever. The line says who asked (the API key's id, never the key), what, the
// answer's status and how long it took.
import { LogController, type FastifyBaseLogger, type FastifyReply, type FastifyRequest } from 'fastify';

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

export function accessLogLevel(method: string, status: number): 'info' | 'debug' {
  return READS.has(method) && status < 400 ? 'debug' : 'info';
}

const LEVELS: Readonly<Record<string, number>> = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60, silent: Infinity };
const enabled = (logger: FastifyBaseLogger, level: 'info' | 'debug'): boolean => (LEVELS[logger.level] ?? 0) <= LEVELS[level]!;

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
      url: request.url,
      status: reply.statusCode,
      ms: Math.round(reply.elapsedTime * 10) / 10,
      apiKey: request.apiKeyId ?? undefined,
      ip: request.ip,
    };
    if (error) request.log.error({ ...line, err: error }, 'request failed while answering');
    else request.log[level](line, 'request');
  }
}
