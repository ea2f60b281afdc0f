// OpenAPI 3.1 documents for v2 (/openapi.json) and the earlier revision (/v1/openapi.json),
// generated from the routes' own zod schemas, and the swagger-ui page at /docs (served from the
// installed package: no CDN). What each operation is, and which are extensions beyond the spec,
// is said here, in one table per revision.
import fastifySwagger, { type SwaggerTransform } from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance, FastifySchema } from 'fastify';
import { createJsonSchemaTransform } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ACCEPT_PROVISIONAL_HEADER } from '../../shared/api/client.ts';
import { ErrorMessage, SendStatus } from '../../shared/api/schemas.ts';
import { isIndexedRoute } from './index-freshness.ts';

export const OPENAPI_PATHS = ['/openapi.json', '/v1/openapi.json'] as const;
export const DOCS_PREFIX = '/docs';
export const EXTENSION = 'x-countersign-extension';

/** Paths that answer without an API key: the documents and the docs page. */
export function isDocsPath(path: string): boolean {
  return (OPENAPI_PATHS as readonly string[]).includes(path) || path === DOCS_PREFIX || path.startsWith(`${DOCS_PREFIX}/`);
}

interface OperationDoc {
  tag: string;
  summary: string;
  description?: string;
  /** A sentence saying what this extension adds; marks the operation `x-countersign-extension`. */
  extension?: string;
  /** Answers without X-API-KEY. */
  open?: boolean;
  /** Response schemas for routes that have none of their own (documentation only). */
  responses?: Record<string, z.ZodType>;
}

// While a coin's index lags its node (http/index-freshness.ts): documentation of the 503 and of the opt-in.
const ProvisionalRequest = z.object({
  [ACCEPT_PROVISIONAL_HEADER]: z
    .literal('1')
    .optional()
    .describe('Extension: 1 takes the answer while the index is still catching up, marked X-Countersign-Provisional: true with X-Countersign-Indexed-Height and X-Countersign-Node-Height.'),
});
const IndexLaggingAnswer = ErrorMessage.describe(
  "The coin's index is more than the readiness lag behind its node (first sync, or after an outage): the message gives both heights; retry after the Retry-After header's seconds.",
);
const PROVISIONAL_NOTE =
  "While the coin's index is more than the readiness lag (readiness.maxLagBlocks) behind its node this answers 503 with Retry-After, unless the request sends X-Countersign-Accept-Provisional: 1; then the answer comes as far as indexed, with the headers X-Countersign-Provisional: true, X-Countersign-Indexed-Height and X-Countersign-Node-Height (docs/api-decisions.md).";

// The answers of an indexed route on a coin that runs the watch index (docs/api-decisions.md §11).
const WATCHED_NOTE =
  "On a coin that runs the watch index (a node backend with index 'watch') only the addresses of wallets the asking API key registered (PUT /watch/{coin}/{wallet_id}) are answered; any other address is a 404 that says so, in the same words whether nobody or another key registered it.";
const NotWatchedAnswer = ErrorMessage.describe("Unknown coin or not served here; or, on a coin that runs the watch index, an address in no wallet the asking API key registered (the same words whether nobody or another key registered it: one key learns nothing of another's wallets)");

// Documentation-only shapes of the probes (their routes send plain objects).
const Health = z.object({ status: z.literal('ok') });
const ReadyCoin = z.object({
  coin: z.string(),
  tip_height: z.number().int().nullable(),
  indexed_height: z.number().int().nullable(),
  lag: z.number().int().nullable(),
  error: z.string().nullable(),
  role: z.enum(['leader', 'follower']).optional(),
});
const Ready = z.object({ ready: z.boolean(), message: z.string().optional(), coins: z.array(ReadyCoin) });

const ADDRESS = 'Address';
const TX = 'Transaction';
const MULTISIG = 'Multi-signature';
const ETHER = 'Ether and ERC20';
const OPS = 'Operations';
const RELAY = 'Relay';
const DEVICE_SIGNED = 'The request carries X-Relay-Device (the device id), X-Relay-Time (unix ms, within 5 minutes of the service\'s clock) and X-Relay-Signature (Ed25519 over "METHOD path\\ntime" under the relay\'s label, by the device\'s key; 401 otherwise).';

