// Every UTXO coin beyond the Bitcoin-rules ones, end to end through the HTTP API: litecoind
// -regtest supplies the unspent outputs, the service is configured as each coin, and what it
// assembles from the test's signatures is checked by an independent implementation of that
// coin's rules (litecoind itself would refuse fork-id signatures and Zcash formats, so broadcasts
// are captured instead of sent).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addressToScript, p2pkhAddressOfPublicKey, p2shAddressOfRedeemScript } from '../shared/coins/address.ts';
import { bytesToHex } from '../shared/coins/bytes.ts';
import { type ChainParams, chainParams, type CoinName } from '../shared/coins/coin-table.ts';
import { decodeScript, multisigRedeemScript, parseMultisigRedeemScript, p2pkhScript, p2shScript } from '../shared/coins/script.ts';
import { hash160 } from '../shared/coins/hash.ts';
import { signatureHash } from '../shared/coins/sighash/index.ts';
import { splitHashType, verifyDerSignature } from '../shared/coins/signature.ts';
import { decodeTx, txidHex, type Tx } from '../shared/coins/tx.ts';
import type { Balance, HashesToSign } from '../shared/api/schemas.ts';
import { startRegtestService, type RegtestService } from './test/regtest-service.ts';
import { testKey, type TestKey } from './test/keys.ts';
import { bitcoinCashScriptErrors, utxoLibSighashes, utxoLibTxid } from './test/oracles.ts';

const COINS = ['bitcoin_cash', 'bitcoin_gold', 'bitcoin_private', 'zcash', 'zclassic'] as const satisfies readonly CoinName[];
type ForkCoin = (typeof COINS)[number];

let t: RegtestService;
const captured = new Map<CoinName, Uint8Array[]>();

beforeAll(async () => {
  t = await startRegtestService(COINS);
  for (const coin of COINS) {
    const backend = t.backend(coin);
    captured.set(coin, []);
    backend.broadcast = async (raw: Uint8Array) => {
      captured.get(coin)!.push(raw);
      return txidHex(decodeTx(raw, backend.params));
    };
  }
});
afterAll(async () => t?.dispose());

async function ok<T>(method: 'GET' | 'POST', url: string, body?: unknown): Promise<T> {
  const res = await t.request(method, url, body);
  if (res.status !== 200) throw new Error(`${method} ${url} -> ${res.status} ${String((res.json as { message?: string })?.message)}`);
  return res.json as T;
}

interface SignedInput {
  scriptCode: Uint8Array;
  keys: Uint8Array[];
  sigs: Uint8Array[];
}

/** Reads each signed input's scriptSig: P2PKH <sig> <key>, or OP_0 <sigs> <redeemScript>. */
function signedInputs(tx: Tx): SignedInput[] {
  return tx.inputs.map((input) => {
    const chunks = decodeScript(input.scriptSig).map((c) => c.data).filter((d): d is Uint8Array => d !== undefined);
    const last = chunks[chunks.length - 1]!;
    const redeem = parseMultisigRedeemScript(last);
    return redeem
      ? { scriptCode: last, keys: redeem.pubkeys, sigs: chunks.slice(0, -1).filter((c) => c.length > 0) }
      : { scriptCode: p2pkhScript(hash160(last)), keys: [last], sigs: [chunks[0]!] };
  });
}

/** Each input's signatures verified in key order (as OP_CHECKMULTISIG does) against `hashes`. */
function signatureErrors(params: ChainParams, inputs: readonly SignedInput[], hashes: readonly Uint8Array[]): string[] {
  const errors: string[] = [];
  inputs.forEach((input, i) => {
    let k = 0;
    for (const sig of input.sigs) {
      const { der, hashType } = splitHashType(sig);
      if (hashType !== params.hashType) errors.push(`input ${i}: hash type ${hashType}`);
      while (k < input.keys.length && !verifyDerSignature(hashes[i]!, input.keys[k]!, der)) k++;
      if (k === input.keys.length) errors.push(`input ${i}: a signature matches no remaining key`);
      k++;
    }
  });
  return errors;
}

