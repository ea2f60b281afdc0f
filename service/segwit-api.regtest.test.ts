// The segwit extensions of endpoints 5, 9 and 10 over HTTP, on litecoind -regtest (docs/api-decisions.md,
// section 8): P2WSH and P2SH-P2WSH vaults funded, their balances, history and unspent outputs read
// from the service's own index, paid from through create and sign_and_send; a signature over another
// amount refused with nothing broadcast; the original API's answers unchanged without the fields.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scriptToAddress } from '../shared/coins/address.ts';
import { bytesToHex } from '../shared/coins/bytes.ts';
import { multisigInputHash } from '../shared/coins/assemble-multisig.ts';
import { multisigScripts, type MultisigScriptType } from '../shared/coins/multisig-script.ts';
import { decodeTx, txidHex, type BitcoinTx } from '../shared/coins/tx.ts';
import type { Balance, MultisigHashesToSign as HashesToSign, History, Utxos } from '../shared/api/schemas.ts';
import { countBroadcasts, startRegtestService, type RegtestService } from './test/regtest-service.ts';
import { testKey } from './test/keys.ts';

const COIN = 100_000_000n;
const keys = [testKey('segwit api k1'), testKey('segwit api k2'), testKey('segwit api k3')];
const pubkeys = keys.map((k) => k.publicKey);
let t: RegtestService;
let broadcasts: () => number;

beforeAll(async () => {
  t = await startRegtestService(['litecoin', 'bitcoin_cash']);
  broadcasts = countBroadcasts(t.backend('litecoin'));
}, 120_000);
afterAll(async () => t?.dispose());

async function ok<T>(method: 'GET' | 'POST', url: string, body?: unknown): Promise<T> {
  const res = await t.request(method, url, body);
  if (res.status !== 200) throw new Error(`${method} ${url}: ${res.status} ${JSON.stringify(res.json)}`);
  return res.json as T;
}

const params = () => t.backend('litecoin').params;
const signFor = (created: HashesToSign, signers: number[]) =>
  created.hashes
    .filter((h) => signers.some((s) => keys[s]!.publicKeyHex === h.public_key))
    .map((h) => ({ ...h, signature: keys.find((k) => k.publicKeyHex === h.public_key)!.sign(h.hash_to_sign) }));

