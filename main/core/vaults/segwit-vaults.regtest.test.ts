// Segwit vaults on a real litecoind -regtest with the embedded service: a 2-of-3 P2WSH and a 2-of-3
// P2SH-P2WSH wallet (BIP67-sorted keys) each funded and paid from with two co-signers' signature
// files; a legacy P2SH wallet of the same keys pays beside the P2WSH one and both vsizes are printed.
// Refusals leave nothing broadcast and nothing lost: a signature over another amount (desk and
// service), a witness script that does not hash to the output, change in another address type, a
// service whose input amounts disagree with the previous transactions.
import { BIP32Factory } from 'bip32';
import * as ecc from 'tiny-secp256k1';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClientError } from '../../../shared/api/client.ts';
import { multisigInputHash } from '../../../shared/coins/assemble-multisig.ts';
import { addressToScript, bytesToHex, chainParams, decodeTxHex, encodeTxHex, hexToBytes, scriptToAddress, signDer } from '../../../shared/coins/index.ts';
import type { BitcoinTx } from '../../../shared/coins/tx.ts';
import { multisigScripts, p2wshScript, type MultisigScriptType } from '../../../shared/coins/multisig-script.ts';
import { SIGNATURE_FORMAT, type SignatureFileV1 } from '../../../shared/files/signing-files.ts';
import type { CoordinatorApi } from '../api.ts';
import { cancelPayment } from '../payments/payments.ts';
import { proposePayment } from '../payments/propose.ts';
import { importSignatureFiles } from '../payments/signature-import.ts';
import { openSigningRequest, writeSigningRequest } from '../payments/signing-request.ts';
import { signRequest } from '../software-signer.ts';
import { openStore, type CoordinatorStore } from '../store/store.ts';
import { refreshConfirmations, submitPayment } from '../payments/submit.ts';
import { testCosigner } from '../../../dev/desk-testing/keys.ts';
import { startRegtestDesk, type RegtestDesk, apiWith } from '../../../dev/desk-testing/regtest.ts';
import { createWallet, nextReceiveAddress, type CoreDeps } from '../wallets/wallets.ts';
import { walletAddress } from '../wallets/script.ts';

const params = chainParams('litecoin', 'regtest');
const COIN = 100_000_000n;
const cosigners = [testCosigner('alice'), testCosigner('bob'), testCosigner('carol')];
const [alice, bob] = cosigners as [(typeof cosigners)[0], (typeof cosigners)[0]];

let desk: RegtestDesk;
let store: CoordinatorStore;
let deps: CoreDeps;
const wallets: Record<string, string> = {};
const vsizes: Record<string, number> = {};

const withApi = (api: Partial<CoordinatorApi>): CoreDeps => ({ ...deps, api: apiWith(desk.api, api) });

interface Decoded {
  txid: string;
  vsize: number;
  weight: number;
  confirmations?: number;
  vin: { txinwitness?: string[]; scriptSig: { hex: string } }[];
}

const KINDS: [string, MultisigScriptType, boolean][] = [
  ['p2wsh', 'p2wsh', true],
  ['p2sh-p2wsh', 'p2sh-p2wsh', true],
  ['p2sh', 'p2sh', false],
];

beforeAll(async () => {
  desk = await startRegtestDesk();
  store = openStore(`${desk.dir}/segwit-desk.sqlite`);
  deps = { store, api: desk.api, actor: 'treasurer' };
  for (const [name, scriptType, sortKeys] of KINDS) {
    const w = await createWallet(deps, { coin: 'litecoin', network: 'regtest', name, m: 2, cosigners, scriptType, sortKeys });
    wallets[name] = w.id;
    const first = await nextReceiveAddress(deps, w.id);
    await desk.node.fundScript(addressToScript(params, first.address), 2n * COIN);
  }
  await desk.mine(1);
}, 180_000);
afterAll(async () => {
  store?.close();
  await desk?.dispose();
});

describe('segwit wallets', () => {
  it('store their type and key order; addresses agree with the service and are of that type', () => {
    const shapes = KINDS.map(([name]) => {
      const w = store.wallet(wallets[name]!)!;
      const a = store.addresses(w.id)[0]!;
      return [w.scriptType, w.sortKeys, a.address.slice(0, 6).replace(/[0-9a-z]+$/i, (s) => (s.startsWith('rltc1') ? 'rltc1' : s[0]!))];
    });
    expect(shapes).toEqual([
      ['p2wsh', true, 'rltc1'],
      ['p2sh-p2wsh', true, 'Q'],
      ['p2sh', false, 'Q'],
    ]);
    // Stored script: the witness script for segwit (sorted keys), the redeem script for P2SH.
    const w = store.wallet(wallets['p2wsh']!)!;
    const a = store.addresses(w.id)[0]!;
    expect(bytesToHex(a.redeemScript)).toBe(bytesToHex(walletAddress(params, w, cosigners.map((c) => c.xpub), false, 0).redeemScript));
  });

  it('a coin without segwit refuses a segwit wallet, naming the coin', async () => {
    await expect(createWallet(deps, { coin: 'dash', network: 'regtest', name: 'x', m: 2, cosigners: cosigners.map((c) => ({ ...c, xpub: testCosigner(c.name, chainParams('dash', 'regtest')).xpub })), scriptType: 'p2wsh' })).rejects.toThrow(/dash.*has no segwit/);
  });
});

