// Per-client rate limits: a token bucket per API key (per client IP when auth is off), answered
// with 429, Retry-After and {"message"}. @fastify/rate-limit does the hooks and headers; its own
// store counts in fixed windows, which lets a client spend twice the limit across a window edge
// and has no notion of burst, so the counting is ours (TokenBuckets below).
import rateLimit, { type FastifyRateLimitStore } from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Lru } from '../lru.ts';
import type { RateLimitConfig } from '../operations-config.ts';
import { ApiError } from './errors.ts';

export interface Bucket {
  tokens: number;
  /** When `tokens` was last brought up to date (ms). */
  at: number;
}

export interface Take {
  bucket: Bucket;
  allowed: boolean;
  /** Whole requests left after this one. */
  remaining: number;
  /** Until one token is back when refused; until the bucket is full when allowed (ms). */
  waitMs: number;
}

/**
 * One request against a bucket of `burst` tokens refilled at `perMs` tokens a millisecond: a
 * quiet client may send `burst` at once, a busy one gets the sustained rate. Pure.
 */
export function takeToken(previous: Bucket | undefined, now: number, perMs: number, burst: number): Take {
  const elapsed = previous ? Math.max(0, now - previous.at) : 0;
  const tokens = previous ? Math.min(burst, previous.tokens + elapsed * perMs) : burst;
  if (tokens >= 1) {
    const left = tokens - 1;
    return { bucket: { tokens: left, at: now }, allowed: true, remaining: Math.floor(left), waitMs: Math.ceil((burst - left) / perMs) };
  }
  return { bucket: { tokens, at: now }, allowed: false, remaining: 0, waitMs: Math.max(1, Math.ceil((1 - tokens) / perMs)) };
}

/**
 * The store @fastify/rate-limit asks on every request. It compares `current` with its `max`,
 * which we set to `burst`: an allowed request reports burst minus the tokens left, a refused one
 * burst + 1; `ttl` becomes X-RateLimit-Reset and Retry-After.
 */
function tokenBucketStore(config: RateLimitConfig): new () => FastifyRateLimitStore {
  const perMs = config.requestsPerWindow / (config.windowSeconds * 1000);
  return class TokenBuckets implements FastifyRateLimitStore {
    private readonly buckets = new Lru<string, Bucket>(config.maxClients);

    incr(key: string, callback: (error: Error | null, result?: { current: number; ttl: number }) => void): void {
      const take = takeToken(this.buckets.get(key), Date.now(), perMs, config.burst);
      this.buckets.set(key, take.bucket);
      callback(null, { current: take.allowed ? config.burst - take.remaining : config.burst + 1, ttl: take.waitMs });
    }

    child(): FastifyRateLimitStore {
      return new TokenBuckets();
    }
  };
}

/** Whom a request counts against: its API key's id, else its IP. */
export function rateLimitKey(request: FastifyRequest): string {
  return request.apiKeyId ? `key:${request.apiKeyId}` : `ip:${request.ip}`;
}

/**
 * Installs the limits on every route registered afterwards. Its hook runs after the app's own
 * onRequest hooks, so authentication has already named the key. `exempt` takes a route pattern.
 */
export async function installRateLimit(app: FastifyInstance, config: RateLimitConfig, exempt: (route: string) => boolean): Promise<void> {
  if (!config.enabled) return;
  await app.register(rateLimit, {
    global: true,
    max: config.burst,
    timeWindow: config.windowSeconds * 1000,
    store: tokenBucketStore(config),
    keyGenerator: rateLimitKey,
    allowList: (request) => exempt(request.routeOptions.url ?? ''),
    errorResponseBuilder: (_request, context) =>
      new ApiError(
        429,
        `rate limit exceeded: this deployment allows ${config.requestsPerWindow} requests per ${config.windowSeconds} s per API key (bursts of ${config.burst}); retry in ${Math.ceil(context.ttl / 1000)} s`,
      ),
  });
}
