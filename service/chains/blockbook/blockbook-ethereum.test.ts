// The blockbook backend for ethereum, through the service's HTTP API, against a local HTTP server
// replaying hand-written Blockbook API v2 answers (fixtures/ethereum.json): Ether and ERC20
// balances, history without failed or pending transactions, paging, Ether/ERC20 payments built
// from Blockbook's nonce and gas price, signed here and broadcast through sendtx, and tokens'
// metadata from Blockbook's contract data.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SigningKey, getAddress, keccak256, Transaction } from 'ethers';
import { sha256 } from '../../../shared/coins/hash.ts';
import type { Balance, Balances, History } from '../../../shared/api/schemas.ts';
import { startTestService, type TestService } from '../../test/http-service.ts';
import { loadFixture, startBlockbookTestServer, type BlockbookTestServer } from './test-server.ts';

const fixture = loadFixture(new URL('./fixtures/ethereum.json', import.meta.url));
const { alice, bob, usdt } = (fixture as unknown as { scenario: { alice: string; bob: string; usdt: string } }).scenario;
const aliceKey = new SigningKey(sha256(new TextEncoder().encode('countersign upstream eth alice')));
const GWEI = 10n ** 9n;

let server: BlockbookTestServer;
let t: TestService;

function q(params: Record<string, string | bigint | number>) {
  return new URLSearchParams(Object.entries(params).map(([k, v]): [string, string] => [k, String(v)])).toString();
}

async function ok<T>(method: 'GET' | 'POST', url: string): Promise<T> {
  const res = await t.request(method, url);
  if (res.status !== 200) throw new Error(`${method} ${url} -> ${res.status} ${JSON.stringify(res.json, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))}`);
  return res.json as T;
}

beforeAll(async () => {
  server = await startBlockbookTestServer(fixture, (hex) => keccak256(hex.startsWith('0x') ? hex : `0x${hex}`));
  t = await startTestService({ coins: { ethereum: { network: 'mainnet', backend: { type: 'blockbook', url: server.url, timeoutMs: 2_000, retries: 1, backoffMs: 10 } } } });
});

afterAll(async () => {
  await t?.dispose();
  await server?.close();
});

