// The operator's configuration file, validated like every other outside input.
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { z } from 'zod';
import { COIN_NAMES, UTXO_COIN_NAMES } from '../shared/coins/coin-table.ts';
import { unknownFields } from './config-fields.ts';
import { OperationsConfig } from './operations-config.ts';

/**
 * The block 0 of a chain the coin table does not hold (a devnet, a private test chain): the
 * backend's is checked against this instead of the table's (shared/coins/chain-identity.ts).
 */
const chainGenesis = {
  genesis: z
    .string()
    .regex(/^[0-9a-fA-F]{64}$/, 'backend.genesis is the hash of block 0 as the node shows it (getblockhash 0): 64 hex digits')
    .optional(),
};

const NodeRpcBackend = z.object({
  type: z.literal('node-rpc'),
  url: z.string().url('backend.url must be the node RPC URL, e.g. http://127.0.0.1:9332'),
  username: z.string().optional(),
  password: z.string().optional(),
  cookieFile: z.string().optional(),
  timeoutMs: z.number().int().positive().default(30_000),
  pollIntervalMs: z.number().int().positive().default(2_000),
  /** Fee rate in units per 1000 bytes when the node has no estimate (regtest, quiet chains). */
  fallbackFeePerKb: z.number().int().positive().default(10_000),
  /** Floor for estimated fee rates, units per 1000 bytes. */
  minFeePerKb: z.number().int().positive().default(1_000),
  /**
   * Whether the node relays BIP125 replacements. The node cannot be asked (Litecoin Core 0.21 reports
   * it in no RPC), so the operator says so; absent: the coin's default (its row's
   * replacementsByDefault; litecoin false, as litecoind without -mempoolreplacement=1).
   */
  replacements: z.boolean().optional(),
  /**
   * 'full': the address index of the whole chain, for operators who serve any address. 'watch':
   * only wallets registered through PUT /watch/{coin}/{wallet_id}, from their birthdays (a desk on
   * its treasurer's own node, pruned or not); other addresses are refused.
   */
  index: z.enum(['full', 'watch']).default('full'),
  ...chainGenesis,
});

/** Deadline per attempt and retries with backoff for an upstream's reads (upstream/http-json.ts). */
const upstreamTiming = {
  timeoutMs: z.number().int().positive().default(15_000),
  retries: z.number().int().min(0).max(10).default(2),
  backoffMs: z.number().int().min(0).default(250),
};
/** Fee rate when the upstream has no estimate, and the floor under its estimates (units per 1000 bytes). */
const feeRates = {
  fallbackFeePerKb: z.number().int().positive().default(10_000),
  minFeePerKb: z.number().int().positive().default(1_000),
};

/** A Blockbook instance (API v2) for the coin, e.g. https://btc1.trezor.io (chains/blockbook/). */
const BlockbookBackend = z.object({
  type: z.literal('blockbook'),
  url: z.string().url('backend.url must be the Blockbook base URL, e.g. https://ltc1.trezor.io'),
  /** Largest history page asked for (Blockbook allows 1000). */
  pageSize: z.number().int().min(1).max(1000).default(1000),
  ...upstreamTiming,
  ...feeRates,
  ...chainGenesis,
});

/** An ElectrumX or Fulcrum server, protocol 1.4 over TCP or TLS (chains/electrum/). */
const ElectrumBackend = z.object({
  type: z.literal('electrum'),
  host: z.string().min(1, 'backend.host must name the Electrum server'),
  port: z.number().int().min(1).max(65535),
  tls: z.boolean().default(false),
  /** With tls: refuse a certificate no known authority signed (self-signed servers need false). */
  verifyCertificate: z.boolean().default(true),
  /**
   * With tls: accept exactly this certificate (SHA-256, hex, colons optional), signed by anyone, as
   * Electrum wallets pin a self-signed server's. Any other certificate is refused.
   */
  certificateSha256: z
    .string()
    .regex(/^([0-9a-fA-F]{2}:?){31}[0-9a-fA-F]{2}$/, 'backend.certificateSha256 is the SHA-256 of the certificate: 64 hex digits, colons allowed')
    .optional(),
  ...upstreamTiming,
  ...feeRates,
  ...chainGenesis,
});

