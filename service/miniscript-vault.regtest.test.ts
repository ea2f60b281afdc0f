// Issue 27's proof through the service, on litecoind -regtest (docs/api-decisions.md, section 12):
// a 2-of-3 vault with a 1-of-2 recovery path after 144 blocks, as a wsh miniscript descriptor.
// Paid from on the primary path through create and sign_and_send; a recovery spend refused by
// the service before maturity (naming the block) and the same spend, assembled by hand, refused
// by the node as non-BIP68-final; one block later than the service said, signed by one recovery
// key, accepted and confirmed. Wrong keys, another path's key, a tampered witness script or
// miniscript and an nSequence below the timelock are refused in words, nothing broadcast.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scriptToAddress } from '../shared/coins/address.ts';
import { assembleMiniscriptSpend, miniscriptInputHash, readUnsignedMiniscriptInput } from '../shared/coins/assemble-miniscript.ts';
import { bytesToHex, hexToBytes } from '../shared/coins/bytes.ts';
import { compileWshMiniscript } from '../shared/coins/miniscript-spend.ts';
import { p2wshScript } from '../shared/coins/multisig-script.ts';
import { decodeTx, encodeTxHex, type BitcoinTx } from '../shared/coins/tx.ts';
import { withChecksum } from '../shared/files/descriptor-checksum.ts';
import type { MultisigHashesToSign as HashesToSign } from '../shared/api/schemas.ts';
import { countBroadcasts, startRegtestService, type RegtestService } from './test/regtest-service.ts';
import { testKey, type TestKey } from './test/keys.ts';

const COIN = 100_000_000n;
const [A, B, C, D, E, F] = ['ms a', 'ms b', 'ms c', 'ms d', 'ms e', 'ms stranger'].map((s) => testKey(`miniscript vault ${s}`)) as [TestKey, TestKey, TestKey, TestKey, TestKey, TestKey];
const MINISCRIPT = `or_d(multi(2,${A.publicKeyHex},${B.publicKeyHex},${C.publicKeyHex}),and_v(v:multi(1,${D.publicKeyHex},${E.publicKeyHex}),older(144)))`;
const DESCRIPTOR = withChecksum(`wsh(${MINISCRIPT})`);
const compiled = compileWshMiniscript(MINISCRIPT);
const scriptPubKey = p2wshScript(compiled.witnessScript);

let t: RegtestService;
let broadcasts: () => number;

beforeAll(async () => {
  t = await startRegtestService(['litecoin']);
  broadcasts = countBroadcasts(t.backend('litecoin'));
}, 120_000);
afterAll(async () => t?.dispose());

async function ok<T>(url: string, body: unknown): Promise<T> {
  const res = await t.request('POST', url, body);
  if (res.status !== 200) throw new Error(`POST ${url}: ${res.status} ${JSON.stringify(res.json)}`);
  return res.json as T;
}

/** A refusal: its status and words, and nothing broadcast. */
async function refused(url: string, body: unknown): Promise<{ status: number; message: string }> {
  const before = broadcasts();
  const res = await t.request('POST', url, body);
  expect(broadcasts()).toBe(before);
  return { status: res.status, message: (res.json as { message: string }).message };
}

const signWith = (created: HashesToSign, signer: TestKey, asKey: TestKey = signer, input = 0) => {
  const h = created.hashes.find((x) => x.input_index === input)!;
  return { input_index: input, public_key: asKey.publicKeyHex, hash_to_sign: h.hash_to_sign, signature: signer.sign(h.hash_to_sign) };
};

async function fund(): Promise<{ txid: string; vout: number; height: number }> {
  const txid = await t.node.fundScript(scriptPubKey, COIN);
  await t.node.mine(1);
  const raw = await t.node.rpc.call<{ vout: { n: number; scriptPubKey: { hex: string } }[]; blockhash: string }>('getrawtransaction', [txid, true]);
  const header = await t.node.rpc.call<{ height: number }>('getblockheader', [raw.blockhash]);
  return { txid, vout: raw.vout.find((o) => o.scriptPubKey.hex === bytesToHex(scriptPubKey))!.n, height: header.height };
}

