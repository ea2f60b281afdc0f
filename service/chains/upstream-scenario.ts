// The API flows every UTXO upstream backend must serve, run through the service's HTTP API on the
// fixture chain of blockbook/fixtures/generate.ts: alice was paid twice, spent once and has a
// payment in the mempool; a 2-of-3 multisig holds 2 coins. Test-only.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { addressToScript } from '../../shared/coins/address.ts';
import { bytesToHex, hexToBytes } from '../../shared/coins/bytes.ts';
import { chainParams, consensusBranchId, type UtxoCoinName } from '../../shared/coins/coin-table.ts';
import { inspectTransaction } from '../../shared/coins/inspect.ts';
import { decodeTxHex, txidHex } from '../../shared/coins/tx.ts';
import type { Balance, Balances, HashesToSign, History, Utxos } from '../../shared/api/schemas.ts';
import { startTestService, type TestService } from '../test/http-service.ts';
import { bitcoinCashScriptErrors } from '../test/oracles.ts';
import { fixtureTip, scenarioKeys } from './blockbook/fixtures/generate.ts';

export interface UpstreamUnderTest {
  coin: UtxoCoinName;
  t: TestService;
  scenario: { alice: string; bob: string; multisig: string; stranger: string };
  /** Raw transactions the upstream received. */
  broadcasts(): string[];
  /** Makes the upstream refuse broadcasts with this reason (null: accept again). */
  refuseBroadcasts(reason: string | null): void;
}

const keys = [scenarioKeys.alice, scenarioKeys.bob, scenarioKeys.stranger, ...scenarioKeys.cosigners];
const keyFor = (hex: string) => keys.find((k) => k.publicKeyHex === hex)!;

function signAll(created: HashesToSign, signers: (publicKeyHex: string) => boolean) {
  return created.hashes.filter((h) => signers(h.public_key)).map((h) => ({ ...h, signature: keyFor(h.public_key).sign(h.hash_to_sign) }));
}

async function ok<T>(u: UpstreamUnderTest, method: 'GET' | 'POST', url: string, body?: unknown): Promise<T> {
  const res = await u.t.request(method, url, body);
  if (res.status !== 200) throw new Error(`${method} ${url} -> ${res.status} ${JSON.stringify(res.json, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))}`);
  return res.json as T;
}

