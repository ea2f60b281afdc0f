// Issue 31, finding 1, on litecoind -regtest: a service that re-issues a payment with nLockTime =
// tip + 5 (and the hashes of THAT transaction, so every other check passes) made a payment the node
// refused as non-final, that the treasurer paid again, and that paid a second time five blocks
// later. Now the desk refuses it in words before anything is stored; the same for a version-2 M-of-N
// payment with a 388-day relative lock; and a co-signer refuses a signing request altered to carry
// a lock, naming the lock, while the honest recovery-path request shows its own wait in words.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bytesToHex, chainParams, decodeTx, encodeTxHex, hexToBytes } from '../../../shared/coins/index.ts';
import type { BitcoinTx } from '../../../shared/coins/tx.ts';
import { miniscriptInputHash, readUnsignedMiniscriptInput } from '../../../shared/coins/assemble-miniscript.ts';
import { multisigInputHash } from '../../../shared/coins/assemble-multisig.ts';
import { readUnsignedMultisigInput } from '../../../shared/coins/unsigned-witness.ts';
import type { MultisigHashesToSign } from '../../../shared/api/schemas.ts';
import { paymentHash, type SigningRequestV1 } from '../../../shared/files/signing-files.ts';
import { apiWith, fundWalletCoin, type RegtestDesk, startVaultDesk, type WalletDesk } from '../../../dev/desk-testing/regtest.ts';
import { testCosigner } from '../../../dev/desk-testing/keys.ts';
import type { CoordinatorApi } from '../api.ts';
import type { CoordinatorStore } from '../store/store.ts';
import { signRequest } from '../software-signer.ts';
import { createWallet, type CoreDeps } from '../wallets/wallets.ts';
import { proposePayment } from './propose.ts';
import { writeSigningRequest } from './signing-request.ts';

const params = chainParams('litecoin', 'regtest');
const COIN = 100_000_000n;
const [alice, bob, carol, dave] = ['alice', 'bob', 'carol', 'dave'].map((n) => testCosigner(n)) as [ReturnType<typeof testCosigner>, ReturnType<typeof testCosigner>, ReturnType<typeof testCosigner>, ReturnType<typeof testCosigner>];

let fixture: WalletDesk;
let desk: RegtestDesk;
let store: CoordinatorStore;
let deps: CoreDeps;
let vaultId: string;
let multisigId: string;
const tip = () => desk.node.rpc.call<number>('getblockcount', []);

/** The transaction with `change` applied, and each input's hash recomputed over it (vault or M-of-N inputs). */
function relock(tx: BitcoinTx, change: Partial<Pick<BitcoinTx, 'version' | 'locktime'>> & { sequence?: number }, amounts: readonly bigint[]): { tx: BitcoinTx; hashOf: (i: number) => string } {
  const forged: BitcoinTx = { ...tx, ...change, inputs: tx.inputs.map((i) => ({ ...i, ...(change.sequence !== undefined ? { sequence: change.sequence } : {}) })) };
  const seen = new Map();
  const hashOf = (i: number) => {
    const input = forged.inputs[i]!;
    const vault = readUnsignedMiniscriptInput(input, i, seen);
    if (vault) return bytesToHex(miniscriptInputHash(params, forged, i, { ...vault, amount: amounts[i]! }));
    const multisig = readUnsignedMultisigInput(input, i)!;
    return bytesToHex(multisigInputHash(params, forged, i, { ...multisig, amount: amounts[i]! }));
  };
  return { tx: forged, hashOf };
}

/** A service that answers with the honest transaction changed by `change`, and the hashes of the changed one. */
const relocking = (change: (tipNow: number) => Parameters<typeof relock>[1]): CoreDeps => ({
  ...deps,
  api: apiWith(desk.api, {
    createMultisig: async (coin, body): Promise<MultisigHashesToSign> => {
      const created = await desk.api.createMultisig(coin, body);
      const { tx, hashOf } = relock(decodeTx(hexToBytes(created.tx), params) as BitcoinTx, change(await tip()), created.inputs!.map((i) => i.amount));
      return { ...created, tx: encodeTxHex(tx), hashes: created.hashes.map((h) => ({ ...h, hash_to_sign: hashOf(h.input_index) })) };
    },
  } satisfies Partial<CoordinatorApi>),
});