describe.each(['p2wsh', 'p2sh-p2wsh'] as const)('a 2-of-3 %s vault with sorted keys', (scriptType: MultisigScriptType) => {
  it('is funded, read back, paid from; a signature over another amount is refused first', async () => {
    const scripts = multisigScripts(params(), 2, pubkeys, { scriptType, sortKeys: true });
    const address = scriptToAddress(params(), scripts.scriptPubKey)!;
    expect(address).toMatch(scriptType === 'p2wsh' ? /^rltc1q/ : /^Q/);
    const txid = await t.node.fundScript(scripts.scriptPubKey, COIN);
    await t.node.mine(1);
    await t.synced();

    expect((await ok<Balance>('GET', `/address/balance/litecoin/${address}`)).balance).toBe(COIN);
    const utxos = await ok<Utxos>('GET', `/address/utxos/litecoin/${address}`);
    expect(utxos.utxos.map((u) => [u.txid, u.amount, u.script_pub_key])).toEqual([[txid, COIN, bytesToHex(scripts.scriptPubKey)]]);
    expect((await ok<History>('GET', `/address/history/litecoin/${address}`)).txs.map((h) => [h.is_deposit, h.amount])).toEqual([[true, COIN]]);

    const payee = await t.node.newAddress('bech32');
    const created = await ok<HashesToSign>('POST', '/multi_sig/create/litecoin', {
      number_of_required_signatures: 2,
      amount: Number(COIN / 2n),
      to: payee,
      redeem_scripts: [{ public_keys: keys.map((k) => k.publicKeyHex), script_type: scriptType, sort_keys: true }],
    });
    // What each input spends, from the chain.
    expect(created.inputs).toEqual([
      { txid, vout: expect.any(Number), amount: COIN, script_type: scriptType, script: bytesToHex(scripts.multisigScript), script_pub_key: bytesToHex(scripts.scriptPubKey) },
    ]);
    const unsigned = decodeTx(Buffer.from(created.tx, 'hex')) as BitcoinTx;
    expect(unsigned.inputs[0]!.witness!.map(bytesToHex)).toEqual([bytesToHex(scripts.multisigScript)]);
    // Change back to the vault in its own type.
    expect(unsigned.outputs.map((o) => scriptToAddress(params(), o.script))).toEqual([payee, address]);

    // A co-signer fooled about the amount signs another BIP143 digest: refused, naming input and key.
    const spend = { scriptType, multisigScript: scripts.multisigScript, amount: COIN + 1n };
    const wrongHash = bytesToHex(multisigInputHash(params(), unsigned, 0, spend));
    const good = signFor(created, [0]);
    const bad = { input_index: 0, public_key: keys[1]!.publicKeyHex, hash_to_sign: '', signature: keys[1]!.sign(wrongHash) };
    const before = broadcasts();
    const refused = await t.request('POST', '/multi_sig/sign_and_send/litecoin', { tx: created.tx, signatures: [...good, bad] });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.json)).toContain(`input 0, public key ${keys[1]!.publicKeyHex}: the signature does not verify`);
    expect(broadcasts()).toBe(before);

    const sent = await ok<{ message: string }>('POST', '/multi_sig/sign_and_send/litecoin', { tx: created.tx, signatures: signFor(created, [0, 2]) });
    const decoded = await t.node.rpc.call<{ txid: string; vsize: number; vin: { txinwitness?: string[] }[] }>('getrawtransaction', [sent.message, true]);
    expect(decoded.txid).toBe(txidHex(unsigned));
    expect(decoded.vin[0]!.txinwitness).toHaveLength(4);
    expect(decoded.vin[0]!.txinwitness![3]).toBe(bytesToHex(scripts.multisigScript));
    await t.node.mine(1);
    await t.synced();
    expect((await ok<Balance>('GET', `/address/balance/litecoin/${address}`)).balance).toBeLessThan(COIN / 2n);
  }, 120_000);
});

describe('the extension fields', () => {
  it('a coin without segwit answers 400 naming the coin', async () => {
    const res = await t.request('POST', '/multi_sig/create/bitcoin_cash', {
      number_of_required_signatures: 2,
      amount: 100_000,
      to: scriptToAddress(t.backend('bitcoin_cash').params, multisigScripts(t.backend('bitcoin_cash').params, 1, [pubkeys[0]!]).scriptPubKey),
      redeem_scripts: [{ public_keys: keys.map((k) => k.publicKeyHex), script_type: 'p2wsh' }],
    });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.json)).toMatch(/redeem_scripts\[0\]: .*bitcoin_cash.* has no segwit/i);
  });

  it('without them the original answer: P2SH, keys as given, no inputs statement', async () => {
    const given = multisigScripts(params(), 2, pubkeys);
    await t.node.fundScript(given.scriptPubKey, COIN);
    await t.node.mine(1);
    await t.synced();
    const created = await ok<HashesToSign>('POST', '/multi_sig/create/litecoin', {
      number_of_required_signatures: 2,
      amount: Number(COIN / 4n),
      to: await t.node.newAddress('bech32'),
      redeem_scripts: [{ public_keys: keys.map((k) => k.publicKeyHex) }],
    });
    expect(created.inputs).toBeUndefined();
    const unsigned = decodeTx(Buffer.from(created.tx, 'hex')) as BitcoinTx;
    expect(bytesToHex(unsigned.inputs[0]!.scriptSig)).toBe(bytesToHex(given.multisigScript));
    expect(unsigned.inputs[0]!.witness ?? []).toEqual([]);
  });
});