export const CoinConfig = z.object({
  network: z.enum(['mainnet', 'testnet', 'regtest']).default('mainnet'),
  backend: z.discriminatedUnion('type', [NodeRpcBackend, BlockbookBackend, ElectrumBackend]),
  /** Fixed USD rate for this coin: the static price source, or a pin that overrides a live one. */
  usdRate: z.number().nonnegative().optional(),
});
export type CoinConfig = z.infer<typeof CoinConfig>;

const EvmRpcBackend = z.object({
  type: z.literal('evm-rpc'),
  url: z.string().url('backend.url must be the node JSON-RPC URL, e.g. http://127.0.0.1:8545'),
  /** First block the history index reads (docs/ethereum-index.md); default: the tip at first start. */
  startHeight: z.number().int().nonnegative().optional(),
  pollIntervalMs: z.number().int().positive().default(2_000),
  timeoutMs: z.number().int().positive().default(30_000),
});

const EthereumBlockbookBackend = z.object({
  type: z.literal('blockbook'),
  url: z.string().url('backend.url must be the Blockbook base URL, e.g. https://eth1.trezor.io'),
  /** EIP-155 chain id; default 1 on mainnet (Blockbook's REST API does not report it). */
  chainId: z.number().int().positive().optional(),
  /** Gas limit of token transfers when the caller gives none (Blockbook's REST API cannot estimate gas). */
  erc20GasLimit: z.number().int().positive().default(100_000),
  pageSize: z.number().int().min(1).max(1000).default(1000),
  ...upstreamTiming,
});

export const EthereumConfig = z
  .object({
    network: z.enum(['mainnet', 'testnet', 'regtest']).default('mainnet'),
    backend: z.discriminatedUnion('type', [EvmRpcBackend, EthereumBlockbookBackend]),
    usdRate: z.number().nonnegative().optional(),
  })
  .refine((c) => c.backend.type !== 'blockbook' || c.network === 'mainnet' || c.backend.chainId !== undefined, {
    message: 'backend.chainId is required for a Blockbook backend off mainnet',
    path: ['backend', 'chainId'],
  });
export type EthereumConfig = z.infer<typeof EthereumConfig>;

// USD rates (service/prices): a live source for mainnet coins; a coin's usdRate pins its rate.
const CoinNameKey = z.enum(COIN_NAMES);
export const PricesConfig = z.object({
  source: z.enum(['static', 'coingecko', 'blockbook']).default('static'),
  /** CoinGecko API base; default https://api.coingecko.com/api/v3 (a pro-api host takes a pro key). */
  url: z.string().url('prices.url must be the price API base URL').optional(),
  /** Blockbook instance per coin for its tickers; default: the coin's backend URL when that is a Blockbook. */
  urls: z.partialRecord(CoinNameKey, z.string().url()).default({}),
  /** CoinGecko ids overriding the built-in table, e.g. {"bitcoin_gold": "bitcoin-gold"}. */
  ids: z.partialRecord(CoinNameKey, z.string().min(1)).default({}),
  ttlSeconds: z.number().int().positive().default(60),
  timeoutMs: z.number().int().positive().default(5_000),
  apiKey: z.string().min(1).optional(),
});
export type PricesConfig = z.infer<typeof PricesConfig>;


