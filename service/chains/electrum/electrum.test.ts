// The electrum backend for every UTXO coin with a fixture (bitcoin, litecoin, bitcoin_cash,
// bitcoin_gold, dash, zcash, zclassic), through the service's HTTP API, against a
// local TCP server speaking Electrum protocol 1.4 from fixtures/<coin>.json; then the tip
// subscription, a dropped connection, and a server that is down, silent or sends garbage.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { sha256 } from '@noble/hashes/sha2.js';
import { addressToScript, scriptToAddress } from '../../../shared/coins/address.ts';
import { bytesToHex } from '../../../shared/coins/bytes.ts';
import { multisigScripts } from '../../../shared/coins/multisig-script.ts';
import { scenarioKeys } from '../blockbook/fixtures/generate.ts';
import { chainParams, type UtxoCoinName } from '../../../shared/coins/coin-table.ts';
import { decodeTxHex, txidHex } from '../../../shared/coins/tx.ts';
import type { FeeEstimates } from '../../../shared/api/schemas.ts';
import { coinsToUnits } from '../utxo/rpc-client.ts';
import { startTestService, type TestService } from '../../test/http-service.ts';
import { fixtureUpstreamFlows, withFixtureUpstream } from '../upstream-scenario.ts';
import { fixtureCoins } from '../blockbook/fixtures/generate.ts';
import { scripthash } from './electrum-backend.ts';
import { until } from '../../test/until.ts';
import { loadElectrumFixture, selfSignedCertificate, startElectrumTestServer, type ElectrumTestServer } from './test-server.ts';

const coins = fixtureCoins('electrum');

/** A fixture Electrum server and a service using it (backend options added), for one describe block. */
const withElectrum = (coin: UtxoCoinName, backend: Record<string, unknown>) =>
  withFixtureUpstream(coin, loadElectrumFixture(new URL(`./fixtures/${coin}.json`, import.meta.url)), startElectrumTestServer, (server) => ({ type: 'electrum', host: server.host, port: server.port, ...backend }));

describe('fee estimates over electrum (litecoin, figures worked by hand)', () => {
  const s = withElectrum('litecoin', { timeoutMs: 2_000, retries: 1, backoffMs: 10 });

  it('0.00031416 LTC/kB is 31416 litoshi per kvB, 32 per vB (rounded up); 0.0002 is 20 per vB; 0.0001 is 10 per vB', async () => {
    s.fixture.estimatefee = { 1: 0.00031416, 6: 0.0002, 24: 0.0001 };
    const body = (await s.t.request('GET', '/fee_estimates/litecoin')).json as FeeEstimates;
    expect(body.estimates).toEqual([
      { blocks: 1, fee_rate: 32, units_per_kvbyte: 31416, source: 'node' },
      { blocks: 6, fee_rate: 20, units_per_kvbyte: 20000, source: 'node' },
      { blocks: 24, fee_rate: 10, units_per_kvbyte: 10000, source: 'node' },
    ]);
  });

  it('a tiny rate the server writes as 1e-7 is read exactly; a server with no estimate yet (-1 everywhere) gives the fallback for each target', async () => {
    s.fixture.estimatefee = { 1: 1e-7, 6: -1, 24: -1 };
    const body = (await s.t.request('GET', '/fee_estimates/litecoin')).json as FeeEstimates;
    expect(body.estimates[0]).toEqual({ blocks: 1, fee_rate: 1, units_per_kvbyte: 10, source: 'node' });
    expect(body.estimates.slice(1).map((e) => [e.source, e.fee_rate])).toEqual([
      ['fallback', body.fallback_fee_rate],
      ['fallback', body.fallback_fee_rate],
    ]);
  });
});

it('scripthash: sha256 of the scriptPubKey, byte-reversed (the protocol documentation\'s example)', () => {
  const script = addressToScript(chainParams('bitcoin', 'mainnet'), '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa');
  expect(scripthash(script)).toBe('8b01df4e368ea28f8dc0423bcf7a4923e3a12d307c875e47a0cfbf90b5c39161');
});

it('scripthash of a bech32 P2WSH address: its BIP173 scriptPubKey hashed and reversed', () => {
  const script = addressToScript(chainParams('bitcoin', 'mainnet'), 'bc1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3qccfmv3');
  expect(bytesToHex(script)).toBe('00201863143c14c5166804bd19203356da136c985678cd4d27a1b8c6329604903262');
  expect(scripthash(script)).toBe(bytesToHex(sha256(script).reverse()));
});

