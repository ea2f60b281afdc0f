// A 500-input payment through the desk's own bridge, in web mode, on litecoind -regtest (issue 32):
// its 500 inputs come from 10 transactions of the node's wallet (sendmany, 50 outputs each). The
// signing request carries each of the 10 once (version 2); co-signer mode opens and signs it, and
// the same request written as version 1 (each input carrying its transaction: above 1 MB, which
// the desk refused before); the payment confirms. A second one goes out and back as PSBTs (BIP174
// carries the previous transaction per input: above 1 MB too), signed by another wallet, and
// confirms. A request whose table of previous transactions lies is refused in words.
// A P2WSH wallet: 500 P2SH multisig inputs (~297 bytes each) would pass the 100,000-vbyte
// standard transaction limit, 500 P2WSH ones (~105 vbytes) do not.
import { BIP32Factory } from 'bip32';
import { Psbt } from 'bitcoinjs-lib';
import * as ecc from 'tiny-secp256k1';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_FILE_BYTES } from '../../../shared/api/file-limits.ts';
import { parseApiJson } from '../../../shared/api/json.ts';
import { bytesToHex, chainParams, decodeTx, hexToBytes } from '../../../shared/coins/index.ts';
import type { SigningRequestV1, SigningRequestV2 } from '../../../shared/files/signing-files.ts';
import { jsNetwork, testCosigner } from '../../../dev/desk-testing/keys.ts';
import { startRegtestDesk, type RegtestDesk } from '../../../dev/desk-testing/regtest.ts';
import { createHandlers } from '../../bridge/handlers.ts';
import { startWebServer, type WebServer } from '../../web/server.ts';
import { ServiceConnection } from '../chains/connection.ts';
import { MemorySecretStore } from '../secrets.ts';
import { openStore, type CoordinatorStore } from '../store/store.ts';
import { refreshConfirmations } from './submit.ts';
import { createWallet, ensureAddresses } from '../wallets/wallets.ts';
import { proposePayment } from './propose.ts';
import type { BirthdayDeps } from '../wallets/birthday.ts';

const bip32 = BIP32Factory(ecc);
const params = chainParams('litecoin', 'regtest');
const INPUTS = 500;
const SOURCES = 10;
const [alice, bob, carol] = [testCosigner('alice'), testCosigner('bob'), testCosigner('carol')];
const network = jsNetwork(params);

let desk: RegtestDesk;
let store: CoordinatorStore;
let deps: BirthdayDeps;
let web: WebServer;
let walletId: string;

type Answer = { ok: true; value: Record<string, unknown> } | { ok: false; error: { code: string; message: string } };
/** One bridge call as the page makes it in web mode: POST /bridge/<channel> with the run's token. */
async function call(channel: string, input: unknown): Promise<Answer> {
  const res = await fetch(`${web.url}/bridge/${channel}`, { method: 'POST', headers: { authorization: `Bearer ${web.token}`, 'content-type': 'application/json' }, body: JSON.stringify(input) });
  return parseApiJson(await res.text()) as Answer;
}
async function value(channel: string, input: unknown): Promise<Record<string, unknown>> {
  const r = await call(channel, input);
  if (!r.ok) throw new Error(`${channel}: ${r.error.code}: ${r.error.message}`);
  return r.value;
}

/** 500 outputs to the wallet's first 500 receive addresses, 50 by each of 10 transactions; confirmed. */
async function fund(): Promise<string[]> {
  const receive = store.addresses(walletId).filter((a) => !a.change).slice(0, INPUTS);
  const txids: string[] = [];
  for (let t = 0; t < SOURCES; t++) {
    const part = receive.slice(t * (INPUTS / SOURCES), (t + 1) * (INPUTS / SOURCES));
    txids.push(await desk.node.walletRpc.call<string>('sendmany', ['', Object.fromEntries(part.map((a) => [a.address, 0.01]))]));
  }
  await desk.mine(1);
  return txids;
}

/** Every free output of the wallet to the node: a payment of 500 inputs. */
async function proposeAll(): Promise<string> {
  const p = await proposePayment(deps, walletId, { to: await desk.node.newAddress('bech32'), amount: 0n, minersFee: 0n, feeRate: 2n, sendAll: true });
  expect(decodeTx(p.unsignedTx, params).inputs).toHaveLength(INPUTS);
  return p.id;
}

