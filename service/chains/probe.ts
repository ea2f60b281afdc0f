// "Test connection": asks a chain backend the treasurer is about to configure what it is, with the
// service's own clients, before anything is saved. One function per backend kind; each answers what
// it found (chain, network, height, pruned, block filters, replacement relay) or refuses, naming the
// configuration field at fault (wrong URL, credentials, cookie file, host, or a node of another
// network than the coin's) in words a treasurer reads.
import { createHash } from 'node:crypto';
import net from 'node:net';
import tls from 'node:tls';
import { z } from 'zod';
import { type ChainOverride, networkOfChain, type SeenChain, wrongChain } from '../../shared/coins/chain-identity.ts';
import { chainParams, type NetworkName, type UtxoCoinName } from '../../shared/coins/coin-table.ts';
import { CoinConfig } from '../config.ts';
import { UpstreamFailure } from '../errors.ts';
import { BlockbookApi } from './blockbook/blockbook-api.ts';
import { blockbookGenesis } from './blockbook/blockbook-utxo.ts';
import { electrumGenesis } from './electrum/electrum-backend.ts';
import { ElectrumClient } from './electrum/electrum-client.ts';
import { RpcClient, RpcError, UpstreamError } from './utxo/rpc-client.ts';

/** The configuration field a refusal concerns (the backend's own key names, as in config.ts). */
export type ProbeField = 'url' | 'cookieFile' | 'password' | 'host' | 'port' | 'certificate' | 'network';

export interface ProbeAnswer {
  kind: 'node-rpc' | 'electrum' | 'blockbook';
  /** What the server calls itself ("/LitecoinCore:0.21.2.1/", "ElectrumX 1.16.0"); null when it does not say. */
  software: string | null;
  /** The chain as the server names it ("main", "test", "regtest"); null when it does not say. */
  chain: string | null;
  /** That chain as a network of the API; null when the server does not say which. */
  network: NetworkName | null;
  height: number;
  /** null: the server does not say (Electrum, Blockbook prune nothing the treasurer can see). */
  pruned: boolean | null;
  /** The lowest block a pruned node still holds. */
  pruneHeight: number | null;
  /** BIP158 basic block filters are kept and synced (node only); null: not found out. */
  blockFilters: boolean | null;
  /** The node relays replacements (BIP125); null: it cannot be found out from this server. */
  relaysReplacements: boolean | null;
  /** TLS servers: SHA-256 of the certificate, "AB:CD:…" as browsers show it, to pin. */
  certificateSha256: string | null;
  /** One sentence each: what else the treasurer should know. */
  notes: string[];
}

export type ProbeResult = { ok: true; answer: ProbeAnswer } | { ok: false; field: ProbeField; message: string };

/** How long a probe waits for any one answer: a treasurer is waiting at the form. */
const PROBE_TIMEOUT_MS = 10_000;

class Refused extends Error {
  constructor(
    readonly field: ProbeField,
    message: string,
  ) {
    super(message);
  }
}

const refuse = (field: ProbeField, message: string): never => {
  throw new Refused(field, message);
};

/**
 * A backend of another chain than the one chosen for the coin is refused at the network field, in
 * the service's own words (shared/coins/chain-identity.ts, the judgement the service makes at start
 * and on every reconnection), with both ways out. `what` names the backend kind.
 */
function requireChain(coin: UtxoCoinName, wanted: NetworkName, seen: SeenChain, who: string, what: string, override: ChainOverride): void {
  const why = wrongChain(chainParams(coin, wanted), seen, who, override);
  if (why === null) return;
  const seenNetwork = seen.chain === null ? null : networkOfChain(seen.chain);
  refuse('network', `${why}: connect a ${coin} ${wanted} ${what}${seenNetwork !== null && seenNetwork !== wanted ? `, or choose ${seenNetwork}` : ''}`);
}