/** A signing request altered by `change`, kept consistent (payment hash, each input's hash): only the lock check can see it. */
function alteredRequest(text: string, change: Parameters<typeof relock>[1]): string {
  const r = JSON.parse(text) as SigningRequestV1;
  const { tx, hashOf } = relock(decodeTx(hexToBytes(r.unsigned_tx), params) as BitcoinTx, change, r.inputs.map((i) => BigInt(i.amount)));
  const bytes = hexToBytes(encodeTxHex(tx));
  return JSON.stringify({ ...r, unsigned_tx: bytesToHex(bytes), payment_hash: paymentHash(bytes), inputs: r.inputs.map((i) => ({ ...i, hash: hashOf(i.index) })) });
}

const nothingStored = (walletId: string, before: { payments: number; audit: number }) => {
  expect(store.payments(walletId).length).toBe(before.payments);
  expect(store.auditLog().filter((e) => e.action === 'payment.propose').length).toBe(before.audit);
};
const counts = (walletId: string) => ({ payments: store.payments(walletId).length, audit: store.auditLog().filter((e) => e.action === 'payment.propose').length });

beforeAll(async () => {
  // Issue 27's proof vault (2 of alice, bob, carol now; 1 of dave, erin after 144 blocks) and, on
  // the same desk, a segwit 2-of-3 M-of-N wallet.
  fixture = await startVaultDesk('Locks vault');
  ({ desk, store, deps, walletId: vaultId } = fixture);
  multisigId = (await createWallet(deps, { coin: 'litecoin', network: 'regtest', name: 'Locks 2-of-3', m: 2, cosigners: [alice, bob, carol], scriptType: 'p2wsh' })).id;
}, 300_000);
afterAll(async () => fixture?.dispose());

describe('the desk pins the version, nLockTime and every nSequence of what the service builds', () => {
  it('a vault payment re-issued with nLockTime = tip + 5 is refused in words before anything is stored', async () => {
    const coin = await fundWalletCoin(desk, deps, vaultId, 2n * COIN);
    const before = counts(vaultId);
    const ask = { to: await desk.node.newAddress('bech32'), amount: COIN / 2n, minersFee: 0n, feeRate: 2n, inputs: [`${coin.txid}:${coin.vout}`] };
    const now = await tip();
    await expect(proposePayment(relocking((t) => ({ locktime: t + 5, sequence: 0xfffffffe })), vaultId, ask)).rejects.toThrow(
      `refusing the proposed payment: this transaction cannot be mined before block ${(now + 6).toLocaleString('en-US')} (5 more blocks must be mined first, about 13 minutes): nLockTime ${now + 5}, where the payment asked for carries 0 (no lock)`,
    );
    nothingStored(vaultId, before);
    // The honest answer to the same ask is stored.
    const p = await proposePayment(deps, vaultId, ask);
    expect(p.state).toBe('awaiting_signatures');
    expect((decodeTx(p.unsignedTx, params) as BitcoinTx).locktime).toBe(0);
  });

  it('an M-of-N payment re-issued as version 2 with a 388-day relative lock, or with a time lock in 2100, is refused in words', async () => {
    const coin = await fundWalletCoin(desk, deps, multisigId, COIN);
    const before = counts(multisigId);
    const ask = { to: await desk.node.newAddress('bech32'), amount: COIN / 4n, minersFee: 0n, feeRate: 2n, inputs: [`${coin.txid}:${coin.vout}`], replaceable: false };
    // Sent replaceable: a relative lock is below 0xfffffffe, so it signals replacement as asked.
    await expect(proposePayment(relocking(() => ({ version: 2, sequence: 0x0040ffff })), multisigId, { ...ask, replaceable: true })).rejects.toThrow(
      'refusing the proposed payment: the transaction has version 2; the payment asked for has version 1 (version 2 turns on relative locks, BIP68); input 0 has nSequence 0x40ffff: input 0 is locked for about 388.4 days (65,535 periods of 512 seconds) after its coin confirms; the payment asked for spends it with nSequence 0xfffffffd (replaceable, BIP125)',
    );
    await expect(proposePayment(relocking(() => ({ locktime: 4_102_444_800 })), multisigId, ask)).rejects.toThrow("this transaction cannot be mined before 2100-01-01 00:00 UTC (by the time of the chain's blocks) (every input is final, so today the node ignores it; it is signed all the same)");
    nothingStored(multisigId, before);
  });
});

