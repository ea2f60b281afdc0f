// PSBTs of segwit vaults with an independent signer, on litecoind -regtest: a 2-of-3 P2WSH wallet
// (sorted keys, read from another wallet's descriptor) pays with one co-signer's signature from a
// PSBT signed by bitcoinjs-lib (playing Sparrow or Caravan) and one from a signature file signed
// here; litecoind confirms it. The exported PSBT carries what hardware and software signers need
// (both UTXO forms, scripts, key origins); a PSBT whose witness UTXO disagrees with its previous
// transaction is refused in words; a nested wallet's PSBT carries its redeem script too; the
// wallet's set-up files read back to the same wallet, and a P2SH PSBT is built as it always was.
import { BIP32Factory } from 'bip32';
import { Psbt } from 'bitcoinjs-lib';
import * as ecc from 'tiny-secp256k1';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addressToScript, bytesToHex, chainParams, decodeTx, p2wshScript } from '../../../shared/coins/index.ts';
import { deriveAddress } from '../../../shared/coins/multisig-address.ts';
import { parseDerivationPath } from '../../../shared/files/derivation-path.ts';
import { formatMultisigDescriptor } from '../../../shared/files/descriptor.ts';
import { INPUT, encodeWitnessUtxo, psbtFromBase64, psbtToBase64, withoutWitness } from '../../../shared/files/psbt.ts';
import { buildMultisigPsbt } from '../../../shared/files/psbt-multisig.ts';
import { parseXpubLike } from '../../../shared/files/xpub-bytes.ts';
import { importPaymentFiles } from './files.ts';
import { cancelPayment, progress } from './payments.ts';
import { exportPsbt, importPsbtFile } from './psbt-exchange.ts';
import { proposePayment } from './propose.ts';
import { importSignatureFiles } from './signature-import.ts';
import { writeSigningRequest } from './signing-request.ts';
import { signRequest } from '../software-signer.ts';
import { openStore, type CoordinatorStore } from '../store/store.ts';
import { refreshConfirmations, submitPayment } from './submit.ts';
import { jsNetwork, testCosigner } from '../../../dev/desk-testing/keys.ts';
import { startRegtestDesk, type RegtestDesk } from '../../../dev/desk-testing/regtest.ts';
import { exportWalletSetup, importWalletSetup, readWalletSetup } from '../wallets/setup-files.ts';
import { createWallet, nextReceiveAddress } from '../wallets/wallets.ts';
import type { BirthdayDeps } from '../wallets/birthday.ts';
import { coinAmount } from '../../../shared/coins/units.ts';

const bip32 = BIP32Factory(ecc);
const params = chainParams('litecoin', 'regtest');
const COIN = 100_000_000n;
const [alice, bob, carol] = [testCosigner('alice'), testCosigner('bob'), testCosigner('carol')];
// bitcoinjs-lib needs the chain's prefixes; it never sees the node.
const network = jsNetwork(params);
const master = (c: typeof alice) => bip32.fromBase58(c.masterXprv, network);
const regtest = { coin: 'litecoin', network: 'regtest' } as const;

let desk: RegtestDesk;
let store: CoordinatorStore;
let deps: BirthdayDeps;
let vault: string;
let nested: string;
let legacy: string;

const fund = async (walletId: string, amount: bigint) => {
  const a = await nextReceiveAddress(deps, walletId);
  await desk.node.fundScript(addressToScript(params, a.address), amount);
};
const propose = async (walletId: string) => proposePayment(deps, walletId, { to: await desk.node.newAddress('bech32'), amount: COIN / 10n, minersFee: 5_000n });