describe.each(COINS)('%s', (coin: ForkCoin) => {
  const params = chainParams(coin, 'regtest');
  const payer = testKey(`${coin} fork payer`);
  const payee = testKey(`${coin} fork payee`);
  const keys = [testKey(`${coin} fork k1`), testKey(`${coin} fork k2`), testKey(`${coin} fork k3`)];
  const redeem = multisigRedeemScript(2, keys.map((k) => k.publicKey));
  const payerAddr = p2pkhAddressOfPublicKey(params, payer.publicKey);
  const payeeAddr = p2pkhAddressOfPublicKey(params, payee.publicKey);
  const msAddr = p2shAddressOfRedeemScript(params, redeem);
  const signers: TestKey[] = [payer, ...keys];
  const sign = (c: HashesToSign, skip?: TestKey) =>
    c.hashes.filter((h) => h.public_key !== skip?.publicKeyHex).map((h) => ({ ...h, signature: signers.find((k) => k.publicKeyHex === h.public_key)!.sign(h.hash_to_sign) }));

  /** What the captured transaction's inputs spend, from the API's own unspent list. */
  async function spentOf(tx: Tx, from: readonly string[]) {
    const utxos = (await ok<{ utxos: { txid: string; vout: number; amount: bigint; script_pub_key: string }[] }>('GET', `/address/utxos/${coin}/${from.join(',')}`)).utxos;
    return tx.inputs.map((input) => {
      const u = utxos.find((x) => x.txid === bytesToHex(input.prevTxid) && x.vout === input.vout)!;
      return { script: Uint8Array.from(Buffer.from(u.script_pub_key, 'hex')), amount: u.amount };
    });
  }

  function independentVerdict(raw: Uint8Array, spent: { script: Uint8Array; amount: bigint }[]): string[] {
    const tx = decodeTx(raw, params);
    const inputs = signedInputs(tx);
    switch (coin) {
      case 'bitcoin_cash': // the coin's own script interpreter, end to end
        return bitcoinCashScriptErrors(bytesToHex(raw), spent);
      case 'bitcoin_gold':
      case 'zclassic': {
        // utxo-lib's own digest of each input; our signatures must verify against it
        const network = coin === 'bitcoin_gold' ? 'bitcoingold' : 'zcash';
        const branch = coin === 'zclassic' ? 0x930b540d : undefined;
        const hashes = utxoLibSighashes(network, raw, inputs.map((input, i) => ({ scriptCode: input.scriptCode, amount: spent[i]!.amount })), params.hashType, branch);
        return signatureErrors(params, inputs, hashes);
      }
      case 'zcash': {
        // the v5 format and its txid independently; the digest is the ZIP-244 vectors' algorithm
        expect(utxoLibTxid('zcash', raw)).toBe(txidHex(tx));
        const prevouts = spent.map((s) => ({ amount: s.amount, scriptPubKey: s.script }));
        return signatureErrors(params, inputs, inputs.map((input, i) => signatureHash(params, tx, i, { scriptCode: input.scriptCode, prevouts })));
      }
      case 'bitcoin_private': {
        // no library knows it: the digest is proven against a hand-built preimage in its unit test
        const prevouts = spent.map((s) => ({ amount: s.amount, scriptPubKey: s.script }));
        return signatureErrors(params, inputs, inputs.map((input, i) => signatureHash(params, tx, i, { scriptCode: input.scriptCode, prevouts })));
      }
    }
  }

  /** The hash of input `i` under another coin's rules: another fork id, or another branch id. */
  function foreignHash(unsignedHex: string, i: number, prevouts: { amount: bigint; scriptPubKey: Uint8Array }[]): Uint8Array {
    const scriptCode = addressToScript(params, payerAddr);
    if (params.txFormat === 'bitcoin') {
      const other = chainParams(coin === 'bitcoin_cash' ? 'bitcoin_gold' : 'bitcoin_cash', 'regtest');
      return signatureHash(other, decodeTx(Buffer.from(unsignedHex, 'hex'), other), i, { scriptCode, prevouts });
    }
    const tx = decodeTx(Buffer.from(unsignedHex, 'hex'), params);
    if (coin === 'zclassic') return signatureHash(params, tx, i, { scriptCode, prevouts, consensusBranchId: 0x76b809bb }); // Zcash Sapling's
    return signatureHash(params, { ...tx, consensusBranchId: 0xc2d6d0b4 } as Tx, i, { scriptCode, prevouts }); // NU5's, not the tip's
  }

  it('shows addresses in the coin\'s own format and sees funds arriving', async () => {
    if (coin === 'bitcoin_cash') expect(payerAddr).toMatch(/^bchreg:q/);
    if (coin === 'zcash' || coin === 'zclassic') expect(payerAddr).toMatch(/^tm/);
    await t.node.fundScript(addressToScript(params, payerAddr), 50_000_000n);
    await t.node.fundScript(addressToScript(params, msAddr), 80_000_000n);
    await t.node.mine(1);
    await t.synced();
    const b = await ok<{ addresses: (Balance & { address: string })[] }>('GET', `/address/balances/${coin}/${payerAddr},${msAddr}`);
    expect(b.addresses.map((a) => [a.address, a.balance])).toEqual([
      [payerAddr, 50_000_000n],
      [msAddr, 80_000_000n],
    ]);
  });

  it('single-sig: the assembled transaction is valid by an independent implementation', async () => {
    const created = await ok<HashesToSign>('POST', `/transaction/create/${coin}?from=${payer.publicKeyHex}&to=${payeeAddr}&amount=10000000&miners_fee=10000`);
    const unsigned = decodeTx(Buffer.from(created.tx, 'hex'), params);
    expect(unsigned.version).toBe(params.txVersion);
    expect(unsigned.outputs.map((o) => o.value)).toEqual([10_000_000n, 50_000_000n - 10_000_000n - 10_000n]);
    expect(bytesToHex(unsigned.outputs[1]!.script)).toBe(bytesToHex(addressToScript(params, payerAddr)));
    await ok('POST', `/transaction/sign_and_send/${coin}`, { tx: created.tx, signatures: sign(created) });
    const raw = captured.get(coin)!.at(-1)!;
    expect(independentVerdict(raw, await spentOf(decodeTx(raw, params), [payerAddr]))).toEqual([]);
  });

  it('2-of-3 multisig: two signatures assemble into a transaction the independent check accepts', async () => {
    const created = await ok<HashesToSign>('POST', `/multi_sig/create/${coin}`, {
      number_of_required_signatures: 2,
      amount: 30_000_000,
      to: payeeAddr,
      miners_fee: 20_000,
      redeem_scripts: [{ public_keys: keys.map((k) => k.publicKeyHex) }],
    });
    expect(created.hashes.map((h) => h.public_key)).toEqual(keys.map((k) => k.publicKeyHex));
    await ok('POST', `/multi_sig/sign_and_send/${coin}`, { tx: created.tx, signatures: sign(created, keys[1]) });
    const raw = captured.get(coin)!.at(-1)!;
    const tx = decodeTx(raw, params);
    expect(bytesToHex(tx.outputs[1]!.script)).toBe(bytesToHex(p2shScript(hash160(redeem)))); // change to the multisig
    expect(independentVerdict(raw, await spentOf(tx, [msAddr]))).toEqual([]);
  });

  it('refuses a signature made under another coin\'s digest (fork id or branch id)', async () => {
    const created = await ok<HashesToSign>('POST', `/transaction/create/${coin}?from=${payer.publicKeyHex}&to=${payeeAddr}&amount=1000000&miners_fee=10000`);
    const unsigned = decodeTx(Buffer.from(created.tx, 'hex'), params);
    const spent = await spentOf(unsigned, [payerAddr]);
    const prevouts = spent.map((s) => ({ amount: s.amount, scriptPubKey: s.script }));
    const wrong = created.hashes.map((h) => ({ ...h, hash_to_sign: '', signature: payer.sign(bytesToHex(foreignHash(created.tx, h.input_index, prevouts))) }));
    const before = captured.get(coin)!.length;
    const res = await t.request('POST', `/transaction/sign_and_send/${coin}`, { tx: created.tx, signatures: wrong });
    expect(res.status).toBe(400);
    expect((res.json as { message: string }).message).toMatch(/does not verify/);
    expect(captured.get(coin)!.length).toBe(before);
  });
});