const tokenNote = 'For an ERC20 token on ethereum pass both contract_id and decimal_places.';
const utxosPagingNote =
  'Extension beyond the spec: an answer holds at most limit outputs (default and most 1000), confirmed oldest first, then the mempool\'s. When more follow, the response header X-Countersign-Next-Cursor carries the cursor to send as the query parameter cursor for the next page';
const pagingNote = 'Extension beyond the spec: the query parameters limit (default 50, at most 1000) and offset page through total_txs entries.';

const SHARED_OPERATIONS: Record<string, OperationDoc> = {
  'GET /address/balance/:coin/:address': { tag: ADDRESS, summary: 'Balance of one address (1)', description: `Confirmed and unconfirmed balance in the smallest unit, as a decimal, and in USD. ${tokenNote}` },
  'GET /address/balances/:coin/:addresses': { tag: ADDRESS, summary: 'Balances of comma-separated addresses (2)', description: `Totals and one entry per distinct address. ${tokenNote}` },
  'POST /transaction/send_raw/:coin': { tag: TX, summary: 'Broadcast a signed raw transaction (8)' },
  'POST /ethereum/create/': { tag: ETHER, summary: 'Build an Ether transfer and its hash to sign (11)', description: 'amount is in GWEI; gas_price in wei.' },
  'POST /ethereum/sign_and_send/': { tag: ETHER, summary: 'Sign with (r, s, v) and broadcast an Ether transfer (12)' },
  'POST /erc20/create/': { tag: ETHER, summary: 'Build an ERC20 transfer and its hash to sign (13)', description: 'amount is in GWEI of the token: raw units = amount x 10^(decimal_places - 9).' },
  'POST /erc20/sign_and_send/': { tag: ETHER, summary: 'Sign with (r, s, v) and broadcast an ERC20 transfer (14)' },
};

