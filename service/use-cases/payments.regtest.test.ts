// build-payment and sign-and-send called directly, no HTTP in between, on the backend the service
// runs against a real litecoind -regtest node. What the routes cannot show: the sources and hashes
// the use cases hand over, and that a refusal never reaches the backend's broadcast.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { p2pkhAddressOfPublicKey } from '../../shared/coins/address.ts';
import { bytesToHex } from '../../shared/coins/bytes.ts';
import { CoinError } from '../../shared/coins/errors.ts';
import { hash160 } from '../../shared/coins/hash.ts';
import { multisigRedeemScript, p2pkhScript, p2shScript } from '../../shared/coins/script.ts';
import { decodeTx } from '../../shared/coins/tx.ts';
import type { Signatures } from '../../shared/api/schemas.ts';
import type { UtxoBackend } from '../chains/backend.ts';
import { startRegtestService, type RegtestService } from '../test/regtest-service.ts';
import { testKey, type TestKey } from '../test/keys.ts';
import { buildUnsignedPayment, multisigSources, singleSigSources, type UnsignedPayment } from './build-payment.ts';
import { selectionCandidates } from './unspent-pages.ts';
import { sendRaw, signAndSend } from './sign-and-send.ts';

const COIN = 100_000_000n;
const [c1, c2, c3] = [testKey('use-case c1'), testKey('use-case c2'), testKey('use-case c3')];
const alice = testKey('use-case alice');
const carol = testKey('use-case carol');
const bob = testKey('use-case bob');
const keys = [c1, c2, c3, alice, carol];
// Two redeem scripts over the same keys in different orders: two P2SH outputs (no BIP67).
const orders = [[c3, c1, c2], [c1, c2, c3]];
const p2sh = (ks: TestKey[]) => p2shScript(hash160(multisigRedeemScript(2, ks.map((k) => k.publicKey))));
const p2pkh = (k: TestKey) => p2pkhScript(hash160(k.publicKey));

let t: RegtestService;
let backend: UtxoBackend;
let broadcasts: Uint8Array[];

beforeAll(async () => {
  t = await startRegtestService(['litecoin']);
  const real = t.backend('litecoin');
  broadcasts = [];
  // The real backend, with its broadcasts counted.
  backend = new Proxy(real, {
    get(target, prop, receiver) {
      if (prop === 'broadcast') return (raw: Uint8Array) => (broadcasts.push(raw), target.broadcast(raw));
      const value: unknown = Reflect.get(target, prop, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  for (const order of orders) await t.node.fundScript(p2sh(order), COIN);
  await t.node.fundScript(p2pkh(alice), COIN);
  await t.node.fundScript(p2pkh(carol), 2n * COIN);
  await t.node.mine(1);
  await t.synced();
});
afterAll(async () => t?.dispose());

const keyOf = (publicKey: Uint8Array) => keys.find((k) => bytesToHex(k.publicKey) === bytesToHex(publicKey))!;

function signed(p: UnsignedPayment, signers: (k: TestKey, inputIndex: number) => boolean): Signatures {
  return {
    tx: bytesToHex(p.tx),
    signatures: p.hashes
      .filter((h) => signers(keyOf(h.publicKey), h.inputIndex))
      .map((h) => ({ input_index: h.inputIndex, public_key: bytesToHex(h.publicKey), hash_to_sign: bytesToHex(h.hash), signature: keyOf(h.publicKey).sign(bytesToHex(h.hash)) })),
  };
}

describe('build-payment', () => {
  it('single-sig sources: one per key in from, each with its P2PKH outputs from the backend', async () => {
    const { sources } = await selectionCandidates(backend, singleSigSources(` ${alice.publicKeyHex}, ,${carol.publicKeyHex}`), false);
    expect(sources.map((s) => [bytesToHex(s.scriptPubKey), s.required, s.unspent.map((u) => u.amount)])).toEqual([
      [bytesToHex(p2pkh(alice)), 1, [COIN]],
      [bytesToHex(p2pkh(carol)), 1, [2n * COIN]],
    ]);
    expect(() => singleSigSources(`${alice.publicKeyHex},02ab`)).toThrow(expect.objectContaining({ field: 'from[1]' }));
  });

  it('multisig: a source per redeem script, keys in the order given, and a hash per key of every input', async () => {
    const sources = multisigSources(backend.params, 2, orders.map((o) => ({ public_keys: o.map((k) => k.publicKeyHex) })));
    expect(sources.map((s) => bytesToHex(s.scriptPubKey))).toEqual(orders.map((o) => bytesToHex(p2sh(o))));
    expect(sources.map((s) => s.publicKeys.map(bytesToHex))).toEqual(orders.map((o) => o.map((k) => k.publicKeyHex)));

    // more than one source's coins: the payment has to spend both
    const p = await buildUnsignedPayment(backend, sources, { to: p2pkhAddressOfPublicKey(backend.params, bob.publicKey), amount: (3n * COIN) / 2n });
    const tx = decodeTx(p.tx, backend.params);
    expect(tx.inputs).toHaveLength(2);
    expect(p.totalInputValue).toBe(2n * COIN);
    for (const [i] of tx.inputs.entries()) {
      expect(p.hashes.filter((h) => h.inputIndex === i).map((h) => keyOf(h.publicKey))).toHaveLength(3);
    }
  });
});

describe('sign-and-send', () => {
  it('refusals never reach the backend\'s broadcast', async () => {
    const sources = multisigSources(backend.params, 2, [{ public_keys: orders[0]!.map((k) => k.publicKeyHex) }]);
    const p = await buildUnsignedPayment(backend, sources, { to: p2pkhAddressOfPublicKey(backend.params, bob.publicKey), amount: COIN / 2n });
    const before = broadcasts.length;

    // one signature short
    await expect(signAndSend(backend, signed(p, (k) => k === c1))).rejects.toThrow(/input 0: 1 valid signature\(s\) of the 2 required/);
    // a signature over another hash than the one recomputed for its input
    const other = signed(p, (k) => k !== c2);
    other.signatures[0] = { ...other.signatures[0]!, signature: keyOf(sources[0]!.publicKeys[0]!).sign('11'.repeat(32)), hash_to_sign: '' };
    await expect(signAndSend(backend, other)).rejects.toThrow(/input 0, public key [0-9a-f]{66}: the signature does not verify/);
    // bytes that are no transaction, named by their field
    await expect(sendRaw(backend, '0xdeadbeef')).rejects.toThrow(expect.objectContaining({ field: 'rawtx' }));
    await expect(signAndSend(backend, { ...signed(p, () => true), tx: '00' })).rejects.toBeInstanceOf(CoinError);
    expect(broadcasts.length).toBe(before);

    // the same payment, properly signed by two of three: broadcast once, and the node has it
    const txid = await signAndSend(backend, signed(p, (k) => k !== c2));
    expect(broadcasts.length).toBe(before + 1);
    expect(await t.node.rpc.call<string[]>('getrawmempool')).toContain(txid);
  });
});