async function payFrom(name: string): Promise<Decoded> {
  const walletId = wallets[name]!;
  const to = await desk.node.newAddress('bech32');
  const p = await proposePayment(deps, walletId, { to, amount: COIN / 2n, minersFee: 20_000n });
  const request = await writeSigningRequest(deps, p.id);
  const opened = openSigningRequest(request);
  const w = store.wallet(walletId)!;
  expect(opened.request.wallet.script_type ?? 'p2sh').toBe(w.scriptType);
  // Change back to the wallet, in its own type.
  const change = opened.outputs.find((o) => o.purpose === 'change')!;
  expect(change.address).toBe(walletAddress(params, w, cosigners.map((c) => c.xpub), true, 0).address);
  const files = [signRequest(request, { xprv: alice.masterXprv }), signRequest(request, { xprv: bob.accountXprv })];
  const results = importSignatureFiles(deps, files.map((f, i) => ({ name: `signer-${i}.json`, text: f.file })));
  expect(results.map((r) => r.status)).toEqual(['imported', 'imported']);
  const sent = await submitPayment(deps, p.id);
  await desk.mine(1);
  expect((await refreshConfirmations(deps, p.id)).state).toBe('confirmed');
  return desk.node.rpc.call<Decoded>('getrawtransaction', [sent.txid, true]);
}

describe('paying from each vault with two signature files', () => {
  it.each(KINDS.map(([n]) => n))('%s: proposed, signed by alice and bob, broadcast and confirmed; the witness is ours', async (name) => {
    const w = store.wallet(wallets[name]!)!;
    const decoded = await payFrom(name);
    expect(decoded.confirmations).toBe(1);
    const script = bytesToHex(walletAddress(params, w, cosigners.map((c) => c.xpub), false, 0).redeemScript);
    const vin = decoded.vin[0]!;
    if (w.scriptType === 'p2sh') {
      expect(vin.txinwitness).toBeUndefined();
      expect(vin.scriptSig.hex.endsWith(script)).toBe(true);
    } else {
      // <empty> <two signatures> <witness script>
      expect(vin.txinwitness).toHaveLength(4);
      expect(vin.txinwitness![0]).toBe('');
      expect(vin.txinwitness![3]).toBe(script);
      // P2WSH: empty; P2SH-P2WSH: the push of 0020<sha256(witness script)>.
      expect(vin.scriptSig.hex).toBe(w.scriptType === 'p2wsh' ? '' : `22${bytesToHex(p2wshScript(hexToBytes(script)))}`);
    }
    vsizes[name] = decoded.vsize;
    console.log(`${name} 2-of-3 wallet payment (1 input, payment + change): vsize ${decoded.vsize}, weight ${decoded.weight}`);
  });

  it('the P2WSH payment is smaller than the legacy P2SH payment of the same keys', () => {
    console.log(`side by side: P2SH vsize ${vsizes['p2sh']}, P2WSH vsize ${vsizes['p2wsh']}, P2SH-P2WSH vsize ${vsizes['p2sh-p2wsh']}`);
    expect(vsizes['p2wsh']).toBeLessThan(vsizes['p2sh']!);
  });
});

