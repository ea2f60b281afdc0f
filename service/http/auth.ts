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

const MISSING_KEY = 'missing X-API-KEY header: every request needs an API key (create one with `npm run service -- keys create`)';
const UNKNOWN_KEY = 'unknown or revoked API key in X-API-KEY';

/** `isOpenRoute` takes a route pattern (asked once per pattern); unmatched URLs need a key too. */
export function installAuth(app: FastifyInstance, store: Store, isOpenRoute: (route: string) => boolean): void {
  const verified = new Map<string, { until: number; id: string }>();
  const openByRoute = new Map<string, boolean>();
  app.decorateRequest('apiKeyId', null);
  // Callback style, not async: a remembered key is answered without a promise on every request.
  app.addHook('onRequest', (request, _reply, done) => {
    const route = request.routeOptions.url;
    if (route !== undefined) {
      let open = openByRoute.get(route);
      if (open === undefined) {
        open = isOpenRoute(route);
        openByRoute.set(route, open);
      }
      if (open) return done();
    }
    const header = request.headers['x-api-key'];
    const key = Array.isArray(header) ? header[0] : header;
    if (!key) return done(new ApiError(401, MISSING_KEY));
    const now = Date.now();
    const known = verified.get(key);
    if (known !== undefined && known.until > now) {
      request.apiKeyId = known.id;
      return done();
    }
    verifyApiKey(store, key).then((id) => {
      if (!id) {
        verified.delete(key);
        return done(new ApiError(401, UNKNOWN_KEY));
      }
      if (verified.size >= CACHE_MAX) verified.clear();
      verified.set(key, { until: now + CACHE_MS, id });
      request.apiKeyId = id;
      done();
    }, done);
  });
}