const V2_OPERATIONS: Record<string, OperationDoc> = {
  ...SHARED_OPERATIONS,
  'GET /address/history/:coin/:addresses': {
    tag: ADDRESS,
    summary: 'Transaction history of addresses (3)',
    description: `One entry per (transaction, queried address) with the net amount, newest first. ${tokenNote} ${pagingNote} Each entry's txid is an extension too.`,
  },
  'GET /address/utxos/:coin/:addresses': { tag: ADDRESS, summary: 'Unspent outputs of addresses (4)', description: `${utxosPagingNote}, and the body the same as next_cursor (absent when the list is complete).` },
  'POST /address/to_network_addresses': { tag: ADDRESS, summary: 'Extended public keys to single- or multi-signature addresses (5)' },
  'POST /transaction/sign_and_send/:coin': { tag: TX, summary: 'Verify signatures, assemble and broadcast (7)' },
  'POST /multi_sig/sign_and_send/:coin': { tag: MULTISIG, summary: 'Verify M signatures per input, assemble and broadcast (10)' },
  'GET /transaction/raw/:coin/:txid': {
    tag: TX,
    summary: 'A transaction\'s bytes by txid',
    extension: 'Extension beyond the spec: PSBT and hardware signers need whole previous transactions, so this returns the hex of a transaction the service has indexed or holds in its mempool.',
  },
  'GET /erc20/token/:contract': {
    tag: ETHER,
    summary: 'An ERC20 token\'s name, symbol and decimals',
    extension:
      'Extension beyond the spec: what the token contract on ethereum reports of itself, so clients need not type decimal_places. name and symbol are null when the contract has none fit to show; a contract without decimals() is refused with 422, a non-contract address with 400.',
  },
  'GET /prices/history/:coin': {
    tag: OPS,
    summary: 'USD rates at past times',
    extension:
      "Extension beyond the spec: USD per whole coin on the UTC day of each time asked (at=unix seconds, comma-separated, at most 500), from the price source usd_balance uses (a pinned rate is the rate at every time), cached per (coin, day). usd_rate is null when the source has no rate or does not answer.",
  },
  'GET /fee_estimates/:coin': {
    tag: TX,
    summary: 'Fee rates for 1, 6 and 24 blocks, in units per vbyte',
    extension:
      "Extension beyond the spec: the node's estimatesmartfee per target, converted exactly (bigint) from coins per 1000 vbytes and rounded up to a whole unit per vbyte; source fallback where the node has no estimate (regtest, a quiet chain), at the configured fallback rate. Blockbook's estimatefee and Electrum's blockchain.estimatefee per target the same way, their -1 (no estimate yet) as the fallback.",
  },
  'GET /blocks/:coin/height_at/:unix_time': {
    tag: OPS,
    summary: 'The first block at or after a moment',
    extension:
      "Extension beyond the spec: the first block whose median time past (BIP113) is at or after unix_time, found by binary search over the node's getblockhash and getblockheader; height is tip_height + 1 and block_hash null when no block is that late yet. A wallet's birthday date becomes its birthday height this way. 501 over a backend that does not tell block times (Blockbook, Electrum).",
  },
  'PUT /watch/:coin/:wallet_id': {
    tag: OPS,
    summary: 'Register a wallet with a watch-mode coin',
    extension:
      "Extension beyond the spec: a node backend with index 'watch' indexes only registered wallets, from their birthdays. The body gives the wallet's descriptors (one multipath, or receive and change), its birthday height (null: from genesis), its gap limit and the highest index of each branch it has shown; the service derives the scripts itself (the gap limit past the highest index used or shown) and reads the blocks again from the birthday. A registration belongs to the API key that made it: its addresses are answered to that key alone (another key gets the 404 of an unwatched address), and another key registering the same descriptors makes a registration of its own. 409 on a coin that runs the full index.",
  },
  'GET /watch/:coin/:wallet_id': {
    tag: OPS,
    summary: "A watched wallet's scan",
    extension:
      "Extension beyond the spec: how far the scan of a registered wallet has come (scanned height, blocks checked, matched and fetched, block filters, pruning and the height history starts from), and its state: scanning, ready (its unspent outputs equal the node's scantxoutset), or error in words. 404 for a wallet this key did not register, 409 on a full-index coin.",
  },
  'POST /watch/:coin/:wallet_id/window': {
    tag: OPS,
    summary: "Watch a wallet's addresses further out",
    extension:
      "Extension beyond the spec: the highest index of each branch the wallet's owner has shown (handed out, or asks about) is watched, with the gap limit past it (the window the status's watched field gives: the gap past the highest index used or shown). Only newly watched addresses make the blocks be read again; the status then says scanning until they are. 404 for a wallet this key did not register, 409 on a full-index coin.",
  },
  'POST /watch/:coin/:wallet_id/rescan': {
    tag: OPS,
    summary: "Read a watched wallet's blocks again",
    extension: 'Extension beyond the spec: the blocks of a registered wallet are read again from from_height. 404 for a wallet this key did not register, 409 on a full-index coin.',
  },
  'POST /relay/rooms': {
    tag: RELAY,
    summary: 'Make a relay room',
    extension: `Extension beyond the spec (the relay, docs/api-decisions.md §13): the caller's device (its Ed25519 and X25519 public keys) makes a room and owns it. ${DEVICE_SIGNED} The room counts against the API key's room limit (429 beyond it).`,
  },
  'GET /relay/rooms/:room': {
    tag: RELAY,
    summary: "A relay room's head and devices",
    extension: `Extension beyond the spec: the newest message's sequence number and hash, the oldest message still kept, and the devices that joined (public keys, times, removed or not). ${DEVICE_SIGNED} For a current member only (403 otherwise). The devices listed are what the service saw join: desks trust only the owner's signed roster inside the messages.`,
  },
  'POST /relay/rooms/:room/invitations': {
    tag: RELAY,
    summary: 'Leave an invitation for a co-signer or approver',
    extension: `Extension beyond the spec: the owner leaves an invitation under the hash of its code, sealed with a key from the code (the service can neither read nor answer it). ${DEVICE_SIGNED} Owner only; at most 20 open per room; expires after expires_in_hours (default 72).`,
  },
  'GET /relay/invitations/:id': {
    tag: RELAY,
    summary: 'Fetch an invitation by the hash of its code',
    extension: 'Extension beyond the spec: the sealed invitation and its room. Unknown, used and expired invitations get the same 404.',
  },
  'POST /relay/invitations/:id/join': {
    tag: RELAY,
    summary: "Join an invitation's room",
    extension: `Extension beyond the spec: the invitee's device enters the room (once: the invitation is then used). ${DEVICE_SIGNED} The owner admits it to the roster only after checking, inside a sealed message, a proof keyed by the code and the binding to a wallet key or a compared code.`,
  },
  'DELETE /relay/rooms/:room/members/:device': {
    tag: RELAY,
    summary: 'Remove a device from a relay room',
    extension: `Extension beyond the spec: the owner removes a device; from then on the service refuses its reads and messages (403), and desks count nothing it sends after the owner's new roster. ${DEVICE_SIGNED}`,
  },
  'POST /relay/rooms/:room/messages': {
    tag: RELAY,
    summary: 'Send a sealed message as the room\'s next',
    extension:
      "Extension beyond the spec: a sealed and signed envelope (shared/relay/envelope.ts), base64. Taken only when its sender is a current member, its signature verifies with that member's key, it is numbered head_seq + 1 and names the head's hash; otherwise 400 (malformed or altered), 403 (not a member) or 409 (the room moved on: read and send again). 413 above the size limit, 429 when the room keeps its most messages. Kept for relay.messageTtlDays (default 30) days.",
  },
  'GET /relay/rooms/:room/messages': {
    tag: RELAY,
    summary: "A relay room's messages after a sequence number (long poll)",
    extension: `Extension beyond the spec: messages numbered after \`after\`, oldest first; with wait (at most 30 s) the answer waits for one when there is none yet, on the same port (several instances over PostgreSQL: a message through another instance is seen within a second). oldest_seq says when the messages after \`after\` expired. ${DEVICE_SIGNED}`,
  },
  'POST /transaction/create/:coin': {
    tag: TX,
    summary: 'Build a payment from public keys and return the hashes to sign (6)',
    description:
      'Extensions beyond the spec come in an optional JSON body: outputs (several recipients, instead of to and amount), inputs (coin control), allow_unconfirmed, fee_rate (units per vbyte, instead of miners_fee) and replaceable (BIP125).',
  },
  'POST /multi_sig/create/:coin': {
    tag: MULTISIG,
    summary: 'Build an M-of-N payment and return the hashes to sign (9)',
    description:
      'Extensions beyond the spec: script_type and sort_keys per redeem script; outputs (instead of to and amount), inputs (coin control), allow_unconfirmed, fee_rate (instead of miners_fee) and replaceable (BIP125).',
  },
  'GET /status': {
    tag: OPS,
    summary: 'Backend and index progress per coin',
    extension: 'Extension beyond the spec: what each coin\'s backend reports (tip, indexed height, lag, mempool size, last error).',
  },
  'GET /healthz': { tag: OPS, summary: 'Liveness', open: true, extension: 'Extension beyond the spec: answers while the process runs.', responses: { 200: Health } },
  'GET /readyz': {
    tag: OPS,
    summary: 'Readiness',
    open: true,
    extension: 'Extension beyond the spec: 200 when every coin\'s index is current, 503 naming the coins that lag or fail.',
    responses: { 200: Ready, 503: Ready },
  },
};