describe('refusals: nothing broadcast, nothing lost', () => {
  const proposal = async () => ({ to: await desk.node.newAddress('bech32'), amount: COIN / 10n, minersFee: 10_000n });
  const balance = async (name: string) => (await desk.api.utxos('litecoin', store.addresses(wallets[name]!).map((a) => a.address))).utxos.reduce((s, u) => s + u.amount, 0n);

  it('a signature over another amount: refused at import (desk) and by sign_and_send (service)', async () => {
    const walletId = wallets['p2wsh']!;
    const before = await balance('p2wsh');
    const p = await proposePayment(deps, walletId, await proposal());
    const w = store.wallet(walletId)!;
    const [input] = store.paymentInputs(p.id);
    const tx = decodeTxHex(bytesToHex(p.unsignedTx)) as BitcoinTx;
    const wrongHash = multisigInputHash(params, tx, 0, { scriptType: w.scriptType, multisigScript: input!.redeemScript, amount: input!.amount + 1n });
    const network = { messagePrefix: '', bech32: '', bip32: { public: params.xpubVersions[0]!, private: params.xprvVersions[0]! }, pubKeyHash: 0, scriptHash: 0, wif: params.wifVersion };
    const child = BIP32Factory(ecc).fromBase58(bob.accountXprv, network).derivePath(`${input!.change ? 1 : 0}/${input!.index}`);
    const publicKey = bytesToHex(child.publicKey);
    const file: SignatureFileV1 = {
      format: SIGNATURE_FORMAT,
      version: 1,
      request_id: p.id,
      payment_hash: openSigningRequest(await writeSigningRequest(deps, p.id)).request.payment_hash,
      signer: { name: 'bob', xpub: bob.xpub },
      signatures: [{ input_index: 0, public_key: publicKey, signature: bytesToHex(signDer(wrongHash, child.privateKey!)) }],
      created_at: new Date().toISOString(),
    };
    const [result] = importSignatureFiles(deps, [{ name: 'bob-wrong-amount.json', text: JSON.stringify(file) }]);
    expect(result).toMatchObject({ status: 'refused', refusal: 'tampered' });
    expect(result!.message).toMatch(/the signature of input 0 by bob does not verify against the input's hash/);

    // The service, given the same signature beside a good one, refuses naming the input and the key.
    const good = JSON.parse(signRequest(await writeSigningRequest(deps, p.id), { xprv: alice.masterXprv }).file) as SignatureFileV1;
    const signatures = [...good.signatures, file.signatures[0]!].map((s) => ({ ...s, hash_to_sign: '' }));
    const refused = desk.api.signAndSendMultisig('litecoin', { tx: bytesToHex(p.unsignedTx), signatures });
    await expect(refused).rejects.toThrow(new RegExp(`input 0, public key ${publicKey}: the signature does not verify against this transaction's BIP143 hash`));
    await expect(refused).rejects.toBeInstanceOf(ApiClientError);
    expect(await balance('p2wsh')).toBe(before);
    cancelPayment(deps, p.id, 'test: releases the wallet\'s one output for the next test');
  });

  it('a witness script that does not hash to the output: refused by the desk and by the service', async () => {
    const walletId = wallets['p2wsh']!;
    const before = await balance('p2wsh');
    const p = await proposePayment(deps, walletId, await proposal());
    const tx = decodeTxHex(bytesToHex(p.unsignedTx)) as BitcoinTx;
    const [input] = store.paymentInputs(p.id);
    // The same keys in another order: a valid multisig script, but not the one the output commits to.
    const [k0, k1, ...rest] = walletAddress(params, store.wallet(walletId)!, cosigners.map((c) => c.xpub), input!.change, input!.index).scriptKeys;
    const other = multisigScripts(params, 2, [k1!, k0!, ...rest], { scriptType: 'p2wsh', sortKeys: false }).multisigScript;
    expect(bytesToHex(other)).not.toBe(bytesToHex(input!.redeemScript));
    tx.inputs[0]!.witness = [other];
    const forgedTx = encodeTxHex(tx);
    // The wallet's one output is reserved by p until it is cancelled (main/core/payments/coin-selection.ts).
    cancelPayment(deps, p.id, 'test: its output is proposed again');
    const swapping = withApi({ createMultisig: async (coin, body) => ({ ...(await desk.api.createMultisig(coin, body)), tx: forgedTx }) });
    await expect(proposePayment(swapping, walletId, await proposal())).rejects.toThrow(/refusing the proposed payment: input 0 does not spend from this wallet's addresses/);
    await expect(desk.api.signAndSendMultisig('litecoin', { tx: forgedTx, signatures: [] })).rejects.toThrow(/input 0: the witness script does not hash to the output this input spends/);
    expect(await balance('p2wsh')).toBe(before);
  });

  it('change in another address type (the P2SH of the same keys) is refused', async () => {
    const walletId = wallets['p2wsh']!;
    const before = store.payments().length;
    const legacyChange = withApi({
      createMultisig: async (coin, body) => {
        const created = await desk.api.createMultisig(coin, body);
        const tx = decodeTxHex(created.tx);
        const change = tx.outputs[tx.outputs.length - 1]!;
        const owner = store.addresses(walletId).find((a) => scriptToAddress(params, change.script) === a.address)!;
        const keys = walletAddress(params, store.wallet(walletId)!, cosigners.map((c) => c.xpub), owner.change, owner.index).scriptKeys;
        change.script = multisigScripts(params, 2, keys, { scriptType: 'p2sh' }).scriptPubKey;
        return { ...created, tx: encodeTxHex(tx) };
      },
    });
    await expect(proposePayment(legacyChange, walletId, await proposal())).rejects.toThrow(/refusing the proposed payment: output 1 \(change\) pays Q\w+ instead of rltc1/);
    expect(store.payments()).toHaveLength(before);
  });

  it('a service whose stated input amounts disagree with the previous transactions is refused', async () => {
    const walletId = wallets['p2sh-p2wsh']!;
    const lying = withApi({
      createMultisig: async (coin, body) => {
        const created = await desk.api.createMultisig(coin, body);
        return { ...created, inputs: created.inputs!.map((i) => ({ ...i, amount: i.amount + 1n })) };
      },
    });
    await expect(proposePayment(lying, walletId, await proposal())).rejects.toThrow(/the service says input 0 spends [\d.]+ LTC \(regtest\) at .*; the previous transaction says/);
  });
});
