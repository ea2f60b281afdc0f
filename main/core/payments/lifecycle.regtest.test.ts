// Issue 5's proof on a real litecoind -regtest with the embedded service: a 2-of-3 wallet from
// creation to a confirmed payment, every refusal with its message, and crash safety of imports.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClientError } from '../../../shared/api/client.ts';
import { addressToScript, bytesToHex, chainParams, decodeTxHex, encodeTxHex } from '../../../shared/coins/index.ts';
import type { CoordinatorApi } from '../api.ts';
import { signRequest } from '../software-signer.ts';
import { openSigningRequest, writeSigningRequest } from './signing-request.ts';
import { importSignatureFiles } from './signature-import.ts';
import { proposePayment } from './propose.ts';
import { refreshConfirmations, submitPayment } from './submit.ts';
import { cancelPayment, progress } from './payments.ts';
import { openStore, type CoordinatorStore } from '../store/store.ts';
import { testCosigner } from '../../../dev/desk-testing/keys.ts';
import { startRegtestDesk, type RegtestDesk, apiWith } from '../../../dev/desk-testing/regtest.ts';
import { createWallet, nextReceiveAddress, type CoreDeps } from '../wallets/wallets.ts';

const params = chainParams('litecoin', 'regtest');
const COIN = 100_000_000n;
const [alice, bob, carol] = [testCosigner('alice'), testCosigner('bob'), testCosigner('carol')];
const dave = testCosigner('dave');

let desk: RegtestDesk;
let store: CoordinatorStore;
let deps: CoreDeps;
let walletId: string;
let dbPath: string;

// The real client, the given methods replacing its own.
const withApi = (api: Partial<CoordinatorApi>): CoreDeps => ({ ...deps, api: apiWith(desk.api, api) });
const fund = async (address: string, amount: bigint) => desk.node.fundScript(addressToScript(params, address), amount);

beforeAll(async () => {
  desk = await startRegtestDesk();
  dbPath = join(desk.dir, 'desk.sqlite');
  store = openStore(dbPath);
  const api: CoordinatorApi = desk.api;
  deps = { store, api, actor: 'treasurer' };
  const wallet = await createWallet(deps, { coin: 'litecoin', network: 'regtest', name: 'Treasury', m: 2, cosigners: [alice, bob, carol] });
  walletId = wallet.id;
  const first = await nextReceiveAddress(deps, walletId);
  await fund(first.address, 2n * COIN);
  await desk.synced();
  const second = await nextReceiveAddress(deps, walletId);
  await fund(second.address, 1n * COIN);
  await desk.mine(1);
});
afterAll(async () => {
  store?.close();
  await desk?.dispose();
});

describe('wallets', () => {
  it('moves past used ones, storing the used addresses and the next (each checked with the service), not the gap beyond', async () => {
    const next = await nextReceiveAddress(deps, walletId);
    expect(next.index).toBe(2);
    expect(store.addresses(walletId).filter((a) => !a.change).map((a) => a.index)).toEqual([0, 1, 2]);
  });

  it('refuses a wallet when the service derives a different address', async () => {
    const lying = withApi({
      toNetworkAddresses: async (keys) => {
        const answer = await desk.api.toNetworkAddresses(keys);
        return answer.map((a) => ({ ...a, addresses: a.addresses.map((x) => (x.coin === 'litecoin' ? { ...x, network_address: 'QfakeAddress' } : x)) }));
      },
    });
    // Another key order: the same keys in the same order are the stored wallet, refused before the service is asked.
    await expect(createWallet(lying, { coin: 'litecoin', network: 'regtest', name: 'Bad', m: 2, cosigners: [carol, bob, alice] })).rejects.toThrow(/this app derives .* but the service says QfakeAddress/);
    expect(store.wallets()).toHaveLength(1);
  });
});