describe.each(coins)('electrum backend for %s', (coin) => {
  const s = withElectrum(coin, { timeoutMs: 2_000, retries: 1, backoffMs: 10, minFeePerKb: 2_000 });
  const { scenario, fixture } = s;
  const params = chainParams(coin, 'mainnet');

  it('gives fee estimates per target from blockchain.estimatefee (extension), exactly; where the server answers -1, the fallback, marked so', async () => {
    const res = await s.t.request('GET', `/fee_estimates/${coin}`);
    expect(res.status).toBe(200);
    const body = res.json as FeeEstimates;
    expect(body).toMatchObject({ coin, backend: 'electrum' });
    expect(body.estimates.map((e) => e.blocks)).toEqual([1, 6, 24]);
    for (const e of body.estimates) {
      const answered = fixture.estimatefee[String(e.blocks)]!;
      if (answered > 0) {
        // The server's coins per kB, as exact units per kB, and per vbyte rounded up.
        const perKb = coinsToUnits(String(answered), params.decimals);
        expect(e, `${e.blocks} blocks`).toEqual({ blocks: e.blocks, units_per_kvbyte: Number(perKb), fee_rate: Number((perKb + 999n) / 1000n), source: 'node' });
      } else {
        expect(e, `${e.blocks} blocks`).toEqual({ blocks: e.blocks, units_per_kvbyte: expect.any(Number), fee_rate: body.fallback_fee_rate, source: 'fallback' });
      }
    }
    expect(s.server.calls.filter((c) => c === 'blockchain.estimatefee').length).toBeGreaterThanOrEqual(3);
  });

  it('a P2WSH or P2SH-P2WSH vault address is asked by the scripthash of its own scriptPubKey (coins with segwit; none without)', async () => {
    const keys = scenarioKeys.cosigners.map((k) => k.publicKey);
    if (!params.segwit) {
      // A coin without segwit has no such address to ask for.
      expect(() => multisigScripts(params, 2, keys, { scriptType: 'p2wsh' })).toThrow(/has no segwit/);
      return;
    }
    for (const scriptType of ['p2wsh', 'p2sh-p2wsh'] as const) {
      const script = multisigScripts(params, 2, keys, { scriptType, sortKeys: true }).scriptPubKey;
      const address = scriptToAddress(params, script)!;
      // Computed here from the script alone, not by the backend's function.
      fixture.scripthashes[bytesToHex(sha256(script).reverse())] = { balance: { confirmed: 654321, unconfirmed: 0 }, history: [], unspent: [] };
      const res = await s.t.request('GET', `/address/balance/${coin}/${address}`);
      expect(res.status).toBe(200);
      expect((res.json as { balance: bigint }).balance).toBe(654321n);
    }
  });

  fixtureUpstreamFlows(coin, s);

  it('opened with the server.version handshake on protocol 1.4, asked its block 0, then subscribed to headers, over one connection', () => {
    expect(s.server.calls.slice(0, 4)).toEqual(['server.version', 'server.features', 'blockchain.block.header', 'blockchain.headers.subscribe']);
    expect(s.server.connections).toBe(1);
  });

  it('follows the tip the server announces', async () => {
    const tip = fixture.tip.height;
    s.server.announceTip(tip + 1, fixture.tip.hex);
    await vi.waitFor(async () => {
      const res = await s.t.request('GET', '/status');
      expect((res.json as { coins: unknown[] }).coins).toEqual([expect.objectContaining({ coin, backend: 'electrum', tip_height: tip + 1, indexed_height: tip + 1, error: null })]);
    });
    // confirmations count from the new tip
    const { txs } = (await s.t.request('GET', `/address/history/${coin}/${scenario.multisig}`)).json as { txs: { confirmations: number }[] };
    expect(txs[0]!.confirmations).toBe(4);
    s.server.announceTip(tip, fixture.tip.hex);
  });

  it('reconnects after the server dropped the connection', async () => {
    const before = s.server.connections;
    s.server.dropConnections();
    const res = await s.t.request('GET', `/address/balance/${coin}/${scenario.alice}`);
    expect(res.status).toBe(200);
    expect(s.server.connections).toBe(before + 1);
  });
});