beforeAll(async () => {
  desk = await startRegtestDesk();
  store = openStore(join(desk.dir, 'psbt-segwit.sqlite'));
  deps = { store, api: desk.api, actor: 'treasurer' };
  // The vault as another wallet described it: wsh(sortedmulti(...)) with the <0;1> branches.
  const descriptor = formatMultisigDescriptor(2, [alice, bob, carol], '/<0;1>/*', true, { scriptType: 'p2wsh', sortKeys: true });
  vault = (await importWalletSetup(deps, [{ name: 'vault-descriptor.txt', text: `${descriptor}\n` }], { ...regtest, name: 'Vault' })).id;
  nested = (await createWallet(deps, { ...regtest, name: 'Nested', m: 2, cosigners: [alice, bob, carol], scriptType: 'p2sh-p2wsh', sortKeys: true })).id;
  legacy = (await createWallet(deps, { ...regtest, name: 'Legacy', m: 2, cosigners: [alice, bob, carol] })).id;
  for (const w of [vault, nested, legacy]) await fund(w, 2n * COIN);
  await desk.mine(1);
}, 180_000);
afterAll(async () => {
  store?.close();
  await desk?.dispose();
});

describe('a P2WSH vault co-signed through a PSBT and a signature file', () => {
  it('is read from the descriptor as a native segwit wallet with sorted keys', () => {
    expect(store.wallet(vault)).toMatchObject({ scriptType: 'p2wsh', sortKeys: true, m: 2 });
    expect(store.addresses(vault)[0]!.address).toMatch(/^rltc1q/);
  });

  it('exports a PSBT other wallets sign, takes its signature and a signature file, and litecoind confirms the payment', async () => {
    const p = await propose(vault);
    const { base64 } = await exportPsbt(deps, p.id);
    // What the independent parser sees: both UTXO forms, the witness script, every key's origin.
    const theirs = Psbt.fromBase64(base64, { network });
    const inp = theirs.data.inputs[0]!;
    expect(inp.witnessUtxo && inp.nonWitnessUtxo && inp.witnessScript).toBeTruthy();
    expect(inp.redeemScript).toBeUndefined();
    expect(inp.bip32Derivation!.map((d) => bytesToHex(d.masterFingerprint)).sort()).toEqual([alice, bob, carol].map((c) => c.fingerprint).sort());
    expect(inp.witnessUtxo!.value).toBe(2n * COIN);
    const change = theirs.data.outputs.filter((o) => o.witnessScript);
    expect(change).toHaveLength(1);
    expect(change[0]!.bip32Derivation).toHaveLength(3);
    expect(change[0]!.bip32Derivation!.every((d) => d.path.startsWith("m/45'/0'/1/"))).toBe(true);
    expect(theirs.data.globalMap.globalXpub).toHaveLength(3);

    // The other wallet (bitcoinjs-lib) signs with alice's key, found through the derivations.
    const signed = Psbt.fromBase64(base64, { network });
    signed.signAllInputsHD(master(alice));
    const [fromPsbt] = importPaymentFiles(deps, [{ name: 'alice-sparrow.psbt', text: signed.toBase64() }]);
    expect(fromPsbt).toMatchObject({ status: 'imported', added: 1 });
    expect(fromPsbt!.message).toContain(`alice-sparrow.psbt: 1 signature by Key 1 (${alice.fingerprint}) imported from the PSBT`);
    expect(progress(deps, p.id).state).toBe('awaiting_signatures');

    // Bob signs a signature file with the desk's software signer.
    const request = await writeSigningRequest(deps, p.id);
    const [fromFile] = importSignatureFiles(deps, [{ name: 'bob.json', text: signRequest(request, { xprv: bob.masterXprv }).file }]);
    expect(fromFile).toMatchObject({ status: 'imported', added: 1 });
    expect(progress(deps, p.id)).toMatchObject({ state: 'ready', complete: true });

    const sent = await submitPayment(deps, p.id);
    expect(sent.state).toBe('broadcast');
    await desk.mine(1);
    expect(await refreshConfirmations(deps, p.id)).toMatchObject({ state: 'confirmed', confirmations: 1 });
    const onChain = await desk.node.rpc.call<{ confirmations: number; vin: { txinwitness?: string[] }[] }>('getrawtransaction', [sent.txid, true]);
    expect(onChain.confirmations).toBe(1);
    expect(onChain.vin[0]!.txinwitness).toHaveLength(4); // empty, two signatures, the witness script
  });

  it('refuses a PSBT whose witness UTXO disagrees with its previous transaction, and one for another amount', async () => {
    await desk.synced();
    const p = await propose(vault);
    const { base64 } = await exportPsbt(deps, p.id);
    const signed = Psbt.fromBase64(base64, { network });
    signed.signAllInputsHD(master(carol));
    const good = psbtFromBase64(signed.toBase64());
    const prev = decodeTx(good.inputs[0]!.find((e) => e.type === INPUT.NON_WITNESS_UTXO)!.value);
    const spent = prev.outputs[good.tx.inputs[0]!.vout]!;
    // A signer fed a lower amount in the witness UTXO than the previous transaction pays.
    const lying = { ...good, inputs: good.inputs.map((m, i) => (i === 0 ? m.map((e) => (e.type === INPUT.WITNESS_UTXO ? { ...e, value: encodeWitnessUtxo({ ...spent, value: spent.value - 1000n }) } : e)) : m)) };
    const r = importPsbtFile(deps, { name: 'lying.psbt', text: psbtToBase64(lying) });
    expect(r).toMatchObject({ status: 'refused', refusal: 'malformed' });
    // Amounts in the coin's unit, as every desk message.
    expect(r.message).toContain(`input 0: its witness UTXO (${coinAmount(params, spent.value - 1000n)} to script 0020`);
    expect(r.message).toMatch(new RegExp(`disagrees with its non-witness UTXO \\(output \\d of the previous transaction pays ${coinAmount(params, spent.value).replace(/[.()]/g, '\\$&')} to script`));
    expect(store.signatures(p.id)).toHaveLength(0);

    // The same signature on a PSBT whose witness script is another wallet's: not this payment's spend.
    const other = deriveAddress(params, 2, [bob.xpub, carol.xpub, alice.xpub], false, 0, { scriptType: 'p2wsh', sortKeys: false });
    const swapped = { ...good, inputs: good.inputs.map((m, i) => (i === 0 ? m.map((e) => (e.type === INPUT.WITNESS_SCRIPT ? { ...e, value: other.multisigScript } : e)) : m)) };
    const s = importPsbtFile(deps, { name: 'swapped.psbt', text: psbtToBase64(swapped) });
    expect(s).toMatchObject({ status: 'refused', refusal: 'tampered' });
    expect(s.message).toMatch(/swapped\.psbt: input 0: its witness script does not hash to the P2WSH output it spends/);
    expect(store.signatures(p.id)).toHaveLength(0);

    expect(importPsbtFile(deps, { name: 'carol.psbt', text: signed.toBase64() })).toMatchObject({ status: 'imported', added: 1 });
    cancelPayment(deps, p.id, 'proof only');
  });
});

