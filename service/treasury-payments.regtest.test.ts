// The treasury extensions of endpoints 6 and 9 over HTTP, on litecoind -regtest (docs/api-decisions.md,
// section 8): a 50-recipient batch built, signed, broadcast and confirmed; coin control spending
// exactly the outputs chosen and refusing each bad one with its reason; fee_rate against the node's
// own vsize; BIP125 replaceable payments replaced by create (inputs given) and refused when the
// replacement pays no more, nothing broadcast; fee estimates on regtest (the fallback path).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { p2pkhAddressOfPublicKey, scriptToAddress } from '../shared/coins/address.ts';
import { hash160 } from '../shared/coins/hash.ts';
import { multisigScripts } from '../shared/coins/multisig-script.ts';
import { p2pkhScript } from '../shared/coins/script.ts';
import { decodeTx, type BitcoinTx } from '../shared/coins/tx.ts';
import { bytesToHex } from '../shared/coins/bytes.ts';
import { coinAmount } from '../shared/coins/units.ts';
import type { FeeEstimates, HashesToSign, SendStatus } from '../shared/api/schemas.ts';
import { coinsToUnits } from './chains/utxo/rpc-client.ts';
import { countBroadcasts, startRegtestService, type RegtestService } from './test/regtest-service.ts';
import { testKey, type TestKey } from './test/keys.ts';

