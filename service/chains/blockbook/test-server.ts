// A Blockbook stand-in for tests: a real HTTP server on 127.0.0.1 (port 0) answering API v2 from a
// fixture file with Blockbook's own rules (openapi.yaml, api/worker.go): page 1 carries the mempool
// in front, later pages confirmed transactions only; `details` picks what an address answer holds;
// `contract` filters Ethereum token data; errors are HTTP 400 {"error": ...}. It can also fall
// silent, answer garbage, or refuse broadcasts, to test how the service copes.
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

interface FixtureTx {
  txid: string;
  blockHeight: number;
  tokenTransfers?: { contract: string }[];
  [k: string]: unknown;
}

interface FixtureAddress {
  address: string;
  txs?: number;
  unconfirmedTxs?: number;
  unconfirmedBalance?: string;
  transactions?: FixtureTx[];
  tokens?: { contract?: string }[];
  [k: string]: unknown;
}

export interface BlockbookFixture {
  status: unknown;
  estimatefee: { result: string };
  address: Record<string, FixtureAddress>;
  utxo?: Record<string, unknown[]>;
  tx: Record<string, unknown>;
}

export type Behaviour = 'normal' | 'silent' | 'garbage';

export interface BlockbookTestServer {
  url: string;
  fixture: BlockbookFixture;
  /** Raw transactions received by sendtx, as sent. */
  broadcasts: string[];
  /** Requests received, path and query. */
  requests: string[];
  behaviour: Behaviour;
  /** Set: sendtx answers HTTP 400 with this as the node's reason. */
  refuseBroadcast: string | null;
  /** The txid sendtx answers with for a hex body. */
  txidOf: (hex: string) => string;
  close(): Promise<void>;
}

export function loadFixture(path: URL): BlockbookFixture {
  return JSON.parse(readFileSync(path, 'utf8')) as BlockbookFixture;
}

const MAX_PAGE_SIZE = 1000;

function addressAnswer(entry: FixtureAddress, query: URLSearchParams) {
  const details = query.get('details') ?? 'txids';
  const contract = query.get('contract')?.toLowerCase();
  let all = entry.transactions ?? [];
  let tokens = entry.tokens;
  let confirmedCount = entry.txs ?? 0;
  if (contract) {
    all = all.filter((tx) => (tx.tokenTransfers ?? []).some((t) => t.contract.toLowerCase() === contract));
    tokens = tokens?.filter((t) => t.contract?.toLowerCase() === contract);
    confirmedCount = all.filter((tx) => tx.blockHeight > 0).length;
  }
  const page = Math.max(1, Number(query.get('page') ?? '1') || 1);
  const pageSize = Math.min(MAX_PAGE_SIZE, Math.max(1, Number(query.get('pageSize') ?? String(MAX_PAGE_SIZE)) || MAX_PAGE_SIZE));
  const mempool = all.filter((tx) => tx.blockHeight < 0);
  const confirmed = all.filter((tx) => tx.blockHeight > 0);
  const listed = page === 1 ? [...mempool, ...confirmed.slice(0, pageSize)].slice(0, pageSize) : confirmed.slice((page - 1) * pageSize, page * pageSize);
  const { transactions: _t, tokens: _k, unconfirmedBalance, ...rest } = entry;
  const answer: Record<string, unknown> = { ...rest, txs: confirmedCount, ...(contract ? { unconfirmedTxs: mempool.length } : {}) };
  if (details !== 'basic') {
    Object.assign(answer, { page, totalPages: Math.max(1, Math.ceil(confirmedCount / pageSize)), itemsOnPage: pageSize });
    if (unconfirmedBalance !== undefined) answer.unconfirmedBalance = unconfirmedBalance;
  } else {
    delete answer.unconfirmedTxs; // basic reports the raw mempool index size; none here
  }
  if (tokens && details !== 'basic' && details !== 'txids' && details !== 'txslight' && details !== 'txs') answer.tokens = tokens;
  if (details === 'txids') answer.txids = listed.map((tx) => tx.txid);
  if (details === 'txs' || details === 'txslight') answer.transactions = listed;
  return answer;
}

export async function startBlockbookTestServer(fixture: BlockbookFixture, txidOf: (hex: string) => string): Promise<BlockbookTestServer> {
  const state: Omit<BlockbookTestServer, 'url' | 'close'> = { fixture, broadcasts: [], requests: [], behaviour: 'normal', refuseBroadcast: null, txidOf };

  const json = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' }).end(`${JSON.stringify(body)}\n`);
  };
  const error = (res: ServerResponse, text: string) => json(res, 400, { error: text });

  const sendtx = (res: ServerResponse, hex: string) => {
    if (!/^(0x)?[0-9a-fA-F]+$/.test(hex)) return error(res, 'Missing tx blob');
    state.broadcasts.push(hex);
    if (state.refuseBroadcast !== null) return error(res, state.refuseBroadcast);
    json(res, 200, { result: state.txidOf(hex) });
  };

  const handle = (req: IncomingMessage, res: ServerResponse, body: string) => {
    const url = new URL(req.url ?? '/', 'http://fixture');
    state.requests.push(`${req.method} ${decodeURIComponent(url.pathname)}${url.search}`);
    if (state.behaviour === 'silent') return; // never answers
    if (state.behaviour === 'garbage') {
      res.writeHead(200, { 'content-type': 'application/json' }).end('<html><body>502 Bad Gateway</body></html>');
      return;
    }
    const path = url.pathname;
    const tail = (prefix: string) => decodeURIComponent(path.slice(prefix.length));
    if (req.method === 'POST' && path === '/api/v2/sendtx/') return sendtx(res, body.trim());
    if (req.method !== 'GET') return json(res, 405, { error: 'method not allowed' });
    if (path === '/api/status' || path === '/api/') return json(res, 200, fixture.status);
    if (path.startsWith('/api/v2/sendtx/')) return sendtx(res, tail('/api/v2/sendtx/'));
    if (path.startsWith('/api/v2/estimatefee/')) {
      if (!/^\d+$/.test(tail('/api/v2/estimatefee/'))) return error(res, "Parameter 'number of blocks' is not a number");
      return json(res, 200, fixture.estimatefee);
    }
    if (path.startsWith('/api/v2/address/')) {
      const address = tail('/api/v2/address/');
      // Blockbook takes Ethereum addresses in any letter case
      const key = Object.keys(fixture.address).find((k) => k === address || (k.startsWith('0x') && k.toLowerCase() === address.toLowerCase()));
      const entry = (key !== undefined ? fixture.address[key] : undefined) ?? { address, balance: '0', unconfirmedBalance: '0', txs: 0, unconfirmedTxs: 0, transactions: [] };
      return json(res, 200, addressAnswer(entry, url.searchParams));
    }
    if (path.startsWith('/api/v2/utxo/')) return json(res, 200, fixture.utxo?.[tail('/api/v2/utxo/')] ?? []);
    if (path.startsWith('/api/v2/tx/')) {
      const txid = tail('/api/v2/tx/');
      const tx = fixture.tx[txid];
      return tx ? json(res, 200, tx) : error(res, `Transaction '${txid}' not found`);
    }
    json(res, 404, { error: `unknown path ${path}` });
  };

  const server: Server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => handle(req, res, body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(state, {
    url: `http://127.0.0.1:${port}`,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  });
}
