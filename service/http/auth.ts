// X-API-KEY on every request. Verified keys are remembered for a few seconds so a busy client
// does not cost a database read per request; a revoked key stops working within that window.
// Failed authentications are counted per client address: beyond the limit that address is
// answered 429 with Retry-After in place of 401. A valid key still passes from it: many clients
// may share one address (a proxy, a NAT), and keys are random 192-bit secrets, so the limit is
// there to quiet a scanner, not to stop a guess that cannot succeed.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Lru } from '../lru.ts';
import type { Store } from '../store/database.ts';
import { verifyApiKey } from '../store/api-keys.ts';
import { ApiError } from './errors.ts';
import { takeToken, type Bucket } from './rate-limit.ts';

const CACHE_MS = 5_000;
const CACHE_MAX = 10_000;
/** Client addresses whose failures are remembered at once; the least recent are forgotten. */
const FAILING_ADDRESSES_MAX = 50_000;

/** Failed authentications a client address may make per window (config auth.maxFailures). */
export interface FailureLimit {
  max: number;
  windowSeconds: number;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The verified API key's id (rate limits count per key); null on open paths. */
    apiKeyId: string | null;
  }
}

const MISSING_KEY = 'missing X-API-KEY header: every request needs an API key (the operator creates one with `countersign --config FILE keys create --label NAME`)';
const UNKNOWN_KEY = 'unknown or revoked API key in X-API-KEY';

/** `isOpenRoute` takes a route pattern (asked once per pattern); unmatched URLs need a key too. */
export function installAuth(app: FastifyInstance, store: Store, isOpenRoute: (route: string) => boolean, limit: FailureLimit): void {
  const verified = new Map<string, { until: number; id: string }>();
  const openByRoute = new Map<string, boolean>();
  // A token bucket per address, as the request rate limit's: `max` failures at once, refilled
  // at max per window.
  const failures = new Lru<string, Bucket>(FAILING_ADDRESSES_MAX);
  const perMs = limit.max / (limit.windowSeconds * 1000);
  const refusal = (request: FastifyRequest, reply: FastifyReply, message: string): ApiError => {
    const take = takeToken(failures.get(request.ip), Date.now(), perMs, limit.max);
    failures.set(request.ip, take.bucket);
    if (take.allowed) return new ApiError(401, message);
    const seconds = Math.ceil(take.waitMs / 1000);
    void reply.header('retry-after', String(seconds));
    return new ApiError(429, `too many failed authentications from this address (this deployment allows ${limit.max} per ${limit.windowSeconds} s): retry in ${seconds} s with a valid X-API-KEY`);
  };
  app.decorateRequest('apiKeyId', null);
  // Callback style, not async: a remembered key is answered without a promise on every request.
  app.addHook('onRequest', (request, reply, done) => {
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
    if (!key) return done(refusal(request, reply, MISSING_KEY));
    const now = Date.now();
    const known = verified.get(key);
    if (known !== undefined && known.until > now) {
      request.apiKeyId = known.id;
      return done();
    }
    verifyApiKey(store, key).then((id) => {
      if (!id) {
        verified.delete(key);
        return done(refusal(request, reply, UNKNOWN_KEY));
      }
      if (verified.size >= CACHE_MAX) verified.clear();
      verified.set(key, { until: now + CACHE_MS, id });
      request.apiKeyId = id;
      done();
    }, done);
  });
}