// The same payments over the full index in SQLite and in LevelDB (which reads the spent outputs'
// scripts and amounts from the node: coin control, replacement fees, sign and send).
describe.each(['sqlite', 'level'] as const)('treasury payments, index in %s', (store) => {
  const COIN = 100_000_000n;
  let t: RegtestService;
  let broadcasts: () => number;

  beforeAll(async () => {
    // Litecoin Core 0.21 signals BIP125 but replaces nothing unless told: -mempoolreplacement defaults to 0.
    t = await startRegtestService(['litecoin', 'bitcoin_cash'], { node: { extraArgs: ['-mempoolreplacement=1'] }, levelIndex: store === 'level' });
    broadcasts = countBroadcasts(t.backend('litecoin'));
  }, 120_000);
  afterAll(async () => t?.dispose());

  const params = () => t.backend('litecoin').params;
  const p2pkh = (k: TestKey) => p2pkhScript(hash160(k.publicKey));

  async function call<T>(method: 'GET' | 'POST', url: string, body?: unknown): Promise<{ status: number; json: T }> {
    const res = await t.request(method, url, body);
    return { status: res.status, json: res.json as T };
  }
  async function ok<T>(method: 'GET' | 'POST', url: string, body?: unknown): Promise<T> {
    const res = await call<T>(method, url, body);
    if (res.status !== 200) throw new Error(`${method} ${url}: ${res.status} ${JSON.stringify(res.json)}`);
    return res.json;
  }
  async function refused(method: 'GET' | 'POST', url: string, body: unknown, status: number, message: RegExp): Promise<string> {
    const res = await call<{ message: string }>(method, url, body);
    expect(res.status, JSON.stringify(res.json)).toBe(status);
    expect(res.json.message).toMatch(message);
    return res.json.message;
  }

  function signedBy(created: HashesToSign, keys: readonly TestKey[]) {
    return {
      tx: created.tx,
      signatures: created.hashes
        .filter((h) => keys.some((k) => k.publicKeyHex === h.public_key))
        .map((h) => ({ ...h, signature: keys.find((k) => k.publicKeyHex === h.public_key)!.sign(h.hash_to_sign) })),
    };
  }
  /** Endpoint 6 from one key's P2PKH address; the treasury fields go in the body. */
  const createFrom = (k: TestKey) => `/transaction/create/litecoin?from=${k.publicKeyHex}`;
  const send = async (created: HashesToSign, keys: readonly TestKey[]) => (await ok<SendStatus>('POST', '/transaction/sign_and_send/litecoin', signedBy(created, keys))).message;

  interface NodeTx {
    txid: string;
    vsize: number;
    confirmations?: number;
    vin: { txid: string; vout: number; sequence: number }[];
    vout: { value: number; n: number; scriptPubKey: { hex: string } }[];
  }
  const nodeTx = (txid: string) => t.node.rpc.call<NodeTx>('getrawtransaction', [txid, true]);
  const mempool = () => t.node.rpc.call<string[]>('getrawmempool', []);
  /** The fee a transaction pays, from the node's own view of its inputs. */
  async function feeOf(tx: NodeTx): Promise<bigint> {
    let fee = 0n;
    for (const i of tx.vin) fee += coinsToUnits((await nodeTx(i.txid)).vout[i.vout]!.value);
    for (const o of tx.vout) fee -= coinsToUnits(o.value);
    return fee;
  }
  async function funded(k: TestKey, amounts: readonly bigint[], mine = true): Promise<{ txid: string; vout: number }[]> {
    const outs: { txid: string; vout: number }[] = [];
    for (const amount of amounts) {
      const txid = await t.node.fundScript(p2pkh(k), amount);
      const tx = await nodeTx(txid);
      outs.push({ txid, vout: tx.vout.find((o) => o.scriptPubKey.hex === bytesToHex(p2pkh(k)))!.n });
    }
    if (mine) await t.node.mine(1);
    await t.synced();
    return outs;
  }

  describe('a batch of 50 recipients at a fee rate', () => {
    it('is built, signed, broadcast and confirmed; the node decodes the 50 outputs; fee / real vsize is the rate', async () => {
      const payer = testKey('treasury batch payer');
      await funded(payer, [2n * COIN]);
      const recipients = await Promise.all(Array.from({ length: 50 }, () => t.node.newAddress('bech32')));
      const outputs = recipients.map((to, i) => ({ to, amount: 100_000 + i * 1_000 }));
      const rate = 7n;
      const created = await ok<HashesToSign>('POST', createFrom(payer), { outputs, fee_rate: Number(rate) });
      expect(created.replaces).toEqual([]);
      expect(created.miners_fee).toBe(rate * BigInt(created.vsize!));
      const txid = await send(created, [payer]);
      await t.node.mine(1);
      const tx = await nodeTx(txid);
      expect(tx.confirmations).toBe(1);
      // 50 recipients in the order given, then change
      expect(tx.vout.slice(0, 50).map((o) => [scriptToAddress(params(), Uint8Array.from(Buffer.from(o.scriptPubKey.hex, 'hex'))), coinsToUnits(o.value)])).toEqual(
        outputs.map((o) => [o.to, BigInt(o.amount)]),
      );
      expect(tx.vout).toHaveLength(51);
      // fee_rate x the estimate; the real transaction is smaller only by the signatures' slack
      // (one P2PKH input: a byte for the scriptSig estimate, one or two for a signature shorter than 73 bytes).
      const fee = await feeOf(tx);
      expect(fee).toBe(created.miners_fee);
      expect(tx.vsize).toBeLessThanOrEqual(created.vsize!);
      expect(created.vsize! - tx.vsize).toBeLessThanOrEqual(3);
      expect(fee >= rate * BigInt(tx.vsize) && fee <= rate * BigInt(tx.vsize + 3)).toBe(true);
      expect(tx.vin.map((i) => i.sequence)).toEqual([0xffffffff]); // not replaceable unless asked
    });

    it('multi_sig/create takes outputs and fee_rate too', async () => {
      const keys = [testKey('treasury ms 1'), testKey('treasury ms 2'), testKey('treasury ms 3')];
      const scripts = multisigScripts(params(), 2, keys.map((k) => k.publicKey), { scriptType: 'p2wsh', sortKeys: true });
      await t.node.fundScript(scripts.scriptPubKey, COIN);
      await t.node.mine(1);
      await t.synced();
      const to = await Promise.all([t.node.newAddress('bech32'), t.node.newAddress('legacy')]);
      const created = await ok<HashesToSign>('POST', '/multi_sig/create/litecoin', {
        number_of_required_signatures: 2,
        redeem_scripts: [{ public_keys: keys.map((k) => k.publicKeyHex), script_type: 'p2wsh', sort_keys: true }],
        outputs: [{ to: to[0], amount: 10_000_000 }, { to: to[1], amount: 20_000_000 }],
        fee_rate: 3,
        replaceable: true,
      });
      const txid = (await ok<SendStatus>('POST', '/multi_sig/sign_and_send/litecoin', signedBy(created, keys.slice(0, 2)))).message;
      const tx = await nodeTx(txid);
      expect(tx.vout.slice(0, 2).map((o) => coinsToUnits(o.value))).toEqual([10_000_000n, 20_000_000n]);
      expect(tx.vin.map((i) => i.sequence)).toEqual([0xfffffffd]);
      const fee = await feeOf(tx);
      expect(fee).toBe(3n * BigInt(created.vsize!));
      // segwit: a quarter vbyte per shorter signature
      expect(created.vsize! - tx.vsize).toBeLessThanOrEqual(1);
      await t.node.mine(1);
      await t.synced();
    });
  });

  describe('coin control', () => {
    it('spends exactly the outputs chosen, in either form', async () => {
      const payer = testKey('treasury coin control');
      const outs = await funded(payer, [10_000_000n, 20_000_000n, 30_000_000n]);
      const to = await t.node.newAddress('bech32');
      const created = await ok<HashesToSign>('POST', createFrom(payer), {
        outputs: [{ to, amount: 25_000_000 }],
        inputs: [`${outs[2]!.txid}:${outs[2]!.vout}`, { txid: outs[0]!.txid, vout: outs[0]!.vout }],
      });
      const tx = decodeTx(Uint8Array.from(Buffer.from(created.tx, 'hex'))) as BitcoinTx;
      expect(tx.inputs.map((i) => `${bytesToHex(i.prevTxid)}:${i.vout}`).sort()).toEqual(
        [`${outs[2]!.txid}:${outs[2]!.vout}`, `${outs[0]!.txid}:${outs[0]!.vout}`].sort(),
      );
      expect(created.total_input_value).toBe(40_000_000n);
      const txid = await send(created, [payer]);
      expect((await nodeTx(txid)).vin.map((i) => `${i.txid}:${i.vout}`).sort()).toEqual([`${outs[2]!.txid}:${outs[2]!.vout}`, `${outs[0]!.txid}:${outs[0]!.vout}`].sort());
      await t.node.mine(1);
      await t.synced();
    });

    it('refuses each bad input with its reason, and bad combinations of fields', async () => {
      const payer = testKey('treasury refusals');
      const other = testKey('treasury someone else');
      const [mine] = await funded(payer, [50_000_000n]);
      const [theirs] = await funded(other, [50_000_000n]);
      const to = await t.node.newAddress('bech32');
      const url = createFrom(payer);
      const pay = (inputs: unknown[], extra: object = {}) => ({ outputs: [{ to, amount: 1_000_000 }], inputs, ...extra });
      const before = broadcasts();

      await refused('POST', url, pay([`${theirs!.txid}:${theirs!.vout}`]), 400, /^inputs\[0\]: .* is not this wallet's: it does not pay any of the source scripts/);
      await refused('POST', url, pay([`${mine!.txid}:${mine!.vout}`, `${'ab'.repeat(32)}:0`]), 400, /^inputs\[1\]: abab.*:0 is unknown/);
      await refused('POST', url, pay([`${mine!.txid}:${mine!.vout}`, `${mine!.txid}:${mine!.vout}`]), 400, /inputs\[1\]: .* is listed twice \(also inputs\[0\]\)/);
      await refused('POST', url, pay(['nope']), 400, /inputs\.0.*an input is "txid:vout"/);
      await refused('POST', url, { outputs: [{ to, amount: 60_000_000 }], inputs: [`${mine!.txid}:${mine!.vout}`] }, 400, /insufficient funds: the inputs given hold 50000000 .*needed/);

      // spent and confirmed
      const spent = await ok<HashesToSign>('POST', url, pay([`${mine!.txid}:${mine!.vout}`]));
      await send(spent, [payer]);
      await t.node.mine(1);
      await t.synced();
      await refused('POST', url, pay([`${mine!.txid}:${mine!.vout}`]), 409, /inputs\[0\]: .* is already spent/);

      // unconfirmed, when the caller forbids it
      const [pending] = await funded(payer, [30_000_000n], false);
      await refused('POST', url, pay([`${pending!.txid}:${pending!.vout}`], { allow_unconfirmed: false }), 400, /inputs\[0\]: .* is unconfirmed and allow_unconfirmed is false/);
      await ok('POST', url, pay([`${pending!.txid}:${pending!.vout}`])); // allowed by default
      await t.node.mine(1);
      await t.synced();

      // fields that exclude each other; a row's error names its index; limits
      await refused('POST', `${url}&to=${to}&amount=1000000`, { outputs: [{ to, amount: 1_000_000 }] }, 400, /either to and amount, or outputs, not both/);
      await refused('POST', url, { fee_rate: 5 }, 400, /to and amount are required \(or outputs/);
      await refused('POST', `${url}&to=${to}&amount=1000000&miners_fee=1000`, { fee_rate: 5 }, 400, /either miners_fee .* or fee_rate .* not both/);
      await refused('POST', url, { outputs: [{ to, amount: 1_000_000 }, { to: 'not-an-address', amount: 1_000_000 }] }, 400, /outputs\[1\]\.to/);
      await refused('POST', url, { outputs: [{ to, amount: 1_000_000 }, { to, amount: 10 }] }, 400, /outputs\[1\]: amount 0\.0000001 LTC \(regtest\) is below the dust limit of 0\.0000546 LTC \(regtest\): the network would not relay the output/);
      await refused('POST', url, { outputs: Array.from({ length: 1001 }, () => ({ to, amount: 1_000_000 })) }, 400, /at most 1000 outputs/);
      expect(broadcasts()).toBe(before + 1); // only the payment that spent `mine`
    });
  });

  describe('replaceable payments (BIP125)', () => {
    it('a 1 unit/vbyte payment replaced by create at 20; one paying no more refused with both figures; nothing broadcast', async () => {
      const payer = testKey('treasury rbf payer');
      const [coin] = await funded(payer, [COIN]);
      const to = await t.node.newAddress('bech32');
      const outpoint = `${coin!.txid}:${coin!.vout}`;
      const url = createFrom(payer);

      const original = await ok<HashesToSign>('POST', url, { outputs: [{ to, amount: 50_000_000 }], fee_rate: 1, replaceable: true });
      const originalTxid = await send(original, [payer]);
      expect((await nodeTx(originalTxid)).vin.map((i) => i.sequence)).toEqual([0xfffffffd]);
      await t.synced();
      expect(await mempool()).toContain(originalTxid);

      // paying no more: refused at create, with both figures
      const message = await refused('POST', url, { outputs: [{ to, amount: 50_000_000 }], inputs: [outpoint], fee_rate: 1 }, 409, /higher absolute fee and a higher fee rate/);
      expect(message).toContain(`pays ${coinAmount(params(), BigInt(original.miners_fee!))} in total`);
      expect(message).toMatch(/this one pays 0\.\d+ LTC \(regtest\) at 1\.\d\d litoshi\/vB/);

      // two candidates above it; the better one goes first
      const five = await ok<HashesToSign>('POST', url, { outputs: [{ to, amount: 50_000_000 }], inputs: [outpoint], fee_rate: 5 });
      // (itself replaceable, so that what decides below is the fee, not its signalling)
      const twenty = await ok<HashesToSign>('POST', url, { outputs: [{ to, amount: 50_000_000 }], inputs: [outpoint], fee_rate: 20, replaceable: true });
      expect(twenty.replaces).toEqual([originalTxid]);
      expect(five.replaces).toEqual([originalTxid]);
      const replacement = await send(twenty, [payer]);
      const pool = await mempool();
      expect(pool).toContain(replacement);
      expect(pool).not.toContain(originalTxid);
      await t.synced();

      // the 5 unit/vbyte one now conflicts with the 20 unit/vbyte one: refused before broadcasting
      const before = broadcasts();
      const late = await call<{ message: string }>('POST', '/transaction/sign_and_send/litecoin', signedBy(five, [payer]));
      expect(late.status).toBe(409);
      expect(late.json.message).toContain(`${replacement} pays ${coinAmount(params(), BigInt(twenty.miners_fee!))} in total`);
      expect(late.json.message).toMatch(/this one pays 0\.\d+ LTC \(regtest\) at 5\.\d\d litoshi\/vB/);
      expect(broadcasts()).toBe(before);
      expect(await mempool()).toContain(replacement);

      await t.node.mine(1);
      expect((await nodeTx(replacement)).confirmations).toBe(1);
      await t.synced();
    });

    it('a mempool payment that does not signal is not replaced', async () => {
      const payer = testKey('treasury final payer');
      const [coin] = await funded(payer, [COIN]);
      const to = await t.node.newAddress('bech32');
      const url = createFrom(payer);
      const first = await ok<HashesToSign>('POST', url, { outputs: [{ to, amount: 50_000_000 }], fee_rate: 1 });
      const txid = await send(first, [payer]);
      await t.synced();
      await refused('POST', url, { outputs: [{ to, amount: 50_000_000 }], inputs: [`${coin!.txid}:${coin!.vout}`], fee_rate: 30 }, 409, new RegExp(`spent by mempool transaction ${txid}, which does not signal replaceability`));
      await t.node.mine(1);
      await t.synced();
    });

    it('a coin whose nodes do not relay replacements refuses replaceable', async () => {
      const k = testKey('treasury bch');
      const to = p2pkhAddressOfPublicKey(t.backend('bitcoin_cash').params, testKey('treasury bch to').publicKey);
      await refused('POST', `/transaction/create/bitcoin_cash?from=${k.publicKeyHex}`, { outputs: [{ to, amount: 1_000_000 }], replaceable: true }, 400, /replaceable is refused on bitcoin_cash: its nodes do not relay replacements/);
    });
  });

  describe('fee estimates', () => {
    it('on regtest the node has none: every target gives the fallback rate, so named', async () => {
      const estimates = await ok<FeeEstimates>('GET', '/fee_estimates/litecoin');
      expect(estimates).toEqual({
        coin: 'litecoin',
        backend: 'node-rpc',
        fallback_fee_rate: 10,
        estimates: [1, 6, 24].map((blocks) => ({ blocks, fee_rate: 10, units_per_kvbyte: 10_000, source: 'fallback' })),
      });
    });
  });
});