const V1_OPERATIONS: Record<string, OperationDoc> = {
  ...SHARED_OPERATIONS,
  'GET /address/balance/:coin/:address': { ...SHARED_OPERATIONS['GET /address/balance/:coin/:address']!, description: 'As v2, with usd_balance in whole dollars (v1 types it as an integer).' },
  'GET /address/balances/:coin/:addresses': { ...SHARED_OPERATIONS['GET /address/balances/:coin/:addresses']!, description: 'As v2, with usd_balance in whole dollars (v1 types it as an integer).' },
  'GET /address/history/:coin/:addresses': {
    tag: ADDRESS,
    summary: 'Transaction history of addresses, v1 entries (3)',
    description: `One entry per transaction with blockheight, time, total_in, total_out, fees, vins and vouts, newest first; UTXO coins only (ethereum history is v2's). ${pagingNote} Each entry's txid is an extension too.`,
  },
  'GET /address/utxo/:coin/:addresses': { tag: ADDRESS, summary: 'Unspent outputs of addresses, as a bare array (4)', description: `${utxosPagingNote} (a bare array has no room for a field).` },
  'POST /transaction/create/:coin': { tag: TX, summary: 'Build a payment from public keys (6)', description: 'fee_amount is a string of digits; the response has no total_input_value.' },
  'POST /transaction/sign_and_send/:coin': {
    tag: TX,
    summary: 'Verify signatures, assemble and broadcast, by query parameters (7)',
    description:
      'The i-th entries of public_keys, signatures, input_indexes (and hashes_to_sign, when given) describe one signature. Arrays are repeated parameters (?signatures=a&signatures=b) or comma-separated values.',
  },
};