describe('nested segwit and legacy PSBTs', () => {
  it('a P2SH-P2WSH input carries its redeem script (the program) and witness script; bitcoinjs-lib signs it', async () => {
    const p = await propose(nested);
    const { base64 } = await exportPsbt(deps, p.id);
    const theirs = Psbt.fromBase64(base64, { network });
    const inp = theirs.data.inputs[0]!;
    expect(inp.witnessUtxo && inp.nonWitnessUtxo).toBeTruthy();
    expect(bytesToHex(inp.redeemScript!)).toBe(bytesToHex(p2wshScript(inp.witnessScript!)));
    theirs.signAllInputsHD(master(bob)).signAllInputsHD(master(carol));
    const [r] = importPaymentFiles(deps, [{ name: 'both.psbt', text: theirs.toBase64() }]);
    expect(r).toMatchObject({ status: 'imported', added: 2 });
    const sent = await submitPayment(deps, p.id);
    await desk.mine(1);
    expect(await refreshConfirmations(deps, p.id)).toMatchObject({ state: 'confirmed' });
    expect(sent.state).toBe('broadcast');
  });

  it('a P2SH PSBT is the one the desk always built (redeem script, co-signer order, no witness fields)', async () => {
    const p = await propose(legacy);
    const { base64 } = await exportPsbt(deps, p.id);
    // The recipe before script types, written out: deriveAddress's P2SH redeem script and keys in co-signer order.
    const cosigners = store.cosigners(legacy);
    const tx = decodeTx(p.unsignedTx);
    const inputs = store.paymentInputs(p.id).map((row) => {
      const a = deriveAddress(params, 2, cosigners.map((c) => c.xpub), row.change, row.index);
      return { a, row, prev: desk.api.rawTransaction('litecoin', bytesToHex(tx.inputs[row.inputIndex]!.prevTxid)) };
    });
    const resolved = await Promise.all(inputs.map(async (x) => ({ ...x, prev: Buffer.from((await x.prev).hex, 'hex') })));
    const origin = (i: number, change: boolean, index: number) => ({ fingerprint: cosigners[i]!.fingerprint, path: [...parseDerivationPath(cosigners[i]!.derivationPath), change ? 1 : 0, index] });
    const own = new Map(store.addresses(legacy).map((a) => [bytesToHex(addressToScript(params, a.address)), a]));
    const expected = buildMultisigPsbt(
      tx,
      resolved.map(({ a, row, prev }) => ({ prevTx: withoutWitness(prev), redeemScript: a.redeemScript, derivations: a.publicKeys.map((publicKey, i) => ({ publicKey, origin: origin(i, row.change, row.index) })) })),
      tx.outputs.map((o) => {
        const mine = own.get(bytesToHex(o.script));
        if (!mine) return {};
        const a = deriveAddress(params, 2, cosigners.map((c) => c.xpub), mine.change, mine.index);
        return { redeemScript: a.redeemScript, derivations: a.publicKeys.map((publicKey, i) => ({ publicKey, origin: origin(i, mine.change, mine.index) })) };
      }),
      cosigners.map((c) => ({ xpub: parseXpubLike(c.xpub).bytes, origin: { fingerprint: c.fingerprint, path: parseDerivationPath(c.derivationPath) } })),
    );
    expect(base64).toBe(psbtToBase64(expected));
    cancelPayment(deps, p.id, 'proof only');
  });
});

