// The blockbook backend for every UTXO coin with a fixture (bitcoin, litecoin, bitcoin_cash,
// bitcoin_gold, dash, zcash), through the service's HTTP API, against a
// local HTTP server replaying Blockbook API v2 answers (fixtures/<coin>.json); then what the
// service does when that Blockbook is down, silent, or answers garbage.
import { describe, expect, it } from 'vitest';
import { scriptToAddress } from '../../../shared/coins/address.ts';
import { chainParams, type UtxoCoinName } from '../../../shared/coins/coin-table.ts';
import { multisigScripts } from '../../../shared/coins/multisig-script.ts';
import { decodeTxHex } from '../../../shared/coins/tx.ts';
import { coinsToUnits } from '../utxo/rpc-client.ts';
import { fixtureUpstreamFlows, withFixtureUpstream } from '../upstream-scenario.ts';
import { fixtureCoins, fixtureTip, scenarioKeys } from './fixtures/generate.ts';
import { loadFixture, startBlockbookTestServer } from './test-server.ts';

const coins = fixtureCoins('blockbook');

/** A fixture Blockbook and a service using it (backend options added), for one describe block. */
const withBlockbook = (coin: UtxoCoinName, backend: Record<string, unknown>) =>
  withFixtureUpstream(coin, loadFixture(new URL(`./fixtures/${coin}.json`, import.meta.url)), startBlockbookTestServer, (server) => ({ type: 'blockbook', url: server.url, ...backend }));

describe.each(coins)('blockbook backend for %s', (coin) => {
  const s = withBlockbook(coin, { timeoutMs: 2_000, retries: 1, backoffMs: 10, minFeePerKb: 2_000 });
  const { scenario } = s;
  const params = chainParams(coin, 'mainnet');

  fixtureUpstreamFlows(coin, s);

  it('asks Blockbook for a P2WSH or P2SH-P2WSH vault by its address on the coin\'s own prefix (bech32 for native segwit); none on coins without segwit', async () => {
    const keys = scenarioKeys.cosigners.map((k) => k.publicKey);
    if (!params.segwit) {
      // A coin without segwit has no such address to ask for.
      expect(() => multisigScripts(params, 2, keys, { scriptType: 'p2wsh' })).toThrow(/has no segwit/);
      return;
    }
    for (const scriptType of ['p2wsh', 'p2sh-p2wsh'] as const) {
      const address = scriptToAddress(params, multisigScripts(params, 2, keys, { scriptType, sortKeys: true }).scriptPubKey)!;
      if (scriptType === 'p2wsh') expect(address.startsWith(`${params.bech32Hrp}1q`)).toBe(true);
      s.fixture.address[address] = { address, balance: '123456', unconfirmedBalance: '0', txs: 0, unconfirmedTxs: 0, transactions: [] };
      // Given in upper case (bech32 allows it): the same script, asked by its canonical form.
      const asked = scriptType === 'p2wsh' ? address.toUpperCase() : address;
      const res = await s.t.request('GET', `/address/balance/${coin}/${asked}`);
      expect(res.status).toBe(200);
      expect((res.json as { balance: bigint }).balance).toBe(123456n);
      expect(s.server.requests.some((r) => r.startsWith(`GET /api/v2/address/${address}?`))).toBe(true);
    }
  });

  it('asks Blockbook by the coin\'s own address form (CashAddr on Bitcoin Cash) and pages its history', async () => {
    const seen = s.server.requests.filter((r) => r.startsWith('GET /api/v2/address/'));
    expect(seen.length).toBeGreaterThan(0);
    if (coin === 'bitcoin_cash') expect(seen.every((r) => r.includes('bitcoincash:'))).toBe(true);
    expect(seen.some((r) => /details=txs&page=1&pageSize=\d+/.test(r))).toBe(true);
  });

  it('takes the fee rate from estimatefee, per kB, floored', async () => {
    const created = await s.t.request('POST', `/multi_sig/create/${coin}`, {
      number_of_required_signatures: 2,
      amount: 10_000_000,
      to: scenario.bob,
      redeem_scripts: [{ public_keys: scenarioKeys.cosigners.map((k) => k.publicKeyHex) }],
    });
    expect(created.status).toBe(200);
    const tx = decodeTxHex((created.json as { tx: string }).tx, undefined, params);
    const fee = 200_000_000n - tx.outputs.reduce((s, o) => s + o.value, 0n);
    // e.g. 0.0002 LTC/kB from Blockbook; 0.00001 BCH/kB is under the configured floor of 2000 units/kB
    const estimate = coinsToUnits(s.fixture.estimatefee.result, params.decimals);
    const perKb = estimate > 2_000n ? estimate : 2_000n;
    // the builder's estimate of the signed 2-of-3 spend with two outputs is 300-450 bytes
    expect(fee).toBeGreaterThanOrEqual((perKb * 300n) / 1000n);
    expect(fee).toBeLessThanOrEqual((perKb * 450n) / 1000n);
  });

  it('gives fee estimates per target from estimatefee, converted exactly to units per vbyte (extension)', async () => {
    const res = await s.t.request('GET', `/fee_estimates/${coin}`);
    expect(res.status).toBe(200);
    const perKb = coinsToUnits(s.fixture.estimatefee.result, params.decimals);
    const body = res.json as { backend: string; estimates: { blocks: number; fee_rate: number; units_per_kvbyte: number; source: string }[] };
    expect(body.backend).toBe('blockbook');
    expect(body.estimates).toEqual([1, 6, 24].map((blocks) => ({ blocks, fee_rate: Number((perKb + 999n) / 1000n), units_per_kvbyte: Number(perKb), source: 'node' })));
    expect(s.server.requests).toEqual(expect.arrayContaining(['GET /api/v2/estimatefee/1', 'GET /api/v2/estimatefee/24']));
  });

  it('/status names the backend and its heights', async () => {
    const res = await s.t.request('GET', '/status');
    expect((res.json as { coins: unknown[] }).coins).toEqual([
      expect.objectContaining({ coin, backend: 'blockbook', tip_height: fixtureTip(coin), indexed_height: fixtureTip(coin), error: null }),
    ]);
  });
});