async function submitAndConfirm(paymentId: string): Promise<void> {
  expect(await value('payments.submit', { payment_id: paymentId })).toMatchObject({ state: 'broadcast' });
  await desk.mine(1);
  expect(await refreshConfirmations(deps, paymentId)).toMatchObject({ state: 'confirmed', confirmations: 1 });
}

/** The same request as a desk before version 2 wrote it: each input carrying its previous transaction. */
function asVersion1(text: string): string {
  const { previous_transactions: table, ...r } = JSON.parse(text) as SigningRequestV2;
  const inputs = r.inputs.map(({ previous_txid, ...inp }) => ({ ...inp, previous_tx: table[previous_txid]! }));
  const v1: SigningRequestV1 = { ...r, version: 1, inputs };
  return JSON.stringify(v1, null, 2);
}

beforeAll(async () => {
  desk = await startRegtestDesk();
  store = openStore(join(desk.dir, 'large-request.sqlite'));
  deps = { store, api: desk.api, actor: 'treasurer' };
  walletId = (await createWallet(deps, { coin: 'litecoin', network: 'regtest', name: 'Long-lived', m: 2, cosigners: [alice, bob, carol], scriptType: 'p2wsh', sortKeys: true })).id;
  for (let from = 0; from < INPUTS; from += 50) await ensureAddresses(deps, walletId, false, from, from + 50);
  const connection = new ServiceConnection({ store, secrets: new MemorySecretStore(), embeddedUrl: desk.url, actor: 'treasurer' });
  web = await startWebServer({ handlers: createHandlers({ store, connection, actor: 'treasurer' }), rendererDir: join(desk.dir, 'no-renderer') });
}, 300_000);
afterAll(async () => {
  await web?.close();
  store?.close();
  await desk?.dispose();
});

