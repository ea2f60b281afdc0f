// The v2 API end to end on a real litecoind -regtest node, the service configured as litecoin on
// regtest prefixes: what the index reports equals what the node holds, payments built by the
// service and signed here are accepted by the node, and every refusal broadcasts nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addressToScript, p2pkhAddressOfPublicKey, p2shAddressOfRedeemScript } from '../shared/coins/address.ts';
import { bytesToHex } from '../shared/coins/bytes.ts';
import { chainParams } from '../shared/coins/coin-table.ts';
import { multisigRedeemScript } from '../shared/coins/script.ts';
import { decodeTxHex, encodeTxHex } from '../shared/coins/tx.ts';
import type { Balance, HashesToSign, History, Utxos } from '../shared/api/schemas.ts';
import { startRegtestService, type RegtestService } from './test/regtest-service.ts';
import { testKey, type TestKey } from './test/keys.ts';

const params = chainParams('litecoin', 'regtest');
const COIN = 100_000_000n;

let t: RegtestService;
const alice = testKey('flows alice');
const bob = testKey('flows bob');
const cosigners = [testKey('flows c1'), testKey('flows c2'), testKey('flows c3')];
const aliceAddr = p2pkhAddressOfPublicKey(params, alice.publicKey);
const bobAddr = p2pkhAddressOfPublicKey(params, bob.publicKey);
const redeem = multisigRedeemScript(2, cosigners.map((k) => k.publicKey));
const msAddr = p2shAddressOfRedeemScript(params, redeem);
const operator = testKey('flows operator');
const operatorAddr = p2pkhAddressOfPublicKey(params, operator.publicKey);

const script = (address: string) => addressToScript(params, address);
const keyFor = (hex: string): TestKey => {
  const k = [alice, bob, ...cosigners].find((c) => c.publicKeyHex === hex);
  if (!k) throw new Error(`no test key ${hex}`);
  return k;
};

async function ok<T>(method: 'GET' | 'POST', url: string, body?: unknown): Promise<T> {
  const res = await t.request(method, url, body);
  if (res.status !== 200) throw new Error(`${method} ${url} -> ${res.status} ${JSON.stringify(res.json, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))}`);
  return res.json as T;
}

/** The node's own view of an address: scantxoutset over the confirmed UTXO set. */
async function nodeConfirmed(address: string): Promise<{ total: bigint; utxos: { txid: string; vout: number; amount: bigint; script: string }[] }> {
  const res = await t.node.rpc.call<{ total_amount: number; unspents: { txid: string; vout: number; amount: number; scriptPubKey: string }[] }>('scantxoutset', [
    'start',
    [`raw(${bytesToHex(script(address))})`],
  ]);
  const { coinsToUnits } = await import('./chains/utxo/rpc-client.ts');
  return {
    total: coinsToUnits(res.total_amount),
    utxos: res.unspents.map((u) => ({ txid: u.txid, vout: u.vout, amount: coinsToUnits(u.amount), script: u.scriptPubKey })),
  };
}

async function mempool(): Promise<string[]> {
  return t.node.rpc.call<string[]>('getrawmempool');
}

async function mineAndSync(blocks = 1): Promise<void> {
  await t.node.mine(blocks);
  await t.synced();
}

function signAll(created: HashesToSign, signers?: (publicKeyHex: string) => boolean) {
  return created.hashes
    .filter((h) => (signers ? signers(h.public_key) : true))
    .map((h) => ({ ...h, signature: keyFor(h.public_key).sign(h.hash_to_sign) }));
}

beforeAll(async () => {
  t = await startRegtestService(['litecoin'], { usdRate: 80 });
  await t.node.fundScript(script(aliceAddr), 2n * COIN);
  await t.node.fundScript(script(aliceAddr), 1n * COIN);
  await t.node.fundScript(script(msAddr), 3n * COIN);
  await mineAndSync();
  await t.node.fundScript(script(aliceAddr), COIN / 2n); // stays unconfirmed
  await t.synced();
});
afterAll(async () => t?.dispose());