const INFO_DESCRIPTION = `Countersign's implementation of the v2 Address & Transaction API: balances, history and unspent outputs of addresses, extended keys to addresses, unsigned transactions with the hashes to sign, signature verification and broadcast, for UTXO coins and for Ether and ERC20 tokens. The service never receives a private key.

Generated from the zod schemas the service validates requests with, so it describes what this build does. v2 is served at the root and under /v2; the earlier revision (spec section 9) under /v1 (its own document: /v1/openapi.json).

Amounts are integers in the smallest unit. Amounts above 2^53 (wei, ERC20 units) are written as exact JSON integers, never as rounded floats: read them with a parser that keeps big integers. usd_balance is 0 when no USD rate is known (tokens, testnet3, a price source that is down).

Errors: every error body is {"message": "..."} (send endpoints add status_code): 400 bad input naming the field, 401 missing or unknown X-API-KEY, 404 unknown coin or route, 409/422 states that cannot proceed, 429 rate limited, 502/504 an upstream node or indexer failed or timed out.

Operations marked x-countersign-extension are extensions beyond the spec.`;

const V1_DESCRIPTION = `The earlier revision of the Address & Transaction API (spec section 9), served under /v1 for clients written against it. It differs from v2 in: unspent outputs at /address/utxo/ as a bare array; history entries with blockheight, time, total_out, total_in, fees, vins and vouts; sign-and-send by query parameters; fee_amount as a string and no total_input_value in create; usd_balance as an integer. Multi-signature (9, 10) and extended-key conversion (5) do not exist in v1. Errors are {"message": "..."} as in v2.`;

const SEND_ROUTE = /\/(sign_and_send|send_raw)\b/;

/** zod bigints (exact amounts) are JSON integers; union branches zod cannot express are dropped. */
function jsonOverride(ctx: { zodSchema: unknown; jsonSchema: Record<string, unknown> }): void {
  const type = (ctx.zodSchema as { _zod: { def: { type: string } } })._zod.def.type;
  if (type === 'bigint') ctx.jsonSchema['type'] = 'integer';
  if (type === 'union' && Array.isArray(ctx.jsonSchema['anyOf'])) {
    ctx.jsonSchema['anyOf'] = (ctx.jsonSchema['anyOf'] as object[]).filter((s) => Object.keys(s).length > 0);
  }
}

const toJsonSchema = createJsonSchemaTransform({ skipList: [], zodToJsonConfig: { target: 'draft-2020-12', override: jsonOverride } });

interface Revision {
  prefix: '' | '/v1';
  operations: Record<string, OperationDoc>;
}