describe("a segwit wallet's set-up files", () => {
  it('read back to the same wallet (script type, key order, keys) in every format; Caravan is for Bitcoin only', () => {
    const keys = store.cosigners(vault).map((c) => ({ xpub: c.xpub, fingerprint: c.fingerprint, derivationPath: c.derivationPath }));
    for (const format of ['bsms', 'descriptor', 'coldcard', 'specter'] as const) {
      const file = exportWalletSetup(deps, vault, format);
      const { wallet, notes } = readWalletSetup([{ name: file.fileName, text: file.text }], { ...regtest, name: 'Again' });
      expect(wallet).toMatchObject({ m: 2, scriptType: 'p2wsh', sortKeys: true });
      expect(wallet.cosigners.map((c) => ({ xpub: c.xpub, fingerprint: c.fingerprint, derivationPath: c.derivationPath }))).toEqual(keys);
      if (format === 'bsms') expect(notes.join()).toMatch(/first address rltc1q.* matches the record/);
    }
    expect(exportWalletSetup(deps, vault, 'descriptor').text).toMatch(/^wsh\(sortedmulti\(2,.*\/<0;1>\/\*\)\)#[a-z0-9]{8}\n$/);
    expect(() => exportWalletSetup(deps, vault, 'caravan')).toThrow(/Caravan handles Bitcoin wallets only/);
  });

  it('Coldcard refuses, in words, a wallet whose keys keep their given order', () => {
    expect(() => exportWalletSetup(deps, legacy, 'coldcard')).toThrow(/Coldcard always sorts the keys \(BIP67\), and this wallet keeps its co-signers' order/);
    expect(exportWalletSetup(deps, legacy, 'descriptor').text).toMatch(/^sh\(multi\(2,/);
  });
});