describe('a 2-of-3 vault with a 1-of-2 recovery path after 144 blocks (wsh miniscript)', () => {
  let primaryCoin: { txid: string; vout: number; height: number };
  let recoveryCoin: { txid: string; vout: number; height: number };
  let payee: string;

  it('is funded at its P2WSH address', async () => {
    primaryCoin = await fund();
    recoveryCoin = await fund();
    await t.synced();
    payee = await t.node.newAddress('bech32');
    expect(scriptToAddress(t.backend('litecoin').params, scriptPubKey)).toMatch(/^rltc1q/);
  });

  it('is paid from on the primary path; wrong keys, another path, tampering and a missing signature are refused first', async () => {
    const created = await ok<HashesToSign>('/multi_sig/create/litecoin', {
      amount: Number(COIN / 4n),
      to: payee,
      fee_rate: 20,
      inputs: [`${primaryCoin.txid}:${primaryCoin.vout}`],
      redeem_scripts: [{ descriptor: DESCRIPTOR, path: 0, witness_script: bytesToHex(compiled.witnessScript) }],
    });
    expect(created.inputs).toEqual([
      {
        txid: primaryCoin.txid,
        vout: primaryCoin.vout,
        amount: COIN,
        script_type: 'p2wsh',
        script: bytesToHex(compiled.witnessScript),
        script_pub_key: bytesToHex(scriptPubKey),
        miniscript: MINISCRIPT,
        path: { index: 0, older: null, keys: [A, B, C].map((k) => k.publicKeyHex), signatures: 2 },
        sequence: 0xffffffff,
        height: primaryCoin.height,
        spendable_at_height: null,
      },
    ]);
    // One hash per key of the chosen path: the recovery keys are not asked.
    expect(created.hashes.map((h) => h.public_key)).toEqual([A, B, C].map((k) => k.publicKeyHex));
    const unsigned = decodeTx(hexToBytes(created.tx)) as BitcoinTx;
    expect(unsigned.version).toBe(2);
    const send = (signatures: unknown[], tx = created.tx) => refused('/multi_sig/sign_and_send/litecoin', { tx, signatures });

    // A key of no path.
    const stranger = await send([signWith(created, A), signWith(created, F)]);
    expect(stranger).toEqual({ status: 400, message: `input 0, public key ${F.publicKeyHex}: this key is not one of the miniscript's keys` });
    // A recovery key on the primary path.
    const otherPath = await send([signWith(created, A), signWith(created, D)]);
    expect(otherPath.status).toBe(400);
    expect(otherPath.message).toBe(`input 0, public key ${D.publicKeyHex}: this key signs path 1 (1 of 2 keys, after 144 blocks), not path 0 (2 of 3 keys, no timelock), the path this input is spent on`);
    // B's key named, A's signature given.
    const wrongKey = await send([signWith(created, A), signWith(created, A, B)]);
    expect(wrongKey.message).toMatch(new RegExp(`^input 0, public key ${B.publicKeyHex}: the signature does not verify against this transaction's BIP143 hash for an input of ${COIN}`));
    // One signature of the two.
    const missing = await send([signWith(created, A)]);
    expect(missing.message).toBe(`input 0: path 0 (2 of 3 keys, no timelock) needs 2 signature(s) of ${[A, B, C].map((k) => k.publicKeyHex).join(', ')}; 1 valid given (${A.publicKeyHex})`);
    // The witness script altered (its last byte, OP_ENDIF, dropped).
    const script = Uint8Array.from(compiled.witnessScript.subarray(0, compiled.witnessScript.length - 1));
    const tamperedScript = { ...unsigned, inputs: [{ ...unsigned.inputs[0]!, witness: [unsigned.inputs[0]!.witness![0]!, Uint8Array.of(0), script] }] };
    const scriptRefused = await send([signWith(created, A), signWith(created, C)], encodeTxHex(tamperedScript));
    expect(scriptRefused).toEqual({ status: 400, message: "input 0: its witness script is not the one its miniscript compiles to (the script or the miniscript was altered)" });
    // Miniscript and script altered together (the recovery key D replaced by the stranger): not the output's script.
    const swapped = compileWshMiniscript(MINISCRIPT.replace(D.publicKeyHex, F.publicKeyHex));
    const tamperedBoth = { ...unsigned, inputs: [{ ...unsigned.inputs[0]!, witness: [new TextEncoder().encode(swapped.miniscript), Uint8Array.of(0), swapped.witnessScript] }] };
    const bothRefused = await send([signWith(created, A), signWith(created, C)], encodeTxHex(tamperedBoth));
    expect(bothRefused.message).toBe('input 0: the witness script does not hash to the output this input spends (neither its P2WSH nor its P2SH-P2WSH script)');

    // Two primary keys: sent, confirmed, the witness the cheapest satisfaction of path 0.
    const sent = await ok<{ message: string }>('/multi_sig/sign_and_send/litecoin', { tx: created.tx, signatures: [signWith(created, C), signWith(created, A)] });
    const [block] = await t.node.mine(1);
    const onChain = await t.node.rpc.call<{ confirmations: number; vsize: number; vin: { txinwitness: string[]; sequence: number }[] }>('getrawtransaction', [sent.message, true, block]);
    expect(onChain.confirmations).toBe(1);
    // The fee was computed for the path's largest witness: never below the real size, above it by
    // less than a vbyte per signature (73-byte signatures assumed).
    expect(created.vsize).toBeGreaterThanOrEqual(onChain.vsize);
    expect(created.vsize! - onChain.vsize).toBeLessThanOrEqual(2);
    expect(created.miners_fee).toBe(BigInt(created.vsize!) * 20n);
    const hash = created.hashes[0]!.hash_to_sign;
    expect(onChain.vin[0]!.txinwitness).toEqual(['', `${A.sign(hash)}01`, `${C.sign(hash)}01`, bytesToHex(compiled.witnessScript)]);
  });

  it('refuses a bad vault or path in words at create', async () => {
    const create = (entry: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
      refused('/multi_sig/create/litecoin', { amount: 100_000, to: payee, redeem_scripts: [entry], ...extra });
    const altered = DESCRIPTOR.replace(A.publicKeyHex.slice(2, 8), 'ffffff');
    expect((await create({ descriptor: altered, path: 0 })).message).toMatch(/^redeem_scripts\[0\]\.descriptor: the descriptor checksum "[a-z0-9]{8}" does not match the descriptor/);
    expect((await create({ descriptor: `sh(${MINISCRIPT})`, path: 0 })).message).toMatch(/^redeem_scripts\[0\]\.descriptor: this extension takes a wsh\(<miniscript>\) descriptor/);
    expect(await create({ descriptor: DESCRIPTOR, path: 2 })).toEqual({
      status: 400,
      message: 'redeem_scripts[0].path: the miniscript has no path 2; its paths are path 0 (2 of 3 keys, no timelock), path 1 (1 of 2 keys, after 144 blocks)',
    });
    expect((await create({ descriptor: DESCRIPTOR })).message).toBe('redeem_scripts[0].path is required: the spending path, one of path 0 (2 of 3 keys, no timelock), path 1 (1 of 2 keys, after 144 blocks)');
    expect((await create({ miniscript: MINISCRIPT.replace(E.publicKeyHex, A.publicKeyHex), path: 0 })).message).toBe('redeem_scripts[0].miniscript: the miniscript is refused: a key appears twice; use a different derivation of it on each path (BIP388: @0/<0;1>/* and @0/<2;3>/*)');
    expect((await create({ descriptor: DESCRIPTOR, path: 0, witness_script: '00' })).message).toMatch(/^redeem_scripts\[0\]\.witness_script is not the script the miniscript compiles to/);
    expect((await create({ descriptor: DESCRIPTOR, path: 0 }, { number_of_required_signatures: 2 })).message).toBe("number_of_required_signatures is for M-of-N redeem scripts; a miniscript vault's path says how many sign");
    const mixed = await refused('/multi_sig/create/litecoin', {
      number_of_required_signatures: 1,
      amount: 100_000,
      to: payee,
      redeem_scripts: [{ public_keys: [A.publicKeyHex] }, { descriptor: DESCRIPTOR, path: 0 }],
    });
    expect(mixed).toEqual({ status: 400, message: 'redeem_scripts[0]: a payment spends either miniscript vaults (descriptor, miniscript or witness_script) or M-of-N redeem scripts (public_keys), not both' });
  });

  it('refuses an nSequence below the recovery path\'s timelock, at create and at sign_and_send', async () => {
    const low = await refused('/multi_sig/create/litecoin', {
      amount: Number(COIN / 4n),
      to: payee,
      inputs: [`${recoveryCoin.txid}:${recoveryCoin.vout}`],
      redeem_scripts: [{ descriptor: DESCRIPTOR, path: 1, sequence: 100 }],
    });
    expect(low).toEqual({ status: 400, message: "redeem_scripts[0].sequence: path 1 (1 of 2 keys, after 144 blocks): its nSequence 100 is below the path's relative timelock of 144 blocks (older(144))" });

    // A transaction created right (the vault given as its witness script alone), its nSequence
    // lowered afterwards and signed so: refused by the assembler.
    const created = await ok<HashesToSign>('/multi_sig/create/litecoin', {
      amount: Number(COIN / 4n),
      to: payee,
      fee_rate: 20,
      inputs: [`${recoveryCoin.txid}:${recoveryCoin.vout}`],
      redeem_scripts: [{ witness_script: bytesToHex(compiled.witnessScript), path: 1 }],
    });
    expect(created.inputs![0]).toMatchObject({ miniscript: MINISCRIPT, path: { index: 1, older: 144 }, sequence: 144 });
    const unsigned = decodeTx(hexToBytes(created.tx)) as BitcoinTx;
    const lowered = { ...unsigned, inputs: [{ ...unsigned.inputs[0]!, sequence: 143 }] };
    const read = readUnsignedMiniscriptInput(lowered.inputs[0]!, 0)!;
    const hash = bytesToHex(miniscriptInputHash(t.backend('litecoin').params, lowered, 0, { ...read, amount: COIN }));
    const tooLow = await refused('/multi_sig/sign_and_send/litecoin', {
      tx: encodeTxHex(lowered),
      signatures: [{ input_index: 0, public_key: D.publicKeyHex, hash_to_sign: hash, signature: D.sign(hash) }],
    });
    expect(tooLow).toEqual({ status: 400, message: "input 0 on path 1 (1 of 2 keys, after 144 blocks): its nSequence 143 is below the path's relative timelock of 144 blocks (older(144))" });
  });

  it('refuses the recovery spend before maturity naming the block; the node refuses it too (non-BIP68-final); one recovery key spends it once the path opens', async () => {
    const created = await ok<HashesToSign>('/multi_sig/create/litecoin', {
      amount: Number(COIN / 4n),
      to: payee,
      fee_rate: 20,
      inputs: [`${recoveryCoin.txid}:${recoveryCoin.vout}`],
      redeem_scripts: [{ miniscript: MINISCRIPT, path: 1 }],
    });
    const opens = recoveryCoin.height + 144;
    expect(created.inputs![0]).toMatchObject({ path: { index: 1, older: 144, keys: [D, E].map((k) => k.publicKeyHex), signatures: 1 }, sequence: 144, height: recoveryCoin.height, spendable_at_height: opens });
    expect(created.hashes.map((h) => h.public_key)).toEqual([D, E].map((k) => k.publicKeyHex));
    const request = { tx: created.tx, signatures: [signWith(created, E)] };

    const early = await refused('/multi_sig/sign_and_send/litecoin', request);
    expect(early.status).toBe(422);
    expect(early.message).toContain(`input 0 spends ${recoveryCoin.txid}:${recoveryCoin.vout} on path 1 (1 of 2 keys, after 144 blocks): the coin confirmed in block ${recoveryCoin.height}, so this path opens at block ${opens}`);

    // The same spend assembled by hand and sent to the node directly.
    const unsigned = decodeTx(hexToBytes(created.tx)) as BitcoinTx;
    const read = readUnsignedMiniscriptInput(unsigned.inputs[0]!, 0)!;
    const params = t.backend('litecoin').params;
    const hand = assembleMiniscriptSpend(params, unsigned, [{ ...read, amount: COIN, scriptPubKey }], [
      { inputIndex: 0, publicKey: E.publicKey, signature: hexToBytes(E.sign(created.hashes[0]!.hash_to_sign)) },
    ]);
    await expect(t.node.rpc.call('sendrawtransaction', [encodeTxHex(hand)])).rejects.toThrow(/non-BIP68-final/);

    // One block short of the service's word: still refused, and the node agrees.
    const tip = await t.node.rpc.call<number>('getblockcount', []);
    await t.node.mine(opens - 2 - tip);
    await t.synced();
    const short = await refused('/multi_sig/sign_and_send/litecoin', request);
    expect(short.message).toContain(`opens at block ${opens}`);
    await expect(t.node.rpc.call('sendrawtransaction', [encodeTxHex(hand)])).rejects.toThrow(/non-BIP68-final/);

    // The chain at opens - 1: the next block can hold the spend.
    await t.node.mine(1);
    await t.synced();
    const sent = await ok<{ message: string }>('/multi_sig/sign_and_send/litecoin', request);
    const [block] = await t.node.mine(1);
    const onChain = await t.node.rpc.call<{ confirmations: number; vsize: number; vin: { txinwitness: string[]; sequence: number }[] }>('getrawtransaction', [sent.message, true, block]);
    expect(onChain.confirmations).toBe(1);
    expect(onChain.vin[0]!.sequence).toBe(144);
    expect(created.vsize).toBeGreaterThanOrEqual(onChain.vsize);
    expect(created.vsize! - onChain.vsize).toBeLessThanOrEqual(1);
    // or_d's recovery branch: the 1-of-2 multisig's dummy and E's signature, then the primary multisig dissatisfied (three empties).
    expect(onChain.vin[0]!.txinwitness).toEqual(['', `${E.sign(created.hashes[0]!.hash_to_sign)}01`, '', '', '', bytesToHex(compiled.witnessScript)]);
    await t.node.rpc.call('getblockheader', [block]).then((h) => expect((h as { height: number }).height).toBe(opens));
  });
});