describe("a co-signer's check of a signing request", () => {
  it('refuses a request altered to carry a lock, naming it, and signs nothing', async () => {
    const coin = await fundWalletCoin(desk, deps, multisigId, COIN);
    const p = await proposePayment(deps, multisigId, { to: await desk.node.newAddress('bech32'), amount: COIN / 4n, minersFee: 0n, feeRate: 2n, inputs: [`${coin.txid}:${coin.vout}`] });
    const text = await writeSigningRequest(deps, p.id);
    const now = await tip();
    expect(() => signRequest(alteredRequest(text, { locktime: now + 5, sequence: 0xfffffffe }), { xprv: alice.accountXprv })).toThrow(
      new RegExp(`^this transaction cannot be mined before block ${(now + 6).toLocaleString('en-US')}: nLockTime ${now + 5}, where a payment of this wallet that its request says is final carries 0 \\(no lock\\); input 0 has nSequence 0xfffffffe; a payment of this wallet that its request says is final spends it with nSequence 0xffffffff \\(final\\)$`),
    );
    expect(() => signRequest(alteredRequest(text, { version: 2, sequence: 0xffff }), { xprv: bob.accountXprv })).toThrow('input 0 is locked for 65,535 blocks (about 113.8 days) after its coin confirms');
    // The request as written: no lock to show.
    expect(signRequest(text, { xprv: alice.accountXprv }).opened.locks).toEqual([]);
  });

  it('accepts exactly the nSequence the request states: a replaceable spend made final is refused; a file without the field accepts either', async () => {
    const coin = await fundWalletCoin(desk, deps, multisigId, COIN);
    const p = await proposePayment(deps, multisigId, { to: await desk.node.newAddress('bech32'), amount: COIN / 4n, minersFee: 0n, feeRate: 2n, inputs: [`${coin.txid}:${coin.vout}`], replaceable: true });
    const text = await writeSigningRequest(deps, p.id);
    expect((JSON.parse(text) as SigningRequestV1).replaceable).toBe(true);
    expect(() => signRequest(alteredRequest(text, { sequence: 0xffffffff }), { xprv: alice.accountXprv })).toThrow(
      'input 0 has nSequence 0xffffffff (final); a payment of this wallet that its request says signals replacement spends it with nSequence 0xfffffffd (replaceable, BIP125)',
    );
    // A request that says nothing (written before the field): final or replaceable, as before.
    const { replaceable: _said, ...unsaid } = JSON.parse(alteredRequest(text, { sequence: 0xffffffff })) as SigningRequestV1;
    expect(signRequest(JSON.stringify(unsaid), { xprv: alice.accountXprv }).opened.locks).toEqual([]);
    expect(signRequest(text, { xprv: alice.accountXprv }).opened.locks).toEqual([]);
  });

  it("a vault's recovery-path request passes with exactly its older() and shows the wait in words; one more block is refused", async () => {
    const coin = await fundWalletCoin(desk, deps, vaultId, COIN);
    await desk.mine(144);
    await desk.synced();
    const p = await proposePayment(deps, vaultId, { to: await desk.node.newAddress('bech32'), amount: COIN / 4n, minersFee: 0n, feeRate: 2n, inputs: [`${coin.txid}:${coin.vout}`], vaultPath: 144 });
    const text = await writeSigningRequest(deps, p.id);
    expect(() => signRequest(alteredRequest(text, { sequence: 145 }), { xprv: dave.accountXprv })).toThrow(
      'input 0 has nSequence 0x91: input 0 is locked for 145 blocks (about 6 hours) after its coin confirms; a spend on the path that opens after 144 blocks spends it with nSequence 144 (older(144))',
    );
    expect(signRequest(text, { xprv: dave.accountXprv }).opened.locks).toEqual(['input 0 is locked for 144 blocks (about 6 hours) after its coin confirms']);
  });
});