describe('address queries equal the node', () => {
  it('balances, confirmed and unconfirmed, with USD', async () => {
    const node = await nodeConfirmed(aliceAddr);
    const b = await ok<Balance>('GET', `/address/balance/litecoin/${aliceAddr}`);
    expect(b.balance).toBe(node.total);
    expect(b.balance).toBe(3n * COIN);
    expect(b.unconfirmed_balance).toBe(COIN / 2n);
    expect(b.human_balance).toBe(3);
    expect(b.human_unconfirmed_balance).toBe(0.5);
    expect(b.usd_balance).toBe(240);

    const all = await ok<{ totals: Balance; addresses: (Balance & { address: string })[] }>('GET', `/address/balances/litecoin/${aliceAddr},${msAddr},${aliceAddr}`);
    expect(all.addresses.map((a) => [a.address, a.balance])).toEqual([
      [aliceAddr, 3n * COIN],
      [msAddr, (await nodeConfirmed(msAddr)).total],
    ]);
    expect(all.totals.balance).toBe(6n * COIN);
  });

  it('unspent outputs: the node\'s confirmed set plus the mempool output', async () => {
    const node = await nodeConfirmed(aliceAddr);
    const ours = await ok<Utxos>('GET', `/address/utxos/litecoin/${aliceAddr}`);
    const confirmed = ours.utxos.slice(0, node.utxos.length);
    const key = (u: { txid: string; vout: number }) => `${u.txid}:${u.vout}`;
    expect(confirmed.map(key).sort()).toEqual(node.utxos.map(key).sort());
    for (const u of confirmed) {
      const n = node.utxos.find((x) => key(x) === key(u))!;
      expect([u.amount, u.script_pub_key]).toEqual([n.amount, n.script]);
    }
    expect(ours.utxos).toHaveLength(node.utxos.length + 1);
    expect(ours.utxos.at(-1)!.amount).toBe(COIN / 2n);
  });

  it('history: one entry per transaction, newest first, with the node\'s confirmations', async () => {
    const h = await ok<History>('GET', `/address/history/litecoin/${aliceAddr}`);
    expect(h.total_txs).toBe(3);
    expect(h.txs[0]).toMatchObject({ confirmations: 0, is_deposit: true, amount: COIN / 2n, human_amount: 0.5, address: aliceAddr });
    for (const entry of h.txs) {
      const tx = await t.node.rpc.call<{ confirmations?: number; time?: number }>('getrawtransaction', [entry.txid, true]);
      expect(entry.confirmations).toBe(tx.confirmations ?? 0);
      if (tx.time !== undefined) expect(entry.time).toBe(tx.time);
    }
    const page = await ok<History>('GET', `/address/history/litecoin/${aliceAddr}?limit=1&offset=1`);
    expect(page.total_txs).toBe(3);
    expect(page.txs).toHaveLength(1);
    expect(page.txs[0]!.txid).toBe(h.txs[1]!.txid);
  });
});