/** Registers the flows as tests; `get` is called inside each test (after beforeAll). */
export function utxoUpstreamFlows(get: () => UpstreamUnderTest): void {
  it('balance and balances: confirmed and mempool amounts per address, and totals', async () => {
    const u = get();
    const { alice, multisig } = u.scenario;
    const b = await ok<Balance>(u, 'GET', `/address/balance/${u.coin}/${alice}`);
    expect(b).toMatchObject({ balance: 74_990_000n, unconfirmed_balance: 10_000_000n, human_balance: 0.7499, human_unconfirmed_balance: 0.1 });
    const all = await ok<Balances>(u, 'GET', `/v2/address/balances/${u.coin}/${alice},${multisig}`);
    expect(all.totals).toMatchObject({ balance: 274_990_000n, unconfirmed_balance: 10_000_000n });
    expect(all.addresses.map((a) => [a.address, a.balance])).toEqual([
      [alice, 74_990_000n],
      [multisig, 200_000_000n],
    ]);
  });

  it('history: mempool first, then newest first, with amounts, confirmations and paging', async () => {
    const u = get();
    const { alice, multisig } = u.scenario;
    const first = await ok<History>(u, 'GET', `/address/history/${u.coin}/${alice}?limit=2`);
    expect(first.total_txs).toBe(4);
    expect(first.txs.map((x) => [x.is_deposit, x.amount, x.confirmations])).toEqual([
      [true, 10_000_000n, 0],
      [false, 100_010_000n, 1],
    ]);
    const second = await ok<History>(u, 'GET', `/address/history/${u.coin}/${alice}?limit=2&offset=2`);
    expect(second.total_txs).toBe(4);
    expect(second.txs.map((x) => [x.is_deposit, x.amount, x.confirmations, x.address])).toEqual([
      [true, 25_000_000n, 2, alice],
      [true, 150_000_000n, 3, alice],
    ]);
    expect(second.txs[0]!.time).toBe(1_730_000_150);
    const both = await ok<History>(u, 'GET', `/address/history/${u.coin}/${alice},${multisig}?limit=10`);
    expect(both.total_txs).toBe(5);
    expect(both.txs.filter((x) => x.address === multisig).map((x) => [x.amount, x.confirmations])).toEqual([[200_000_000n, 3]]);
    // The funding transaction paid both: one row per address, same txid
    expect(both.txs.filter((x) => x.txid === second.txs[1]!.txid).map((x) => x.address).sort()).toEqual([alice, multisig].sort());
  });

  it('utxos: oldest first, mempool last, with their scripts', async () => {
    const u = get();
    const { alice } = u.scenario;
    const { utxos } = await ok<Utxos>(u, 'GET', `/address/utxos/${u.coin}/${alice}`);
    expect(utxos.map((x) => x.amount)).toEqual([25_000_000n, 49_990_000n, 10_000_000n]);
    const script = bytesToHex(addressToScript(chainParams(u.coin, 'mainnet'), alice));
    expect(utxos.every((x) => x.script_pub_key === script)).toBe(true);
  });

  it('transaction/create: hashes to sign for a single-signature payment from a public key', async () => {
    const u = get();
    const created = await ok<HashesToSign>(u, 'POST', `/transaction/create/${u.coin}?from=${scenarioKeys.alice.publicKeyHex}&to=${u.scenario.bob}&amount=30000000`);
    expect(created.hashes.length).toBeGreaterThan(0);
    expect(created.total_input_value).toBeGreaterThanOrEqual(30_000_000n);
  });

  it('multisig: create with the fee from the upstream, sign 2 of 3, sign_and_send broadcasts through it', async () => {
    const u = get();
    const body = { number_of_required_signatures: 2, amount: 50_000_000, to: u.scenario.bob, redeem_scripts: [{ public_keys: scenarioKeys.cosigners.map((k) => k.publicKeyHex) }] };
    const created = await ok<HashesToSign>(u, 'POST', `/multi_sig/create/${u.coin}`, body);
    expect(created.total_input_value).toBe(200_000_000n);
    const params = chainParams(u.coin, 'mainnet');
    const tx = decodeTxHex(created.tx, undefined, params);
    const fee = 200_000_000n - tx.outputs.reduce((t, o) => t + o.value, 0n);
    expect(fee).toBeGreaterThan(0n);
    const before = u.broadcasts().length;

    // A signature from the wrong key is refused and nothing reaches the upstream.
    const wrong = signAll(created, (pk) => pk !== scenarioKeys.cosigners[2]!.publicKeyHex);
    wrong[0] = { ...wrong[0]!, signature: scenarioKeys.bob.sign(wrong[0]!.hash_to_sign) };
    const refused = await u.t.request('POST', `/multi_sig/sign_and_send/${u.coin}`, { tx: created.tx, signatures: wrong });
    expect(refused.status).toBe(400);
    expect(u.broadcasts().length).toBe(before);

    const sent = await ok<{ status_code: number; message: string }>(u, 'POST', `/multi_sig/sign_and_send/${u.coin}`, {
      tx: created.tx,
      signatures: signAll(created, (pk) => pk !== scenarioKeys.cosigners[1]!.publicKeyHex),
    });
    expect(sent.status_code).toBe(200);
    expect(u.broadcasts().length).toBe(before + 1);
    const broadcast = u.broadcasts().at(-1)!;
    expect(sent.message).toMatch(/^[0-9a-f]{64}$/);
    expect(sent.message).toBe(txidHex(decodeTxHex(broadcast, undefined, params)));
    // shared/coins recomputes the coin's digest (legacy, fork-id, ZIP-243, ZIP-244) with the amount
    // the upstream showed, and both signatures verify against it; where the digest commits to the
    // amount, another amount makes them fail.
    const spentAmount = (await ok<Utxos>(u, 'GET', `/address/utxos/${u.coin}/${u.scenario.multisig}`)).utxos[0]!.amount;
    expect(spentAmount).toBe(200_000_000n);
    const signed = inspectTransaction(params, hexToBytes(broadcast), { amounts: [spentAmount] });
    expect(signed.inputs.map((i) => [i.complete, i.validSignatures])).toEqual([[true, 2]]);
    const committing = params.sighashAlgorithm !== 'legacy' && params.sighashAlgorithm !== 'legacy-forkid';
    const otherAmount = inspectTransaction(params, hexToBytes(broadcast), { amounts: [spentAmount - 1n] });
    expect(otherAmount.inputs[0]!.complete).toBe(!committing);
    if (params.txFormat === 'zcash-v5') {
      // A v5 transaction names the upgrade of the block it is meant for: the one after the tip.
      expect(signed.zcash?.consensusBranchId).toBe(consensusBranchId(params, fixtureTip(u.coin) + 1));
    }
    if (u.coin === 'bitcoin_cash') {
      // Bitcoin Cash's own interpreter checks the signatures against the amount from the upstream.
      const spent = [{ script: addressToScript(chainParams(u.coin, 'mainnet'), u.scenario.multisig), amount: 200_000_000n }];
      expect(bitcoinCashScriptErrors(broadcast, spent)).toEqual([]);
    }
  });

  it('send_raw broadcasts through the upstream; a refusal is a 422 with its reason, a known tx counts as sent', async () => {
    const u = get();
    const { txs } = await ok<History>(u, 'GET', `/address/history/${u.coin}/${u.scenario.alice}?limit=1&offset=3`);
    const raw = await ok<{ hex: string }>(u, 'GET', `/transaction/raw/${u.coin}/${txs[0]!.txid}`);
    const sent = await ok<{ message: string }>(u, 'POST', `/transaction/send_raw/${u.coin}?rawtx=${raw.hex}`);
    expect(sent.message).toBe(txs[0]!.txid);
    expect(u.broadcasts().at(-1)).toBe(raw.hex);

    u.refuseBroadcasts('-26: mandatory-script-verify-flag-failed (Signature must be zero for failed CHECK(MULTI)SIG operation)');
    try {
      const refused = await u.t.request('POST', `/transaction/send_raw/${u.coin}?rawtx=${raw.hex}`);
      expect(refused.status).toBe(422);
      expect((refused.json as { message: string }).message).toMatch(/rejected the transaction: .*mandatory-script-verify-flag-failed/);
      u.refuseBroadcasts('-27: Transaction already in block chain');
      const known = await ok<{ message: string }>(u, 'POST', `/transaction/send_raw/${u.coin}?rawtx=${raw.hex}`);
      expect(known.message).toBe(txs[0]!.txid);
    } finally {
      u.refuseBroadcasts(null);
    }
  });

  it('raw transaction: bytes that hash to the txid; another transaction under that txid is refused (502); unknown is 404', async () => {
    const u = get();
    const liar = await u.t.request('GET', `/transaction/raw/${u.coin}/${'ee'.repeat(32)}`);
    expect(liar.status).toBe(502);
    expect((liar.json as { message: string }).message).toMatch(/another transaction/);
    const unknown = await u.t.request('GET', `/transaction/raw/${u.coin}/${'ab'.repeat(32)}`);
    expect(unknown.status).toBe(404);
  });
}