describe('blockbook history across pages', () => {
  const coin = 'litecoin';
  const s = withBlockbook(coin, { pageSize: 2 });
  const { alice } = s.scenario;

  it('reads past page 1 (where the mempool took a place) without skipping or repeating a confirmed transaction', async () => {
    const res = await s.t.request('GET', `/address/history/${coin}/${alice}?limit=4`);
    expect(res.status).toBe(200);
    const { txs, total_txs } = res.json as { total_txs: number; txs: { amount: bigint; confirmations: number }[] };
    expect(total_txs).toBe(4);
    expect(txs.map((x) => [x.amount, x.confirmations])).toEqual([
      [10_000_000n, 0],
      [100_010_000n, 1],
      [25_000_000n, 2],
      [150_000_000n, 3],
    ]);
    // page 1 of 2 held the mempool tx and one confirmed; then pages of the one place left
    expect(s.server.requests.filter((r) => r.includes('details=txs')).map((r) => r.replace(/^.*\?/, ''))).toEqual([
      'details=txs&page=1&pageSize=2',
      'details=txs&page=2&pageSize=1',
      'details=txs&page=3&pageSize=1',
    ]);
  });
});

describe('blockbook failures', () => {
  const coin = 'litecoin';
  const s = withBlockbook(coin, { timeoutMs: 300, retries: 1, backoffMs: 10 });
  const { alice } = s.scenario;

  it('a silent Blockbook: 504 naming it once the deadline (and the retry) passed, not a hang', async () => {
    s.server.behaviour = 'silent';
    try {
      const res = await s.t.request('GET', `/address/balance/${coin}/${alice}`);
      expect(res.status).toBe(504);
      expect((res.json as { message: string }).message).toMatch(/^blockbook litecoin \(127\.0\.0\.1:\d+\) did not answer within 300 ms/);
    } finally {
      s.server.behaviour = 'normal';
    }
  });

  it('garbage instead of JSON: 502 naming it', async () => {
    s.server.behaviour = 'garbage';
    try {
      const res = await s.t.request('GET', `/address/history/${coin}/${alice}`);
      expect(res.status).toBe(502);
      expect((res.json as { message: string }).message).toMatch(/^blockbook litecoin .* answered with something that is not JSON/);
    } finally {
      s.server.behaviour = 'normal';
    }
  });

  it('JSON of the wrong shape: 502 naming it and the field', async () => {
    const saved = s.fixture.address[alice]!;
    s.fixture.address[alice] = { ...saved, balance: 12.5 } as unknown as typeof saved;
    try {
      const res = await s.t.request('GET', `/address/balance/${coin}/${alice}`);
      expect(res.status).toBe(502);
      expect((res.json as { message: string }).message).toMatch(/blockbook litecoin .* unexpected shape \(balance/);
    } finally {
      s.fixture.address[alice] = saved;
    }
  });

  it('a Blockbook that is down: 502 naming it, and /status says so', async () => {
    await s.server.close();
    const res = await s.t.request('GET', `/address/utxos/${coin}/${alice}`);
    expect(res.status).toBe(502);
    expect((res.json as { message: string }).message).toMatch(/^blockbook litecoin \(127\.0\.0\.1:\d+\) is unreachable/);
    const status = await s.t.request('GET', '/status');
    expect((status.json as { coins: { backend: string; error: string }[] }).coins[0]).toMatchObject({ backend: 'blockbook', error: expect.stringMatching(/unreachable/) });
  });
});
