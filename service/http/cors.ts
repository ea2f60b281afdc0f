// CORS: off unless the operator lists the browser origins that may call the API. Installed before
// authentication, because a browser's preflight carries no X-API-KEY.
import cors from '@fastify/cors';
import type { FastifyInstance } from 'fastify';
import type { CorsConfig } from '../operations-config.ts';

export async function installCors(app: FastifyInstance, config: CorsConfig): Promise<void> {
  if (config.origins.length === 0) return; // no headers at all: browsers refuse cross-origin reads
  const allowed = new Set(config.origins);
  await app.register(cors, {
    origin: (origin, callback) => callback(null, origin !== undefined && allowed.has(origin)),
    methods: ['GET', 'POST'],
    allowedHeaders: ['content-type', 'x-api-key'],
    exposedHeaders: ['retry-after', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'],
    maxAge: 600,
  });
}
