// The operator's settings for running the service in production: request limits, CORS, rate
// limits, readiness, metrics and the indexer election. Only zod here, so config.ts stays
// importable without the server (`tx inspect` runs offline).
import { z } from 'zod';

export const LimitsConfig = z.object({
  /** Largest request body (JSON); fastify answers 413 above it. */
  bodyBytes: z.number().int().min(1024).max(64 * 1024 * 1024).default(1024 * 1024),
  /**
   * Longest request line (path and query); 414 above it. Address lists travel in the path: 200
   * bech32 addresses of 90 characters need about 18 KB, a v1 sign-and-send by query more.
   */
  urlBytes: z.number().int().min(1024).max(1024 * 1024).default(64 * 1024),
});
export type LimitsConfig = z.infer<typeof LimitsConfig>;

export const CorsConfig = z.object({
  /** Browser origins allowed to call the API, e.g. "https://desk.example.com". Empty: CORS off. */
  origins: z.array(z.string().url('cors.origins lists origins such as https://desk.example.com').refine((o) => new URL(o).origin === o, 'a CORS origin is scheme://host[:port] with no path')).default([]),
});
export type CorsConfig = z.infer<typeof CorsConfig>;

export const RateLimitConfig = z.object({
  enabled: z.boolean().default(false),
  /** Sustained rate: this many requests per window, per API key (per client IP when auth is off). */
  requestsPerWindow: z.number().int().positive().default(600),
  windowSeconds: z.number().int().positive().default(60),
  /** Requests a quiet client may make at once before the sustained rate applies. */
  burst: z.number().int().positive().default(60),
  /** Keys (or IPs) remembered at once; the least recent are forgotten beyond this. */
  maxClients: z.number().int().positive().default(50_000),
});
export type RateLimitConfig = z.infer<typeof RateLimitConfig>;

export const ReadinessConfig = z.object({
  /** /readyz answers 503 while a coin's index is more than this many blocks behind the node. */
  maxLagBlocks: z.number().int().nonnegative().default(3),
});
export type ReadinessConfig = z.infer<typeof ReadinessConfig>;

export const MetricsConfig = z.object({
  enabled: z.boolean().default(true),
  /** When set, /metrics needs `Authorization: Bearer <token>` (a secret apart from the API keys). */
  token: z.string().min(16, 'metrics.token must be at least 16 characters').optional(),
});
export type MetricsConfig = z.infer<typeof MetricsConfig>;

export const LeaderConfig = z.object({
  /**
   * PostgreSQL only: how often an instance that does not run a coin's indexer tries to take it
   * over, and how often the one that does checks its lock session is alive.
   */
  retrySeconds: z.number().positive().max(3600).default(5),
});
export type LeaderConfig = z.infer<typeof LeaderConfig>;

/**
 * Who may say which client a request came from (fastify's trustProxy). false: the peer of the TCP
 * connection is the client, and X-Forwarded-For is ignored (anyone can write it). Behind a reverse
 * proxy: a list names the proxies' addresses or CIDR ranges (safest), true trusts every hop. Rate
 * limits without auth key on that client address.
 */
export const TrustProxyConfig = z
  .union([z.boolean(), z.array(z.string().min(1, 'trustProxy lists proxy addresses such as 10.0.0.2 or 10.0.0.0/8')).min(1)])
  .default(false);
export type TrustProxyConfig = z.infer<typeof TrustProxyConfig>;

export const OperationsConfig = {
  trustProxy: TrustProxyConfig,
  limits: LimitsConfig.prefault({}),
  cors: CorsConfig.prefault({}),
  rateLimit: RateLimitConfig.prefault({}),
  readiness: ReadinessConfig.prefault({}),
  metrics: MetricsConfig.prefault({}),
  leader: LeaderConfig.prefault({}),
};

/** What the HTTP app takes from the configuration. */
export interface HttpOperations {
  trustProxy: TrustProxyConfig;
  limits: LimitsConfig;
  cors: CorsConfig;
  rateLimit: RateLimitConfig;
  readiness: ReadinessConfig;
  metrics: MetricsConfig;
}