describe('payments the node accepts', () => {
  it('single-sig: create -> sign -> sign_and_send -> mined, with operator fee and change', async () => {
    const before = await ok<Balance>('GET', `/address/balance/litecoin/${aliceAddr}`);
    const created = await ok<HashesToSign>(
      'POST',
      `/transaction/create/litecoin?from=${alice.publicKeyHex}&to=${bobAddr}&amount=${COIN}&fee_address=${operatorAddr}&fee_amount=10000&miners_fee=5000`,
    );
    const tx = decodeTxHex(created.tx);
    expect(tx.version).toBe(1);
    expect(tx.locktime).toBe(0);
    expect(tx.outputs.map((o) => [bytesToHex(o.script), o.value])).toEqual([
      [bytesToHex(script(bobAddr)), COIN],
      [bytesToHex(script(operatorAddr)), 10_000n],
      [bytesToHex(script(aliceAddr)), created.total_input_value - COIN - 10_000n - 5_000n],
    ]);
    // oldest first: the 2 LTC output covers it alone
    expect(created.total_input_value).toBe(2n * COIN);
    expect(created.hashes).toHaveLength(tx.inputs.length);

    const sent = await ok<{ status_code: number; message: string }>('POST', '/transaction/sign_and_send/litecoin', { tx: created.tx, signatures: signAll(created) });
    expect(sent.status_code).toBe(200);
    expect(await mempool()).toContain(sent.message);
    // broadcasting the same transaction again answers the same txid
    const again = await ok<{ message: string }>('POST', '/transaction/sign_and_send/litecoin', { tx: created.tx, signatures: signAll(created) });
    expect(again.message).toBe(sent.message);

    await mineAndSync();
    const bobBalance = await ok<Balance>('GET', `/address/balance/litecoin/${bobAddr}`);
    expect(bobBalance.balance).toBe(COIN);
    const after = await ok<Balance>('GET', `/address/balance/litecoin/${aliceAddr}`);
    expect(after.balance + after.unconfirmed_balance).toBe(before.balance + before.unconfirmed_balance - COIN - 15_000n);
    expect(after.balance).toBe((await nodeConfirmed(aliceAddr)).total);
    const bobHistory = await ok<History>('GET', `/address/history/litecoin/${bobAddr}`);
    expect(bobHistory.txs[0]).toMatchObject({ txid: sent.message, is_deposit: true, amount: COIN, confirmations: 1 });
    const aliceHistory = await ok<History>('GET', `/address/history/litecoin/${aliceAddr}`);
    expect(aliceHistory.txs.find((e) => e.txid === sent.message)).toMatchObject({ is_deposit: false, amount: COIN + 15_000n });
  });

  it('multisig 2-of-3: create -> two co-signers sign -> sign_and_send -> mined', async () => {
    const body = {
      number_of_required_signatures: 2,
      amount: Number(COIN),
      to: bobAddr,
      miners_fee: 20_000,
      redeem_scripts: [{ public_keys: cosigners.map((k) => k.publicKeyHex) }],
    };
    const created = await ok<HashesToSign>('POST', '/multi_sig/create/litecoin', body);
    const tx = decodeTxHex(created.tx);
    expect(bytesToHex(tx.inputs[0]!.scriptSig)).toBe(bytesToHex(redeem));
    // one hash per (input, key of its redeem script), all equal per input
    expect(created.hashes.map((h) => h.public_key)).toEqual(cosigners.map((k) => k.publicKeyHex));
    expect(new Set(created.hashes.map((h) => h.hash_to_sign)).size).toBe(1);
    expect(tx.outputs.map((o) => bytesToHex(o.script))).toEqual([bytesToHex(script(bobAddr)), bytesToHex(script(msAddr))]);

    const two = signAll(created, (pk) => pk !== cosigners[1]!.publicKeyHex);
    const sent = await ok<{ message: string }>('POST', '/multi_sig/sign_and_send/litecoin', { tx: created.tx, signatures: two });
    expect(await mempool()).toContain(sent.message);
    await mineAndSync();
    expect((await ok<Balance>('GET', `/address/balance/litecoin/${msAddr}`)).balance).toBe(3n * COIN - COIN - 20_000n);
    expect((await ok<Balance>('GET', `/address/balance/litecoin/${msAddr}`)).balance).toBe((await nodeConfirmed(msAddr)).total);
  });

  it('send_raw broadcasts a transaction the node\'s wallet signed', async () => {
    const raw = await t.node.walletRpc.call<string>('createrawtransaction', [[], { [bobAddr]: 0.25 }]);
    const funded = await t.node.walletRpc.call<{ hex: string }>('fundrawtransaction', [raw]);
    const signed = await t.node.walletRpc.call<{ hex: string; complete: boolean }>('signrawtransactionwithwallet', [funded.hex]);
    const sent = await ok<{ status_code: number; message: string }>('POST', `/transaction/send_raw/litecoin?rawtx=${signed.hex}`);
    expect(sent.status_code).toBe(200);
    expect(await mempool()).toContain(sent.message);
    await t.synced();
    expect((await ok<Balance>('GET', `/address/balance/litecoin/${bobAddr}`)).unconfirmed_balance).toBe(COIN / 4n);
  });

  it('drops the operator fee below dust and gives change below dust to the miners', async () => {
    await t.node.fundScript(script(aliceAddr), 1_000_000n);
    await mineAndSync();
    const utxos = (await ok<Utxos>('GET', `/address/utxos/litecoin/${aliceAddr}`)).utxos;
    const total = utxos.reduce((s, u) => s + u.amount, 0n);
    const created = await ok<HashesToSign>(
      'POST',
      `/transaction/create/litecoin?from=${alice.publicKeyHex}&to=${bobAddr}&amount=${total - 5_000n - 5_000n}&fee_address=${operatorAddr}&fee_amount=5459&miners_fee=5000`,
    );
    const tx = decodeTxHex(created.tx);
    // litecoin's dust limit is 5460: no fee output for 5459, and the change of 5000 goes to the miners
    expect(tx.outputs).toHaveLength(1);
    expect(created.total_input_value).toBe(total);
  });

  it('refuses a payment below the dust limit before the node has to', async () => {
    const res = await t.request('POST', `/transaction/create/litecoin?from=${alice.publicKeyHex}&to=${bobAddr}&amount=5459&miners_fee=5000`);
    expect(res.status).toBe(400);
    // In the coin's unit with its ticker, as the fee refusals are (not "5459 ... of 5460").
    expect((res.json as { message: string }).message).toBe('amount 0.00005459 LTC (regtest) is below the dust limit of 0.0000546 LTC (regtest): the network would not relay the output');
  });
});