export const ServiceConfig = z.object({
  listen: z.object({ host: z.string().default('127.0.0.1'), port: z.number().int().min(0).max(65535).default(8080) }).default({ host: '127.0.0.1', port: 8080 }),
  database: z
    // index: a folder for the UTXO coins' full address index in LevelDB (service/index/level-index.ts)
    // beside the SQLite file, which keeps the rest. Not with PostgreSQL: scale-out instances read
    // one shared index, and a LevelDB folder is one process's.
    // cacheMb: the index's memory budget, MiB (service/index/cache-budget.ts; README, "Memory").
    .union([
      z.object({ sqlite: z.string(), index: z.string().min(1).optional(), cacheMb: z.number().int().min(16, 'database.cacheMb is at least 16 (MiB)').max(65_536).optional() }),
      z.object({ postgres: z.string(), schema: z.string().optional() }),
    ])
    .default({ sqlite: 'countersign-service.sqlite' }),
  coins: z.partialRecord(z.enum(UTXO_COIN_NAMES), CoinConfig).and(z.object({ ethereum: EthereumConfig.optional() })).default({}),
  prices: PricesConfig.default({ source: 'static', urls: {}, ids: {}, ttlSeconds: 60, timeoutMs: 5_000 }),
  /**
   * v1Open: the earlier revision under /v1 answers without X-API-KEY (spec section 9).
   * maxFailures per failureWindowSeconds: requests with a missing or wrong key a client address may
   * make; beyond them 429 with Retry-After, for that address only (http/auth.ts).
   */
  auth: z
    .object({
      required: z.boolean().default(true),
      v1Open: z.boolean().default(false),
      maxFailures: z.number().int().positive().default(10),
      failureWindowSeconds: z.number().int().positive().max(86_400).default(60),
    })
    .prefault({}),
  log: z.object({ level: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info') }).default({ level: 'info' }),
  // The relay (docs/api-decisions.md §13): sealed messages are deleted this many days after they arrive.
  relay: z.object({ messageTtlDays: z.number().positive().max(3650).default(30) }).default({ messageTtlDays: 30 }),
  // limits, cors, rateLimit, readiness, metrics, leader (operations-config.ts)
  ...OperationsConfig,
});
export type ServiceConfig = z.infer<typeof ServiceConfig>;
export type ServiceConfigInput = z.input<typeof ServiceConfig>;

export function parseConfig(input: unknown): ServiceConfig {
  // the PostgreSQL form would drop the key without a word
  const database = typeof input === 'object' && input !== null ? (input as { database?: unknown }).database : undefined;
  if (typeof database === 'object' && database !== null && 'postgres' in database && 'index' in database) {
    throw new Error('invalid configuration: database.index: the LevelDB index goes with SQLite only (PostgreSQL instances share one index in the database)');
  }
  if (typeof database === 'object' && database !== null && 'postgres' in database && 'sqlite' in database) {
    throw new Error('invalid configuration: database: sqlite or postgres, not both');
  }
  // Unknown fields first: a typo is the likeliest cause of what zod then finds missing.
  const unknown = unknownFields(ServiceConfig, input);
  const named = new Set(unknown.map((f) => f.path.join('.')));
  const result = ServiceConfig.safeParse(input);
  const issues = result.success ? [] : result.error.issues.filter((i) => !(i.code === 'unrecognized_keys' && i.keys.every((k) => named.has([...i.path, k].join('.')))));
  const problems = [...unknown.map((f) => `${f.path.join('.')}: ${f.message}`), ...issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`)];
  if (problems.length > 0 || !result.success) throw new Error(`invalid configuration: ${problems.join('; ')}`);
  return result.data;
}

/** Reads a JSON config file; relative SQLite paths are taken from the file's folder. */
export function loadConfigFile(path: string): ServiceConfig {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new Error(`cannot read configuration file ${path}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new Error(`configuration file ${path} is not valid JSON: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
  const config = parseConfig(json);
  const db = config.database;
  if ('sqlite' in db) {
    const fromFile = (p: string) => (isAbsolute(p) ? p : resolve(dirname(path), p));
    config.database = { ...db, sqlite: db.sqlite === ':memory:' ? db.sqlite : fromFile(db.sqlite), ...(db.index === undefined ? {} : { index: fromFile(db.index) }) };
  }
  return config;
}
