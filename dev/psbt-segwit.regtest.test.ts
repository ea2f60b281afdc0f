// A segwit multisig PSBT round trip on a real node: coins on a 2-of-3 P2WSH and a 2-of-3
// P2SH-P2WSH output of litecoind -regtest, our PSBT spending both (which the node's decodepsbt and
// analyzepsbt read), signed by bitcoinjs-lib with two keys, finalized by our code, and the node
// accepts and confirms the transaction.
import { BIP32Factory, type BIP32Interface } from 'bip32';
import { Psbt, Transaction } from 'bitcoinjs-lib';
import * as ecc from 'tiny-secp256k1';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addressToScript, bytesToHex, chainParams, decodeTx, encodeTx, hexToBytes, multisigScripts, sha256, txidHex, type MultisigScriptType } from '../shared/coins/index.ts';
import { withoutWitness, psbtFromBase64, psbtToBase64 } from '../shared/files/psbt.ts';
import { finalizeMultisigPsbt } from '../shared/files/psbt-finalize.ts';
import { buildMultisigPsbt } from '../shared/files/psbt-multisig.ts';
import { fundedNode, type RegtestNode } from './chains/litecoind.ts';

const bip32 = BIP32Factory(ecc);
const HARD = 0x80000000;
const params = chainParams('litecoin', 'regtest');
const COIN = 100_000_000n;
const roots = ['a', 'b', 'c'].map((s) => bip32.fromSeed(sha256(new TextEncoder().encode(`psbt regtest ${s}`))));
const keyAt = (r: BIP32Interface, i: number) => r.derivePath("m/48'/1'/0'/2'").derive(0).derive(i);
const TYPES: MultisigScriptType[] = ['p2wsh', 'p2sh-p2wsh'];
const scriptsAt = (i: number) => multisigScripts(params, 2, roots.map((r) => keyAt(r, i).publicKey), { scriptType: TYPES[i]! });

interface Analyzed {
  inputs: { has_utxo: boolean; is_final: boolean; next: string; missing?: { signatures?: string[] } }[];
  fee?: number;
  next: string;
}

let node: RegtestNode;
beforeAll(async () => {
  node = await fundedNode();
});
afterAll(async () => {
  await node?.stop();
});

describe('segwit multisig PSBT on litecoind -regtest', () => {
  it('our PSBT, signed by bitcoinjs-lib, finalized by us, is accepted and confirmed', async () => {
    const amounts = [COIN, COIN / 2n];
    const funded = await Promise.all(
      TYPES.map(async (_, i) => {
        const txid = await node.fundScript(scriptsAt(i).scriptPubKey, amounts[i]!);
        const raw = hexToBytes(await node.rpc.call<string>('getrawtransaction', [txid]));
        const vout = decodeTx(raw).outputs.findIndex((o) => bytesToHex(o.script) === bytesToHex(scriptsAt(i).scriptPubKey));
        return { txid, raw, vout };
      }),
    );
    await node.mine(1);

    const fee = 20_000n;
    const payment = new Transaction();
    payment.version = 2;
    for (const f of funded) payment.addInput(hexToBytes(f.txid).reverse(), f.vout, 0xfffffffd);
    const to = addressToScript(params, await node.newAddress('bech32'));
    payment.addOutput(to, amounts[0]! + amounts[1]! - fee);
    const tx = decodeTx(payment.toBuffer());
    const psbt = buildMultisigPsbt(
      tx,
      funded.map((f, i) => {
        const s = scriptsAt(i);
        return {
          prevTx: withoutWitness(f.raw),
          ...(s.redeemScript ? { redeemScript: s.redeemScript } : {}),
          witnessScript: s.witnessScript!,
          derivations: roots.map((r) => ({ publicKey: keyAt(r, i).publicKey, origin: { fingerprint: bytesToHex(r.fingerprint), path: [48 + HARD, 1 + HARD, HARD, 2 + HARD, 0, i] } })),
        };
      }),
      [{}],
    );
    const base64 = psbtToBase64(psbt);

    // The node reads our unsigned PSBT: both UTXO forms, scripts, key origins; it knows the fee.
    const decoded = await node.rpc.call<{ inputs: { witness_utxo?: { amount: number }; non_witness_utxo?: unknown; witness_script?: { hex: string }; bip32_derivs?: unknown[] }[]; fee: number }>('decodepsbt', [base64]);
    expect(decoded.inputs.map((i) => [i.witness_utxo !== undefined, i.non_witness_utxo !== undefined, i.witness_script?.hex, i.bip32_derivs?.length])).toEqual(
      TYPES.map((_, i) => [true, true, bytesToHex(scriptsAt(i).witnessScript!), 3]),
    );
    expect(BigInt(Math.round(decoded.fee * 1e8))).toBe(fee);
    const before = await node.rpc.call<Analyzed>('analyzepsbt', [base64]);
    expect(before.inputs.map((i) => [i.has_utxo, i.is_final, i.next])).toEqual([[true, false, 'signer'], [true, false, 'signer']]);
    expect(before.next).toBe('signer');

    // Two co-signers sign with bitcoinjs-lib (keys found through our BIP32_DERIVATION entries).
    const theirs = Psbt.fromBase64(base64);
    theirs.signAllInputsHD(roots[0]!);
    theirs.signAllInputsHD(roots[2]!);
    const signedBase64 = theirs.toBase64();
    const after = await node.rpc.call<Analyzed>('analyzepsbt', [signedBase64]);
    expect(after.next).toBe('finalizer');

    const signed = finalizeMultisigPsbt(params, psbtFromBase64(signedBase64));
    const hex = bytesToHex(encodeTx(signed));
    const accepted = await node.rpc.call<{ allowed: boolean; 'reject-reason'?: string }[]>('testmempoolaccept', [[hex]]);
    expect(accepted[0]).toMatchObject({ allowed: true });
    const sent = await node.rpc.call<string>('sendrawtransaction', [hex]);
    expect(sent).toBe(txidHex(signed));
    await node.mine(1);
    const onChain = await node.rpc.call<{ confirmations: number; vin: { txinwitness?: string[]; scriptSig: { hex: string } }[] }>('getrawtransaction', [sent, true]);
    expect(onChain.confirmations).toBe(1);
    expect(onChain.vin.map((v) => v.txinwitness?.length)).toEqual([4, 4]);
    expect(onChain.vin[1]!.scriptSig.hex).toBe(`22${bytesToHex(scriptsAt(1).redeemScript!)}`);
  });
});