describe('refusals: a clear message and nothing broadcast', () => {
  let created: HashesToSign;
  beforeAll(async () => {
    await t.node.fundScript(script(msAddr), COIN);
    await mineAndSync();
    created = await ok<HashesToSign>('POST', '/multi_sig/create/litecoin', {
      number_of_required_signatures: 2,
      amount: 10_000_000,
      to: bobAddr,
      miners_fee: 20_000,
      redeem_scripts: [{ public_keys: cosigners.map((k) => k.publicKeyHex) }],
    });
  });

  async function refused(signatures: unknown, tx = created.tx) {
    const poolBefore = await mempool();
    const res = await t.request('POST', '/multi_sig/sign_and_send/litecoin', { tx, signatures });
    expect(await mempool()).toEqual(poolBefore);
    return res as { status: number; json: { status_code: number; message: string } };
  }

  it('a signature from the wrong key', async () => {
    const sigs = signAll(created).slice(0, 2);
    sigs[0] = { ...sigs[0]!, signature: bob.sign(sigs[0]!.hash_to_sign) };
    const res = await refused(sigs);
    expect(res.status).toBe(400);
    expect(res.json.status_code).toBe(400);
    expect(res.json.message).toMatch(new RegExp(`input 0, public key ${cosigners[0]!.publicKeyHex}: the signature does not verify`));
  });

  it('a signature over another hash', async () => {
    const sigs = signAll(created).slice(0, 2);
    sigs[1] = { ...sigs[1]!, signature: cosigners[1]!.sign('11'.repeat(32)) };
    const res = await refused(sigs);
    expect(res.status).toBe(400);
    expect(res.json.message).toMatch(/does not verify/);
  });

  it('a tampered transaction', async () => {
    const tx = decodeTxHex(created.tx);
    tx.outputs[0]!.value += 1_000_000n;
    const res = await refused(signAll(created).slice(0, 2), encodeTxHex(tx));
    expect(res.status).toBe(400);
    expect(res.json.message).toMatch(/altered/);
  });

  it('one signature short', async () => {
    const res = await refused(signAll(created).slice(0, 1));
    expect(res.status).toBe(400);
    expect(res.json.message).toMatch(/input 0: 1 valid signature\(s\) of the 2 required/);
  });

  it('a key that is not a co-signer of the input', async () => {
    const sigs = [...signAll(created).slice(0, 1), { ...created.hashes[0]!, public_key: bob.publicKeyHex, signature: bob.sign(created.hashes[0]!.hash_to_sign) }];
    const res = await refused(sigs);
    expect(res.status).toBe(400);
    expect(res.json.message).toMatch(/not one of the keys that can sign input 0/);
  });

  it('insufficient funds says what is available and needed', async () => {
    const res = await t.request('POST', `/transaction/create/litecoin?from=${bob.publicKeyHex}&to=${aliceAddr}&amount=${1000n * COIN}&miners_fee=1000`);
    expect(res.status).toBe(400);
    expect((res.json as { message: string }).message).toMatch(/insufficient funds: available \d+ .* needed 100000001000/);
  });

  it('a node rejection is a 4xx with the node\'s reason', async () => {
    // a well-formed transaction spending an output that does not exist
    const raw = await t.node.rpc.call<string>('createrawtransaction', [[{ txid: 'ab'.repeat(32), vout: 0 }], { [bobAddr]: 0.1 }]);
    const poolBefore = await mempool();
    const res = await t.request('POST', `/transaction/send_raw/litecoin?rawtx=${raw}`);
    expect(await mempool()).toEqual(poolBefore);
    expect(res.status).toBe(422);
    expect((res.json as { status_code: number; message: string }).message).toMatch(/rejected the transaction: .*(missing|inputs)/i);
  });
});

// Reorganisations through the API run in both index modes: reorg.regtest.test.ts.