describe('a payment from proposal to confirmation', () => {
  it('proposes, collects three co-signers\' files, submits, confirms', async () => {
    const to = await desk.node.newAddress('legacy');
    const operator = await desk.node.newAddress('legacy');
    const p = await proposePayment(deps, walletId, { to, amount: COIN + COIN / 4n, minersFee: 20_000n, operatorFee: { address: operator, amount: 50_000n } });
    expect(p.state).toBe('awaiting_signatures');
    expect(p.totalInputValue).toBe(2n * COIN); // the older 2 LTC output alone covers it

    const request = await writeSigningRequest(deps, p.id);
    const opened = openSigningRequest(request);
    expect(opened.outputs.map((o) => [o.purpose, o.amount])).toEqual([
      ['payment', COIN + COIN / 4n],
      ['operator_fee', 50_000n],
      ['change', 2n * COIN - COIN - COIN / 4n - 50_000n - 20_000n],
    ]);
    // Change goes to the wallet's first change address, not back to a receive address.
    const changeAt = (i: number) => store.addresses(walletId).find((x) => x.change && x.index === i)!.address;
    expect(opened.outputs.find((o) => o.purpose === 'change')!.address).toBe(changeAt(0));
    // A second payment proposed while the first is in flight gets the next change address.
    const second = await proposePayment(deps, walletId, { to, amount: COIN / 10n, minersFee: 20_000n });
    expect(openSigningRequest(await writeSigningRequest(deps, second.id)).outputs.find((o) => o.purpose === 'change')!.address).toBe(changeAt(1));
    cancelPayment(deps, second.id, 'test: only the first change address was asked for');
    const a = signRequest(request, { xprv: alice.masterXprv }); // master key: derives the account itself
    const b = signRequest(request, { xprv: bob.accountXprv });
    const c = signRequest(request, { mnemonic: carol.mnemonic }); // recovery words: master, then the account
    const misspelled = carol.mnemonic.split(' ').map((w, i) => (i === 3 ? `${w}x` : w)).join(' ');
    expect(() => signRequest(request, { mnemonic: misspelled })).toThrow(/not a valid BIP39 mnemonic/);
    expect(() => signRequest(request, { mnemonic: carol.mnemonic, passphrase: 'wrong' })).toThrow(/not one of the wallet's co-signers/);

    // Submitting early is refused.
    await expect(submitPayment(deps, p.id)).rejects.toThrow(/signatures are missing/);
    const results = importSignatureFiles(deps, [
      { name: 'alice.json', text: a.file },
      { name: 'alice-again.json', text: a.file },
      { name: 'bob.json', text: b.file },
    ]);
    expect(results.map((r) => r.status)).toEqual(['imported', 'duplicate', 'imported']);
    expect(results[0]!.progress).toEqual([{ inputIndex: 0, required: 2, signed: 1, signers: ['alice'] }]);
    expect(progress(deps, p.id)).toMatchObject({ state: 'ready', complete: true, inputs: [{ signed: 2, signers: ['alice', 'bob'] }] });
    const late = importSignatureFiles(deps, [{ name: 'carol.json', text: c.file }])[0]!;
    expect(late).toMatchObject({ status: 'refused', refusal: 'stale' });
    expect(late.message).toMatch(/carol.json: payment .* is ready, no longer awaiting signatures/);

    // A rejected broadcast keeps the payment ready with the node's reason; a retry goes through.
    const rejecting = withApi({ signAndSendMultisig: () => Promise.reject(new ApiClientError(400, 'the node refused: min relay fee not met')) });
    await expect(submitPayment(rejecting, p.id)).rejects.toThrow(/stays ready to retry.*min relay fee not met/);
    expect(store.payment(p.id)).toMatchObject({ state: 'ready', lastError: 'the node refused: min relay fee not met' });

    const sent = await submitPayment(deps, p.id);
    expect(sent.state).toBe('broadcast');
    expect(sent.txid).toMatch(/^[0-9a-f]{64}$/);
    await desk.synced();
    expect((await refreshConfirmations(deps, p.id)).state).toBe('broadcast');
    await desk.mine(1);
    const done = await refreshConfirmations(deps, p.id);
    expect(done).toMatchObject({ state: 'confirmed', confirmations: 1 });

    const onChain = await desk.node.rpc.call<{ confirmations: number; vout: { value: number; scriptPubKey: { hex: string } }[] }>('getrawtransaction', [sent.txid, true]);
    expect(onChain.confirmations).toBe(1);
    expect(onChain.vout.map((v) => [v.scriptPubKey.hex, BigInt(Math.round(v.value * 1e8))])).toEqual(
      opened.outputs.map((o) => [bytesToHex(addressToScript(params, o.address)), o.amount]),
    );
    expect(store.auditLog().map((e) => e.action)).toEqual(
      expect.arrayContaining(['wallet.create', 'payment.propose', 'signature.import', 'payment.ready', 'payment.broadcast_rejected', 'payment.broadcast', 'payment.confirmed']),
    );
  });
});

describe('refusals', () => {
  const proposal = async () => ({ to: await desk.node.newAddress('legacy'), amount: COIN / 10n, minersFee: 10_000n });

  it('refuses a service answer whose output differs from what was asked', async () => {
    const before = store.payments().length;
    const cheating = withApi({
      createMultisig: async (coin, body) => {
        const created = await desk.api.createMultisig(coin, body);
        const tx = decodeTxHex(created.tx);
        tx.outputs[0]!.value += 1000n;
        return { ...created, tx: encodeTxHex(tx) };
      },
    });
    await expect(proposePayment(cheating, walletId, await proposal())).rejects.toThrow(/refusing the proposed payment: output 0 \(payment\) pays 0\.10001 LTC \(regtest\) instead of 0\.1 LTC \(regtest\)/);
    const redirecting = withApi({
      createMultisig: async (coin, body) => desk.api.createMultisig(coin, { ...body, to: await desk.node.newAddress('legacy') }),
    });
    await expect(proposePayment(redirecting, walletId, await proposal())).rejects.toThrow(/output 0 \(payment\) pays .* instead of/);
    expect(store.payments()).toHaveLength(before);
  });

  it('refuses a service that lies about what an input holds (the previous transaction says otherwise)', async () => {
    const before = store.payments().length;
    const inflating = withApi({ utxos: async (coin, addresses) => {
      const real = await desk.api.utxos(coin, addresses);
      return { utxos: real.utxos.map((u) => ({ ...u, amount: u.amount + 5_000_000n })) };
    } });
    // The service builds with its own (true) amounts, so the totals differ first; make it agree too.
    const agreeing = withApi({
      utxos: inflating.api.utxos,
      createMultisig: async (coin, body) => {
        const created = await desk.api.createMultisig(coin, body);
        return { ...created, total_input_value: created.total_input_value + 5_000_000n * BigInt(decodeTxHex(created.tx).inputs.length) };
      },
    });
    // The desk reads each input's amount from its previous transaction, never from the listing: the lie is named at the coin it was told of.
    await expect(proposePayment(agreeing, walletId, await proposal())).rejects.toThrow(/the service lists [0-9a-f]{64}:\d+ as holding [\d.]+ LTC \(regtest\); its transaction says [\d.]+ LTC \(regtest\)/);
    const forging = withApi({
      rawTransaction: async (coin, txid) => {
        const tx = decodeTxHex((await desk.api.rawTransaction(coin, txid)).hex);
        tx.outputs[0]!.value += 5_000_000n;
        return { txid, hex: encodeTxHex(tx) };
      },
    });
    await expect(proposePayment(forging, walletId, await proposal())).rejects.toThrow(/answered previous transaction [0-9a-f]{64} with another transaction/);
    expect(store.payments()).toHaveLength(before);
  });

  it('refuses a service answer whose hash differs from the recomputed one', async () => {
    const before = store.payments().length;
    const badHash = withApi({
      createMultisig: async (coin, body) => {
        const created = await desk.api.createMultisig(coin, body);
        return { ...created, hashes: created.hashes.map((h, i) => (i === 1 ? { ...h, hash_to_sign: '00'.repeat(32) } : h)) };
      },
    });
    await expect(proposePayment(badHash, walletId, await proposal())).rejects.toThrow(/the hash of input 0 for key [0-9a-f]+ is 0{64}, this app computes [0-9a-f]{64}/);
    expect(store.payments()).toHaveLength(before);
  });

  it('refuses malformed, tampered, foreign and stale files, keeping what was there', async () => {
    const p = await proposePayment(deps, walletId, await proposal());
    const request = await writeSigningRequest(deps, p.id);
    const good = signRequest(request, { xprv: alice.accountXprv }).file;
    const json = JSON.parse(good) as { payment_hash: string; signer: { xpub: string }; signatures: { signature: string; public_key: string }[] };
    const edit = (f: (j: typeof json) => void) => {
      const copy = structuredClone(json);
      f(copy);
      return JSON.stringify(copy);
    };
    const flip = (hex: string) => hex.slice(0, -2) + (hex.endsWith('00') ? '01' : '00');
    const results = importSignatureFiles(deps, [
      { name: 'not-json.json', text: '{"format": ' },
      { name: 'wrong-shape.json', text: JSON.stringify({ format: 'countersign-signature', version: 1 }) },
      { name: 'other-tx.json', text: edit((j) => (j.payment_hash = flip(j.payment_hash))) },
      { name: 'bad-sig.json', text: edit((j) => (j.signatures[0]!.signature = flip(j.signatures[0]!.signature))) },
      { name: 'dave.json', text: edit((j) => (j.signer.xpub = dave.xpub)) },
      { name: 'wrong-key.json', text: edit((j) => (j.signatures[0]!.public_key = '02' + '11'.repeat(32))) },
      { name: 'alice.json', text: good },
    ]);
    expect(results.map((r) => [r.file, r.status, r.refusal])).toEqual([
      ['not-json.json', 'refused', 'malformed'],
      ['wrong-shape.json', 'refused', 'malformed'],
      ['other-tx.json', 'refused', 'tampered'],
      ['bad-sig.json', 'refused', 'tampered'],
      ['dave.json', 'refused', 'foreign'],
      ['wrong-key.json', 'refused', 'foreign'],
      ['alice.json', 'imported', undefined],
    ]);
    expect(results[0]!.message).toBe('not-json.json: not a signature file: it is a file that is not valid JSON (cut short, or edited by hand); ask for the file again');
    expect(results[1]!.message).toMatch(/malformed signature file: request_id/);
    const misdirected = importSignatureFiles(deps, [{ name: 'request.json', text: JSON.stringify({ format: 'countersign-signing-request', version: 1 }) }])[0]!;
    expect(misdirected.message).toBe('request.json: not a signature file: it is a Countersign signing request; send it to a co-signer, who signs it (in Co-signer mode) and sends back the signature file to import here');
    expect(results[2]!.message).toMatch(/is not the hash of payment .* transaction/);
    expect(results[3]!.message).toMatch(/signature of input 0 by alice does not verify/);
    expect(results[4]!.message).toMatch(/is not a co-signer of this wallet/);
    expect(results[5]!.message).toMatch(/does not sign input 0/);
    expect(store.signatures(p.id)).toHaveLength(1);

    // Tampered or malformed requests are refused by the co-signer before signing.
    const req = JSON.parse(request) as { outputs: { amount: string }[]; unsigned_tx: string };
    req.outputs[0]!.amount = (BigInt(req.outputs[0]!.amount) + 1n).toString();
    expect(() => signRequest(JSON.stringify(req), { xprv: bob.accountXprv })).toThrow(/output 0 \(payment\) pays 0\.1 LTC \(regtest\) instead of 0\.10000001 LTC \(regtest\)/);
    expect(() => signRequest('[]', { xprv: bob.accountXprv })).toThrow(/malformed signing-request file/);
    expect(() => signRequest(request, { xprv: dave.accountXprv })).toThrow(/not one of the wallet's co-signers/);
    // An input amount raised (with the fee kept consistent) is caught by the previous transaction the
    // request carries; a request without it is refused (signing-request-versions.test.ts: version 1 files).
    const inflated = JSON.parse(request) as { inputs: { amount: string }[]; miners_fee: string };
    inflated.inputs[0]!.amount = (BigInt(inflated.inputs[0]!.amount) + 5_000_000n).toString();
    inflated.miners_fee = (BigInt(inflated.miners_fee) + 5_000_000n).toString();
    expect(() => signRequest(JSON.stringify(inflated), { xprv: bob.accountXprv })).toThrow(/input 0: output \d+ of [0-9a-f]{64} holds [0-9.]+ LTC \(regtest\), not the [0-9.]+ LTC \(regtest\) expected/);
    const bare = JSON.parse(request) as { inputs: { previous_txid: string }[]; previous_transactions: Record<string, string> };
    delete bare.previous_transactions[bare.inputs[0]!.previous_txid];
    expect(() => signRequest(JSON.stringify(bare), { xprv: bob.accountXprv })).toThrow(/input 0 spends from [0-9a-f]{64}, which is not among the request's previous transactions/);

    cancelPayment(deps, p.id, 'treasurer changed their mind');
    const stale = importSignatureFiles(deps, [{ name: 'bob.json', text: signRequest(request, { xprv: bob.accountXprv }).file }])[0]!;
    expect(stale).toMatchObject({ status: 'refused', refusal: 'stale' });
    expect(stale.message).toMatch(/is cancelled, no longer awaiting signatures/);
    expect(store.payment(p.id)).toMatchObject({ state: 'cancelled', reason: 'treasurer changed their mind' });
    expect(store.signatures(p.id)).toHaveLength(1);
  });
});

describe('crash safety', () => {
  it('a child killed mid-import keeps the committed file and leaves no half-written payment', async () => {
    const p = await proposePayment(deps, walletId, { to: await desk.node.newAddress('legacy'), amount: COIN / 20n, minersFee: 10_000n });
    const request = await writeSigningRequest(deps, p.id);
    const files = [alice, bob].map((c) => {
      const path = join(desk.dir, `${c.name}-crash.json`);
      writeFileSync(path, signRequest(request, { xprv: c.accountXprv }).file);
      return path;
    });
    const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, '../../../dev/desk-testing/import-child.ts'), dbPath, ...files], { stdio: ['ignore', 'pipe', 'inherit'] });
    const firstLine = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (d: Buffer) => resolve(d.toString()));
      child.on('exit', (code) => reject(new Error(`child exited early (${code})`)));
    });
    expect(firstLine).toMatch(/^committed alice-crash.json imported/);
    child.kill('SIGKILL');
    await new Promise((r) => child.on('exit', r));

    const reopened = openStore(dbPath);
    try {
      expect(reopened.signatures(p.id).map((s) => s.source)).toEqual(['alice-crash.json']);
      expect(reopened.payment(p.id)!.state).toBe('awaiting_signatures');
      for (const pay of reopened.payments()) {
        expect(reopened.paymentInputs(pay.id).length).toBeGreaterThan(0);
        expect(reopened.paymentHashes(pay.id)).toHaveLength(reopened.paymentInputs(pay.id).length * 3);
      }
      expect(reopened.auditLog().filter((e) => e.actor === 'crash-child').map((e) => e.source)).toEqual(['alice-crash.json']);
    } finally {
      reopened.close();
    }
  });
});