/** What every fixture upstream server (Blockbook, Electrum) keeps for the flows. */
export interface FixtureUpstreamServer {
  broadcasts: string[];
  refuseBroadcast: string | null;
  close(): Promise<void>;
}

export interface FixtureUpstream<F, S extends FixtureUpstreamServer> {
  fixture: F;
  scenario: UpstreamUnderTest['scenario'];
  /** Set in beforeAll. */
  server: S;
  /** Set in beforeAll. */
  t: TestService;
}

/**
 * A fixture upstream server and a service using it on mainnet, started and stopped around one
 * describe block; `backend` is the coin's backend configuration for that server.
 */
export function withFixtureUpstream<F, S extends FixtureUpstreamServer>(
  coin: UpstreamUnderTest['coin'],
  fixture: F,
  startServer: (fixture: F, txidOf: (hex: string) => string) => Promise<S>,
  backend: (server: S) => Record<string, unknown>,
): FixtureUpstream<F, S> {
  const params = chainParams(coin, 'mainnet');
  const s = { fixture, scenario: (fixture as unknown as { scenario: UpstreamUnderTest['scenario'] }).scenario } as FixtureUpstream<F, S>;
  beforeAll(async () => {
    s.server = await startServer(fixture, (hex) => txidHex(decodeTxHex(hex, undefined, params)));
    s.t = await startTestService({ coins: { [coin]: { network: 'mainnet', backend: backend(s.server) } } });
  });
  afterAll(async () => {
    await s.t?.dispose();
    await s.server?.close();
  });
  return s;
}

/** The flows against a fixture upstream (registered as tests). */
export function fixtureUpstreamFlows(coin: UpstreamUnderTest['coin'], s: FixtureUpstream<unknown, FixtureUpstreamServer>): void {
  utxoUpstreamFlows(() => ({
    coin,
    t: s.t,
    scenario: s.scenario,
    broadcasts: () => s.server.broadcasts,
    refuseBroadcasts: (reason) => {
      s.server.refuseBroadcast = reason;
    },
  }));
}
