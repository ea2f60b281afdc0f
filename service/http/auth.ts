// X-API-KEY on every request. Verified keys are remembered for a few seconds so a busy client
// does not cost a database read per request; a revoked key stops working within that window.
import type { FastifyInstance } from 'fastify';
import type { Store } from '../store/database.ts';
import { verifyApiKey } from '../store/api-keys.ts';
import { ApiError } from './errors.ts';

const CACHE_MS = 5_000;
const CACHE_MAX = 10_000;

declare module 'fastify' {
  interface FastifyRequest {
    /** The verified API key's id (rate limits count per key); null on open paths. */
    apiKeyId: string | null;
  }
}

export function installAuth(app: FastifyInstance, store: Store, isOpen: (url: string) => boolean): void {
  const verified = new Map<string, { until: number; id: string }>();
  app.decorateRequest('apiKeyId', null);
  app.addHook('onRequest', async (request) => {
    if (isOpen(request.url)) return;
    const header = request.headers['x-api-key'];
    const key = Array.isArray(header) ? header[0] : header;
    if (!key) throw new ApiError(401, 'missing X-API-KEY header: every request needs an API key (create one with `npm run service -- keys create`)');
    const now = Date.now();
    const known = verified.get(key);
    if (known !== undefined && known.until > now) {
      request.apiKeyId = known.id;
      return;
    }
    const id = await verifyApiKey(store, key);
    if (!id) {
      verified.delete(key);
      throw new ApiError(401, 'unknown or revoked API key in X-API-KEY');
    }
    if (verified.size >= CACHE_MAX) verified.clear();
    verified.set(key, { until: now + CACHE_MS, id });
    request.apiKeyId = id;
  });
}