describe(`a payment of ${INPUTS} inputs from ${SOURCES} transactions`, () => {
  it('goes out as a signing request carrying each transaction once, is signed in co-signer mode from it and from its version 1 form, and confirms', async () => {
    const sources = await fund();
    const paymentId = await proposeAll();
    const { text } = (await value('payments.exportRequest', { payment_id: paymentId })) as { text: string };
    // Co-signer mode opens what the desk wrote (before version 2: refused, "a file above 1 MB is not a Countersign file").
    const opened = (await value('cosigner.open', { text })) as { inputs: unknown[]; m: number };
    expect(opened.inputs).toHaveLength(INPUTS);
    const request = JSON.parse(text) as SigningRequestV2;
    expect(request.version).toBe(2);
    expect(Object.keys(request.previous_transactions).sort()).toEqual([...sources].sort());
    // The version 1 form of this request is above 1 MB (2.8 MB); version 2 is a fifth of it.
    const old = asVersion1(text);
    expect(old.length).toBeGreaterThan(1_000_000);
    expect(text.length).toBeLessThan(old.length / 3);
    expect((await value('cosigner.open', { text: old })).inputs).toHaveLength(INPUTS);
    // alice signs the version 2 file, bob the version 1 file, each in co-signer mode.
    const signed = [
      (await value('cosigner.sign', { text, secret: alice.accountXprv })) as { file_name: string; text: string },
      (await value('cosigner.sign', { text: old, secret: bob.accountXprv })) as { file_name: string; text: string },
    ];
    const imported = (await value('payments.importSignatures', { files: signed.map((s) => ({ name: s.file_name, text: s.text })) })) as unknown as { status: string }[];
    expect(imported.map((r) => r.status)).toEqual(['imported', 'imported']);
    await submitAndConfirm(paymentId);
  }, 300_000);

  it('goes out as a PSBT, comes back signed by another wallet, and confirms', async () => {
    await fund();
    const paymentId = await proposeAll();
    const { text: base64 } = (await value('payments.exportPsbt', { payment_id: paymentId })) as { text: string };
    // BIP174 carries each input's previous transaction: 500 of them.
    expect(base64.length).toBeGreaterThan(1_000_000);
    const signedBy = (who: typeof alice) => {
      const psbt = Psbt.fromBase64(base64, { network });
      expect(psbt.data.inputs.every((i) => i.nonWitnessUtxo && i.witnessUtxo)).toBe(true);
      psbt.signAllInputsHD(bip32.fromBase58(who.masterXprv, network));
      return { name: `${who.name}.psbt`, text: psbt.toBase64() };
    };
    const imported = (await value('payments.importSignatures', { files: [signedBy(alice), signedBy(carol)] })) as unknown as { status: string; message: string }[];
    expect(imported.map((r) => r.status)).toEqual(['imported', 'imported']);
    expect(imported[0]!.message).toContain(`${INPUTS} signatures`);
    await submitAndConfirm(paymentId);
  }, 300_000);

  it('refuses, in words, a request whose previous transactions lie, and a file above the limit naming it', async () => {
    await fund();
    const paymentId = await proposeAll();
    const { text } = (await value('payments.exportRequest', { payment_id: paymentId })) as { text: string };
    const edited = (edit: (r: SigningRequestV2) => void): string => {
      const r = JSON.parse(text) as SigningRequestV2;
      edit(r);
      return JSON.stringify(r);
    };
    const refusal = async (t: string) => {
      const r = await call('cosigner.sign', { text: t, secret: alice.accountXprv });
      if (r.ok) throw new Error('signed');
      return r.error;
    };
    const [first, second] = Object.keys(JSON.parse(text).previous_transactions as object) as [string, string];
    expect(await refusal(edited((r) => (r.previous_transactions[first] = r.previous_transactions[second]!)))).toEqual({
      code: 'tampered',
      message: `the signing request ${paymentId} was altered or is inconsistent: the previous transaction listed as ${first} is another transaction (its bytes hash to ${second})`,
    });
    // The first input spending from the transaction left out is named.
    const missing = (JSON.parse(text) as SigningRequestV2).inputs[INPUTS - 1]!.previous_txid;
    const firstSpending = (JSON.parse(text) as SigningRequestV2).inputs.findIndex((i) => i.previous_txid === missing);
    expect(await refusal(edited((r) => delete r.previous_transactions[missing]))).toMatchObject({
      code: 'tampered',
      message: expect.stringMatching(new RegExp(`: input ${firstSpending} spends from ${missing}, which is not among the request's previous transactions$`)),
    });
    // An input's amount raised, the fee kept consistent: its previous transaction says otherwise.
    expect(
      await refusal(
        edited((r) => {
          r.inputs[7]!.amount = (BigInt(r.inputs[7]!.amount) + 100_000n).toString();
          r.miners_fee = (BigInt(r.miners_fee) + 100_000n).toString();
        }),
      ),
    ).toMatchObject({ code: 'tampered', message: expect.stringMatching(/input 7: output \d+ of [0-9a-f]{64} holds 0\.01 LTC \(regtest\), not the 0\.011 LTC \(regtest\) expected$/) });

    // A file above the limit is refused in words that say the limit, before anything reads it.
    const huge = `${text.slice(0, -1)}, "padding": "${'0'.repeat(MAX_FILE_BYTES * 2)}"}`;
    const big = await call('cosigner.open', { text: huge });
    expect(big).toMatchObject({ ok: false, error: { code: 'bad_input' } });
    expect(!big.ok && big.error.message).toMatch(/is larger than the 25\.2 MB the desk reads: no signing request, signature file, PSBT or set-up file is that large \(one of 1,000 inputs fits\)$/);
    const bigPick = await call('payments.importSignatures', { files: [{ name: 'huge.psbt', text: 'cHNidP8' + 'A'.repeat(MAX_FILE_BYTES * 2) }] });
    expect(!bigPick.ok && bigPick.error.message).toMatch(/"huge\.psbt" is larger than the 25\.2 MB the desk reads/);
    // The unsigned payment's own bytes are untouched by all this.
    expect(bytesToHex(store.payment(paymentId)!.unsignedTx)).toBe(JSON.parse(text).unsigned_tx);
    expect(hexToBytes(JSON.parse(text).unsigned_tx).length).toBeGreaterThan(INPUTS * 40);
  }, 300_000);
});