async function probeNode(coin: UtxoCoinName, network: NetworkName, b: Extract<CoinConfig['backend'], { type: 'node-rpc' }>, override: ChainOverride): Promise<ProbeAnswer> {
  const rpc = new RpcClient({
    url: b.url,
    timeoutMs: Math.min(b.timeoutMs, PROBE_TIMEOUT_MS),
    maxConnections: 2,
    ...(b.username !== undefined ? { username: b.username } : {}),
    ...(b.password !== undefined ? { password: b.password } : {}),
    ...(b.cookieFile !== undefined ? { cookieFile: b.cookieFile } : {}),
  });
  const who = `the node at ${rpc.url}`;
  try {
    let info: { chain: string; blocks: number; pruned: boolean; pruneheight?: number; initialblockdownload?: boolean };
    try {
      info = z
        .object({ chain: z.string(), blocks: z.number().int().nonnegative(), pruned: z.boolean(), pruneheight: z.number().int().optional(), initialblockdownload: z.boolean().optional() })
        .loose()
        .parse(await rpc.call('getblockchaininfo'));
    } catch (err) {
      if (err instanceof UpstreamError) {
        if (err.kind === 'auth') {
          if (b.username === undefined && b.password === undefined && b.cookieFile !== undefined) {
            // Permission denied says so, with the fix (chains/utxo/cookie-file.ts); a missing file is the usual case.
            if (/permission denied/.test(err.message)) refuse('cookieFile', err.message);
            refuse('cookieFile', /cannot read/.test(err.message) ? `the cookie file ${b.cookieFile} cannot be read: is it the node's .cookie (in its data folder, under regtest/ or testnet3/ off mainnet), and is the node running?` : `${who} refused the cookie in ${b.cookieFile}: it is another node's cookie, or an old one`);
          }
          if (b.username === undefined && b.password === undefined && b.cookieFile === undefined && /none are configured/.test(err.message)) refuse('cookieFile', err.message);
          refuse('password', `${who} refused this user and password${/HTTP 403/.test(err.message) ? ' (or its -rpcallowip does not admit this computer)' : ''}`);
        }
        if (err.kind === 'unreachable') refuse('url', `nothing answers at ${rpc.url}: check the address and port (the node's -rpcport; mainnet Litecoin Core listens on 9332, Bitcoin Core on 8332) and that the node runs with -server`);
        if (err.kind === 'timeout') refuse('url', `${who} did not answer within ${PROBE_TIMEOUT_MS / 1000} s`);
        refuse('url', `something answered at ${rpc.url}, but not a node's JSON-RPC (${err.message.slice(0, 160)})`);
      }
      if (err instanceof RpcError && err.code === -28) refuse('url', `${who} is still starting (${err.message}); test again in a moment`);
      if (err instanceof z.ZodError || err instanceof RpcError) refuse('url', `${who} answered getblockchaininfo, but not as a Bitcoin-family node does (${err.message.slice(0, 160)})`);
      throw err;
    }
    const net = networkOfChain(info.chain);
    const genesis = await rpc.call<string>('getblockhash', [0]).catch(() => null);
    requireChain(coin, network, { chain: info.chain, genesis }, who, 'node', override);
    const notes: string[] = [];
    const software = await rpc
      .call<{ subversion?: string }>('getnetworkinfo')
      .then((n) => n.subversion ?? null)
      .catch(() => null);
    const blockFilters = await nodeFilters(rpc, info.blocks);
    if (blockFilters === false) notes.push('the node keeps no block filters (-blockfilterindex=1): a watched wallet is found by reading every block from its birthday');
    if (info.pruned) notes.push(`the node is pruned: it holds blocks from ${info.pruneheight ?? 'an unknown height'} on, and history before that is not available from it`);
    if (info.initialblockdownload) notes.push('the node is still downloading the chain: balances stay provisional until it has caught up');
    // Bitcoin Core >= 24 says whether it replaces without signalling; opt-in (BIP125) replacement
    // is its default. Litecoin Core 0.21 replaces only with -mempoolreplacement=1 and does not say.
    const mempool = await rpc.call<{ fullrbf?: unknown }>('getmempoolinfo').catch(() => null);
    const relaysReplacements = typeof mempool?.fullrbf === 'boolean' ? true : null;
    if (relaysReplacements === null) notes.push('the node does not say whether it relays replacements (Litecoin Core does only with -mempoolreplacement=1)');
    return {
      kind: 'node-rpc',
      software,
      chain: info.chain,
      network: net,
      height: info.blocks,
      pruned: info.pruned,
      pruneHeight: info.pruned ? (info.pruneheight ?? null) : null,
      blockFilters,
      relaysReplacements,
      certificateSha256: null,
      notes,
    };
  } finally {
    rpc.close();
  }
}