describe('ethereum over blockbook', () => {
  it('Ether balance: confirmed and pending', async () => {
    const b = await ok<Balance>('GET', `/address/balance/ethereum/${alice}`);
    expect(b).toMatchObject({ balance: 398_716_000_000_000_000n, unconfirmed_balance: 50_000_000_000_000_000n, human_balance: 0.398716, human_unconfirmed_balance: 0.05 });
  });

  it('ERC20 balance in the token\'s units, and a contract Blockbook does not know is refused', async () => {
    const b = await ok<Balances>('GET', `/address/balances/ethereum/${alice},${bob}?contract_id=${usdt}&decimal_places=6`);
    expect(b.addresses.map((a) => [a.address, a.balance, a.human_balance])).toEqual([
      [alice, 4_000_000n, 4],
      [bob, 0n, 0],
    ]);
    expect(b.totals).toMatchObject({ balance: 4_000_000n, usd_balance: 0 });
    const unknown = await t.request('GET', `/address/balance/ethereum/${alice}?contract_id=${bob}&decimal_places=6`);
    expect(unknown.status).toBe(400);
    expect((unknown.json as { message: string }).message).toMatch(/contract_id.*not a token contract/);
  });

  it('Ether history: mined value transfers only (no failed, no pending, no token calls), newest first, paged', async () => {
    const h = await ok<History>('GET', `/address/history/ethereum/${alice}`);
    expect(h.total_txs).toBe(2);
    expect(h.txs.map((x) => [(x.txid ?? '').slice(-2), x.is_deposit, x.amount, x.confirmations])).toEqual([
      ['02', false, 100_000_000_000_000_000n, 6],
      ['01', true, 500_000_000_000_000_000n, 11],
    ]);
    const second = await ok<History>('GET', `/address/history/ethereum/${alice}?limit=1&offset=1`);
    expect(second.txs.map((x) => (x.txid ?? '').slice(-2))).toEqual(['01']);
  });

  it('ERC20 history: the token\'s transfers from Blockbook\'s contract filter', async () => {
    const h = await ok<History>('GET', `/address/history/ethereum/${alice}?contract_id=${usdt}&decimal_places=6`);
    expect(h.total_txs).toBe(2);
    expect(h.txs.map((x) => [(x.txid ?? '').slice(-2), x.is_deposit, x.amount, x.human_amount, x.confirmations])).toEqual([
      ['05', true, 5_000_000n, 5, 1],
      ['03', false, 1_000_000n, 1, 3],
    ]);
    expect(server.requests.some((r) => r.includes(`contract=${usdt.toLowerCase()}`))).toBe(true);
  });

  it('sends Ether: create from Blockbook\'s nonce and gas price, sign here, sign_and_send broadcasts through sendtx', async () => {
    const params = { from: alice, to: bob, amount: 100_000_000n }; // 0.1 ETH in GWEI
    const created = await ok<{ tx: string; hash_to_sign: string }>('POST', `/ethereum/create/?${q(params)}`);
    const unsigned = Transaction.from(created.tx);
    expect(unsigned).toMatchObject({ nonce: 3, gasPrice: 12n * GWEI, gasLimit: 21_000n, value: 100_000_000n * GWEI, chainId: 1n });
    const sig = aliceKey.sign(created.hash_to_sign);
    const sent = await ok<{ message: string }>('POST', `/ethereum/sign_and_send/?${q({ ...params, r: sig.r, s: sig.s.slice(2), v: sig.v })}`);
    const raw = server.broadcasts.at(-1)!;
    expect(raw.startsWith('0x')).toBe(true);
    expect(sent.message).toBe(keccak256(raw));
    expect(Transaction.from(raw).from).toBe(alice);
  });

  it('sends a token with the configured gas limit; a refusal keeps Blockbook\'s reason', async () => {
    const params = { from: alice, to: bob, amount: 2_000n, contract_id: usdt, decimal_places: 6 }; // 2,000 GWEI of the token: 2 units at 6 decimals
    const created = await ok<{ tx: string; hash_to_sign: string }>('POST', `/erc20/create/?${q(params)}`);
    const unsigned = Transaction.from(created.tx);
    expect(unsigned.to).toBe(usdt);
    expect(unsigned.gasLimit).toBe(100_000n);
    const sig = aliceKey.sign(created.hash_to_sign);
    server.refuseBroadcast = 'insufficient funds for gas * price + value: balance 0, tx cost 1200000000000000';
    try {
      const refused = await t.request('POST', `/erc20/sign_and_send/?${q({ ...params, r: sig.r, s: sig.s.slice(2), v: sig.v })}`);
      expect(refused.status).toBe(422);
      expect((refused.json as { message: string }).message).toMatch(/^blockbook ethereum .* rejected the transaction: insufficient funds/);
    } finally {
      server.refuseBroadcast = null;
    }
    const sent = await ok<{ message: string }>('POST', `/erc20/sign_and_send/?${q({ ...params, r: sig.r, s: sig.s.slice(2), v: sig.v })}`);
    expect(sent.message).toBe(keccak256(server.broadcasts.at(-1)!));
  });

  it('a token\'s name, symbol and decimals from Blockbook\'s contract data (GET /erc20/token/{contract})', async () => {
    const info = async (contract: string) => {
      const res = await t.request('GET', `/erc20/token/${contract}`);
      return { status: res.status, body: res.json as Record<string, unknown> };
    };
    // contractInfo as Blockbook answers /api/v2/address/{contract} today, asked for by any letter case
    expect(await info(usdt.toLowerCase())).toEqual({ status: 200, body: { contract: usdt, name: 'Tether USD', symbol: 'USDT', decimals: 6 } });
    expect(server.requests.at(-1)).toBe(`GET /api/v2/address/${usdt.toLowerCase()}?details=basic`);
    // erc20Contract, the name older Blockbooks give the same data
    const mkr = '0x9f8F72aA9304c8B593d555F12eF6589cC3A579A2';
    expect(await info(mkr)).toEqual({ status: 200, body: { contract: mkr, name: 'Maker', symbol: 'MKR', decimals: 18 } });
    // an empty name and a symbol disguised by a right-to-left override are not passed on
    const bare = '0xc0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c001';
    expect(await info(bare)).toEqual({ status: 200, body: { contract: getAddress(bare), name: null, symbol: null, decimals: 2 } });
    // an address Blockbook knows no contract at: the same refusal as contract_id gets, naming the field
    const eoa = await info(alice);
    expect(eoa.status).toBe(400);
    expect(eoa.body['message']).toMatch(/^field "contract": 0x5afca5c5833ecd6276e5d57d0de7e0f6f297f34c is not a token contract blockbook ethereum .* knows on this chain$/);
    // an NFT contract is no ERC20 token
    const kitties = await info('0x06012c8cf97BEaD5deAe237070F9587f8E7A266d');
    expect(kitties.status).toBe(422);
    expect(kitties.body['message']).toMatch(/knows 0x06012c8cf97BEaD5deAe237070F9587f8E7A266d as an ERC721 contract .*not an ERC20 token/);
    // decimals no uint8 holds: Blockbook's answer is not believed
    const broken = await info('0xc0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c002');
    expect(broken.status).toBe(502);
    expect(broken.body['message']).toMatch(/reported 300 decimals for 0x.*, not a uint8/);
  });

  it('/status names the backend', async () => {
    const res = await t.request('GET', '/status');
    expect((res.json as { coins: unknown[] }).coins).toEqual([expect.objectContaining({ coin: 'ethereum', backend: 'blockbook', tip_height: 21_000_000, indexed_height: 21_000_000 })]);
  });

  it('a silent Blockbook is a 504 naming it', async () => {
    server.behaviour = 'silent';
    try {
      const res = await t.request('GET', `/address/balance/ethereum/${alice}`);
      expect(res.status).toBe(504);
      expect((res.json as { message: string }).message).toMatch(/^blockbook ethereum \(127\.0\.0\.1:\d+\) did not answer within 2000 ms/);
    } finally {
      server.behaviour = 'normal';
    }
  }, 20_000);
});