function transformFor(revision: Revision): SwaggerTransform {
  return (input) => {
    const { url, route } = input;
    const hidden = { schema: { hide: true } as FastifySchema, url };
    const inRevision = revision.prefix === '/v1' ? url.startsWith('/v1/') : !/^\/(v1|v2)\//.test(url);
    if (!inRevision || isDocsPath(url)) return hidden;
    const path = url.slice(revision.prefix.length);
    const method = Array.isArray(route.method) ? route.method[0] : route.method;
    const doc = revision.operations[`${method} ${path}`];
    const own = (input.schema ?? {}) as FastifySchema & { response?: Record<string, unknown> };
    const responses = own.response ?? doc?.responses;
    // Routes without a documented answer (e.g. metrics in Prometheus' text format) stay out.
    if (!responses || own.hide) return hidden;
    const indexed = isIndexedRoute(path);
    const schema: Record<string, unknown> = {
      ...own,
      ...(indexed ? { headers: ProvisionalRequest } : {}),
      response: { ...responses, ...(indexed ? { 404: NotWatchedAnswer, 503: IndexLaggingAnswer } : {}), default: (SEND_ROUTE.test(path) ? SendStatus : ErrorMessage).describe('Error') },
      ...(doc ? { tags: [doc.tag], summary: doc.summary } : {}),
      ...(doc?.description || doc?.extension || indexed ? { description: [doc?.extension, doc?.description, indexed ? PROVISIONAL_NOTE : undefined, indexed ? WATCHED_NOTE : undefined].filter(Boolean).join(' ') } : {}),
      ...(doc?.extension ? { [EXTENSION]: true } : {}),
      ...(doc?.open ? { security: [] } : {}),
    };
    const out = toJsonSchema({ ...input, schema: schema as FastifySchema });
    return { schema: out.schema, url: path };
  };
}

// @fastify/swagger marks every request body required; these take the original query alone too.
const OPTIONAL_BODIES: readonly string[] = ['/transaction/create/{coin}'];

function optionalBodies<T>(document: T): T {
  const paths = (document as { paths?: Record<string, { post?: { requestBody?: { required?: boolean } } }> }).paths ?? {};
  for (const path of OPTIONAL_BODIES) {
    const body = paths[path]?.post?.requestBody;
    if (body) body.required = false;
  }
  return document;
}

export interface ApiDocsOptions {
  /** The deployment asks for X-API-KEY (false: the embedded desk service). */
  authRequired: boolean;
  /** /v1 answers without a key. */
  v1Open: boolean;
}

declare module 'fastify' {
  interface FastifyInstance {
    swaggerV1: FastifyInstance['swagger'];
  }
}

/**
 * Registers both documents and the docs page. Call before any route is registered: the documents
 * collect routes as they are added.
 */
export async function installApiDocs(app: FastifyInstance, options: ApiDocsOptions): Promise<void> {
  const securitySchemes = { apiKey: { type: 'apiKey' as const, in: 'header', name: 'X-API-KEY', description: 'An API key issued by the operator (`npm run service -- keys create`).' } };
  const document = (title: string, version: string, description: string, keyed: boolean, server: string) => ({
    openapi: {
      openapi: '3.1.0',
      info: { title, version, description },
      servers: [{ url: server }],
      components: { securitySchemes },
      security: keyed ? [{ apiKey: [] }] : [],
    },
  });
  await app.register(fastifySwagger, {
    ...document('Countersign Address & Transaction API (v2)', '2', INFO_DESCRIPTION, options.authRequired, '/'),
    transform: transformFor({ prefix: '', operations: V2_OPERATIONS }),
    transformObject: (doc) => optionalBodies('openapiObject' in doc ? doc.openapiObject : doc.swaggerObject),
  });
  await app.register(fastifySwagger, {
    ...document('Countersign Address & Transaction API (v1, earlier revision)', '1', V1_DESCRIPTION, options.authRequired && !options.v1Open, '/v1'),
    decorator: 'swaggerV1',
    transform: transformFor({ prefix: '/v1', operations: V1_OPERATIONS }),
  });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  app.get('/v1/openapi.json', { schema: { hide: true } }, async () => app.swaggerV1());
  await app.register(fastifySwaggerUi, {
    routePrefix: DOCS_PREFIX,
    uiConfig: {
      urls: [
        { url: '/openapi.json', name: 'v2' },
        { url: '/v1/openapi.json', name: 'v1 (earlier revision)' },
      ],
    },
  });
}