/** getindexinfo (Core >= 0.21) names the filter index; older nodes are asked for the tip's filter. */
async function nodeFilters(rpc: RpcClient, tip: number): Promise<boolean | null> {
  try {
    const indexes = z.record(z.string(), z.object({ synced: z.boolean() }).loose()).parse(await rpc.call('getindexinfo'));
    const basic = indexes['basic block filter index'];
    return basic !== undefined;
  } catch (err) {
    if (!(err instanceof RpcError)) return null;
  }
  try {
    await rpc.call('getblockfilter', [await rpc.call<string>('getblockhash', [tip])]);
    return true;
  } catch (err) {
    return err instanceof RpcError && /not enabled|index/i.test(err.message) ? false : null;
  }
}

/** The server's certificate (TLS): its SHA-256, and whether a known authority signed it. */
function peerCertificate(host: string, port: number): Promise<{ sha256: string; authorized: boolean; why: string | null }> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host, port, servername: net.isIP(host) ? undefined : host, rejectUnauthorized: false });
    const timer = setTimeout(() => socket.destroy(new Error(`no TLS handshake within ${PROBE_TIMEOUT_MS / 1000} s`)), PROBE_TIMEOUT_MS);
    socket.once('secureConnect', () => {
      clearTimeout(timer);
      const cert = socket.getPeerCertificate();
      const why = socket.authorizationError ? String(socket.authorizationError) : null;
      socket.end();
      resolve({ sha256: cert.fingerprint256 ?? createHash('sha256').update(cert.raw ?? '').digest('hex'), authorized: socket.authorized, why });
    });
    socket.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
  });
}

const ServerFeatures = z.object({ genesis_hash: z.string().optional(), server_version: z.string().optional() }).loose();

async function probeElectrum(coin: UtxoCoinName, network: NetworkName, b: Extract<CoinConfig['backend'], { type: 'electrum' }>, override: ChainOverride): Promise<ProbeAnswer> {
  const where = `${b.host}:${b.port}`;
  const notes: string[] = [];
  let certificateSha256: string | null = null;
  if (b.tls) {
    let cert: Awaited<ReturnType<typeof peerCertificate>>;
    try {
      cert = await peerCertificate(b.host, b.port);
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      if (/ECONNREFUSED|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH/.test(why)) refuse('host', `nothing answers at ${where} (${why})`);
      return refuse('port', `${where} does not speak TLS (${why}): turn TLS off for a plain TCP port, or use the server's TLS port (often 50002)`);
    }
    certificateSha256 = cert.sha256;
    if (b.certificateSha256 !== undefined && b.certificateSha256.toUpperCase() !== cert.sha256.toUpperCase()) {
      refuse('certificate', `the server at ${where} shows another certificate (SHA-256 ${cert.sha256}) than the one pinned: if its operator renewed it, pin the new one; otherwise something is between you and the server`);
    }
    if (!cert.authorized && b.certificateSha256 === undefined && b.verifyCertificate) {
      refuse('certificate', `the server's certificate is not signed by an authority this computer knows (${cert.why ?? 'unverified'}): pin it (SHA-256 ${cert.sha256}) if you trust this server`);
    }
    if (!cert.authorized) notes.push(`the certificate is self-signed or from an unknown authority; ${b.certificateSha256 !== undefined ? 'it matches the pinned one' : 'it is not checked'}`);
  }
  const client = new ElectrumClient(
    { host: b.host, port: b.port, tls: b.tls, verifyCertificate: false },
    `the Electrum server at ${where}`,
    { timeoutMs: Math.min(b.timeoutMs, PROBE_TIMEOUT_MS), retries: 0, backoffMs: 0 },
  );
  try {
    let version: unknown;
    try {
      version = await client.request('server.version', ['countersign', '1.4'], z.unknown());
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      if (/ECONNREFUSED|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|unreachable/.test(why)) refuse('host', `nothing answers at ${where}: check the host and port (${why})`);
      return refuse('port', `${where} answered, but not as an Electrum server does${b.tls ? '' : ' (is it a TLS port? then turn TLS on)'}: ${why}`);
    }
    const features = await client.request('server.features', [], ServerFeatures).catch(() => null);
    const software = Array.isArray(version) && typeof version[0] === 'string' ? version[0] : (features?.server_version ?? null);
    if (client.tip === null) refuse('port', `${where} did not tell its tip`);
    const genesis = await electrumGenesis((method, params) => client.request(method, params, z.unknown())).catch(() => null);
    requireChain(coin, network, { chain: null, genesis }, `the Electrum server at ${where}`, 'Electrum server', override);
    notes.push('an Electrum server keeps its own index: it does not say whether it is pruned or keeps block filters');
    return {
      kind: 'electrum',
      software,
      chain: null,
      network: null,
      height: client.tip?.height ?? 0,
      pruned: null,
      pruneHeight: null,
      blockFilters: null,
      relaysReplacements: null,
      certificateSha256,
      notes,
    };
  } finally {
    client.close();
  }
}