describe('electrum failures', () => {
  const coin = 'litecoin';
  const s = withElectrum(coin, { timeoutMs: 300, retries: 1, backoffMs: 10 });
  const { alice } = s.scenario;
  const { fixture } = s;

  it('a silent server: 504 naming it once the deadline (and the retry) passed, not a hang', async () => {
    s.server.behaviour = 'silent';
    try {
      const res = await s.t.request('GET', `/address/balance/${coin}/${alice}`);
      expect(res.status).toBe(504);
      expect((res.json as { message: string }).message).toMatch(/^electrum litecoin \(127\.0\.0\.1:\d+\) did not answer (server\.version|blockchain\.scripthash\.get_balance) within 300 ms/);
    } finally {
      s.server.behaviour = 'normal';
    }
    // and it recovers once the server answers again
    expect((await s.t.request('GET', `/address/balance/${coin}/${alice}`)).status).toBe(200);
  });

  it('garbage instead of JSON-RPC: 502 naming it', async () => {
    s.server.behaviour = 'garbage';
    try {
      const res = await s.t.request('GET', `/address/utxos/${coin}/${alice}`);
      expect(res.status).toBe(502);
      expect((res.json as { message: string }).message).toMatch(/^electrum litecoin \(127\.0\.0\.1:\d+\) sent something that is not JSON/);
    } finally {
      s.server.behaviour = 'normal';
    }
  });

  it('an answer of the wrong shape: 502 naming it and the method', async () => {
    const sh = Object.keys(fixture.scripthashes).find((k) => (fixture.scripthashes[k] as unknown as { address: string }).address === alice)!;
    const saved = fixture.scripthashes[sh]!.balance;
    fixture.scripthashes[sh]!.balance = { confirmed: 0.5, unconfirmed: 0 };
    try {
      const res = await s.t.request('GET', `/address/balance/${coin}/${alice}`);
      expect(res.status).toBe(502);
      expect((res.json as { message: string }).message).toMatch(/electrum litecoin .* answered blockchain\.scripthash\.get_balance with an unexpected shape/);
    } finally {
      fixture.scripthashes[sh]!.balance = saved;
    }
  });

  it('a server that is down: 502 naming it, and /status says so', async () => {
    await s.server.close();
    const res = await s.t.request('GET', `/address/history/${coin}/${alice}`);
    expect(res.status).toBe(502);
    expect((res.json as { message: string }).message).toMatch(/^electrum litecoin \(127\.0\.0\.1:\d+\) (is unreachable|closed the connection)/);
    const status = await s.t.request('GET', '/status');
    expect((status.json as { coins: { backend: string; error: string | null }[] }).coins[0]).toMatchObject({ backend: 'electrum', error: expect.any(String) });
  });
});

describe('electrum over TLS', () => {
  const coin = 'litecoin';
  const params = chainParams(coin, 'mainnet');
  const fixture = loadElectrumFixture(new URL(`./fixtures/${coin}.json`, import.meta.url));
  const alice = (fixture as unknown as { scenario: { alice: string } }).scenario.alice;
  let server: ElectrumTestServer;
  const services: TestService[] = [];

  beforeAll(async () => {
    server = await startElectrumTestServer(fixture, (hex) => txidHex(decodeTxHex(hex, undefined, params)), { tls: selfSignedCertificate() });
  });

  afterAll(async () => {
    for (const s of services) await s.dispose();
    await server?.close();
  });

  const serviceWith = async (verifyCertificate: boolean) => {
    const s = await startTestService({
      coins: { [coin]: { network: 'mainnet', backend: { type: 'electrum', host: server.host, port: server.port, tls: true, verifyCertificate, timeoutMs: 2_000, retries: 0 } } },
    });
    services.push(s);
    return s;
  };

  it('speaks the protocol over TLS', async () => {
    const s = await serviceWith(false);
    const res = await s.request('GET', `/address/balance/${coin}/${alice}`);
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ balance: 74_990_000n });
  });

  it('refuses a certificate no authority signed unless told not to check it: 502 naming the server', async () => {
    const s = await serviceWith(true);
    const res = await s.request('GET', `/address/balance/${coin}/${alice}`);
    expect(res.status).toBe(502);
    expect((res.json as { message: string }).message).toMatch(/^electrum litecoin \(127\.0\.0\.1:\d+\) is unreachable: .*certificate/);
  });
});

describe('an Electrum server of another chain', () => {
  const coin = 'litecoin';
  const s = withElectrum(coin, { timeoutMs: 2_000, retries: 0, backoffMs: 10 });
  const LITECOIN_REGTEST = '530827f38f93b43ed12af0b3ad25a288dc02ed74d6d7857862df51fc56c416f9';
  const LITECOIN_MAIN = '12a765e31ffd4059bada1e25190f6e98c99d9714d334efa41a195a7e7e04bfe2';

  it('is refused on reconnection: every route of the coin, /status and /readyz say why; it is served again once the server is on mainnet', async () => {
    const why = new RegExp(`^litecoin: the Electrum server at 127\\.0\\.0\\.1:${s.server.port} is on regtest, but this coin is configured for mainnet`);
    s.server.genesis = LITECOIN_REGTEST;
    s.server.dropConnections();
    const refused = await until('the refusal', async () => {
      const res = await s.t.request('GET', `/address/balance/${coin}/${s.scenario.alice}`);
      return res.status === 503 && res;
    });
    expect((refused.json as { message: string }).message).toMatch(why);
    expect((await s.t.request('GET', `/fee_estimates/${coin}`)).status).toBe(503);
    const ready = await s.t.request('GET', '/readyz');
    expect(ready.status).toBe(503);
    expect((ready.json as { message: string }).message).toMatch(/not ready: litecoin: the Electrum server at .* is on regtest, but this coin is configured for mainnet/);
    const status = (await s.t.request('GET', '/status')).json as { coins: { error: string | null }[] };
    expect(status.coins[0]!.error).toMatch(why);

    s.server.genesis = LITECOIN_MAIN;
    await until('the server served again', async () => (await s.t.request('GET', `/address/balance/${coin}/${s.scenario.alice}`)).status === 200, { deadlineMs: 30_000 });
  });
});