const BlockbookAbout = z
  .object({
    blockbook: z.object({ coin: z.string().optional(), version: z.string().optional(), bestHeight: z.number().int().nonnegative(), inSync: z.boolean().optional() }).loose(),
    backend: z.object({ chain: z.string().optional(), blocks: z.number().int().optional(), subversion: z.string().optional() }).loose().default({}),
  })
  .loose();

async function probeBlockbook(coin: UtxoCoinName, network: NetworkName, b: Extract<CoinConfig['backend'], { type: 'blockbook' }>, override: ChainOverride): Promise<ProbeAnswer> {
  const api = new BlockbookApi(b.url, `blockbook ${coin}`, { timeoutMs: Math.min(b.timeoutMs, PROBE_TIMEOUT_MS), retries: 0, backoffMs: 0 });
  let s: z.infer<typeof BlockbookAbout>;
  try {
    s = await api.get('/api/status', BlockbookAbout);
  } catch (err) {
    refuse('url', err instanceof UpstreamFailure ? `${err.message.replace(/^blockbook \S+ /, 'the Blockbook ')}: is ${b.url} a Blockbook's base URL?` : String(err));
    throw err;
  }
  const chain = s.backend.chain ?? null;
  const net = chain === null ? null : networkOfChain(chain);
  const genesis = await blockbookGenesis(api).catch(() => null);
  requireChain(coin, network, { chain, genesis }, `the Blockbook at ${b.url}`, 'Blockbook', override);
  const notes: string[] = [];
  if (s.blockbook.coin) notes.push(`the Blockbook says it indexes ${s.blockbook.coin}`);
  if (s.blockbook.inSync === false) notes.push('the Blockbook is still synchronising');
  return {
    kind: 'blockbook',
    software: s.blockbook.version ? `Blockbook ${s.blockbook.version}` : null,
    chain,
    network: net,
    height: s.blockbook.bestHeight,
    pruned: null,
    pruneHeight: null,
    blockFilters: null,
    relaysReplacements: null,
    certificateSha256: null,
    notes,
  };
}

/** The backend's configuration field a config.ts refusal names, mapped onto the probe's fields. */
function configField(path: readonly PropertyKey[]): ProbeField {
  const key = String(path[path.length - 1] ?? '');
  if (key === 'host' || key === 'port' || key === 'cookieFile' || key === 'password') return key;
  if (key === 'certificateSha256') return 'certificate';
  if (key === 'username') return 'password';
  if (key === 'network') return 'network';
  return 'url';
}

/**
 * Tests a coin's backend configuration (the service's own `coins.<coin>` format) without saving or
 * starting anything: what answered, or why not, at which field.
 */
export async function probeChain(coin: UtxoCoinName, input: z.input<typeof CoinConfig>): Promise<ProbeResult> {
  const parsed = CoinConfig.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { ok: false, field: configField(issue?.path ?? []), message: issue?.message ?? 'the configuration is refused' };
  }
  const { network, backend } = parsed.data;
  const override = backend.genesis === undefined ? {} : { genesis: backend.genesis };
  try {
    switch (backend.type) {
      case 'node-rpc':
        return { ok: true, answer: await probeNode(coin, network, backend, override) };
      case 'electrum':
        return { ok: true, answer: await probeElectrum(coin, network, backend, override) };
      case 'blockbook':
        return { ok: true, answer: await probeBlockbook(coin, network, backend, override) };
    }
  } catch (err) {
    if (err instanceof Refused) return { ok: false, field: err.field, message: err.message };
    throw err;
  }
}
