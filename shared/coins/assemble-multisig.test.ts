import { describe, expect, test } from 'vitest';
import { assembleMultisigSpend, checkMultisigSignature, multisigInputHash } from './assemble-multisig.ts';
import type { MultisigInputSpend } from './assemble-multisig.ts';
import { bytesToHex } from './bytes.ts';
import { chainParams } from './coin-table.ts';
import { PRIVATE_KEYS, PUBLIC_KEYS } from './fixtures/spends.ts';
import { multisigScripts } from './multisig-script.ts';
import { p2pkhScript } from './script.ts';
import { bip143Sighash } from './sighash/bip143.ts';
import { signDer, verifyDerSignature } from './signature.ts';
import type { BitcoinTx } from './tx.ts';
import { decodeTx, encodeTx } from './tx.ts';

const AMOUNT = 500_000n;
const unsigned = (): BitcoinTx => ({
  version: 1,
  inputs: [{ prevTxid: new Uint8Array(32).fill(0xaa), vout: 0, scriptSig: new Uint8Array(0), sequence: 0xffffffff }],
  outputs: [{ value: 490_000n, script: p2pkhScript(new Uint8Array(20).fill(0x11)) }],
  locktime: 0,
});
const sign = (hash: Uint8Array, k: number) => ({ inputIndex: 0, publicKey: PUBLIC_KEYS[k]!, signature: signDer(hash, PRIVATE_KEYS[k]!) });

describe('multisig witness assembly', () => {
  test('bitcoin_gold segwit inputs: BIP143 with its fork-id type 0x4F41 hashed, 0x41 appended', () => {
    const btg = chainParams('bitcoin_gold', 'mainnet');
    const s = multisigScripts(btg, 2, PUBLIC_KEYS, { scriptType: 'p2wsh' });
    const spend: MultisigInputSpend = { scriptType: 'p2wsh', multisigScript: s.multisigScript, amount: AMOUNT, scriptPubKey: s.scriptPubKey };
    const tx = unsigned();
    const hash = multisigInputHash(btg, tx, 0, spend);
    expect(bytesToHex(hash)).toBe(bytesToHex(bip143Sighash(tx, 0, s.multisigScript, AMOUNT, 0x4f41)));
    const signed = assembleMultisigSpend(btg, tx, [spend], [sign(hash, 0), sign(hash, 2)]);
    const witness = signed.inputs[0]!.witness!;
    expect(witness).toHaveLength(4);
    for (const sig of witness.slice(1, 3)) {
      expect(sig[sig.length - 1]).toBe(0x41);
      expect(verifyDerSignature(hash, PUBLIC_KEYS.find((k) => verifyDerSignature(hash, k, sig.subarray(0, -1)))!, sig.subarray(0, -1))).toBe(true);
    }
    expect(signed.inputs[0]!.scriptSig).toHaveLength(0);
    expect(bytesToHex(encodeTx(decodeTx(encodeTx(signed))))).toBe(bytesToHex(encodeTx(signed)));
  });

  test('P2SH-P2WSH: the scriptSig pushes the 0020 program; signatures in script key order, exactly M', () => {
    const ltc = chainParams('litecoin', 'mainnet');
    const s = multisigScripts(ltc, 2, PUBLIC_KEYS, { scriptType: 'p2sh-p2wsh' });
    const spend: MultisigInputSpend = { scriptType: 'p2sh-p2wsh', multisigScript: s.multisigScript, amount: AMOUNT, scriptPubKey: s.scriptPubKey };
    const tx = unsigned();
    const hash = multisigInputHash(ltc, tx, 0, spend);
    const signed = assembleMultisigSpend(ltc, tx, [spend], [sign(hash, 2), sign(hash, 1), sign(hash, 0)]);
    const input = signed.inputs[0]!;
    expect(bytesToHex(input.scriptSig)).toBe(`22${bytesToHex(s.redeemScript!)}`);
    const sigs = input.witness!.slice(1, -1);
    expect(sigs).toHaveLength(2);
    expect(verifyDerSignature(hash, PUBLIC_KEYS[0]!, sigs[0]!.subarray(0, -1))).toBe(true);
    expect(verifyDerSignature(hash, PUBLIC_KEYS[1]!, sigs[1]!.subarray(0, -1))).toBe(true);
  });

  test('refusals name the input and the key', () => {
    const btc = chainParams('bitcoin', 'mainnet');
    const s = multisigScripts(btc, 2, PUBLIC_KEYS.slice(0, 2), { scriptType: 'p2wsh' });
    const spend: MultisigInputSpend = { scriptType: 'p2wsh', multisigScript: s.multisigScript, amount: AMOUNT };
    const tx = unsigned();
    const wrongAmount = sign(multisigInputHash(btc, tx, 0, { ...spend, amount: AMOUNT - 1n }), 0);
    expect(() => checkMultisigSignature(btc, tx, spend, wrongAmount)).toThrow(`input 0, public key ${bytesToHex(PUBLIC_KEYS[0]!)}: the signature does not verify against this transaction's BIP143 hash for an input of ${AMOUNT}`);
    const stranger = sign(multisigInputHash(btc, tx, 0, spend), 2);
    expect(() => checkMultisigSignature(btc, tx, spend, stranger)).toThrow(`input 0, public key ${bytesToHex(PUBLIC_KEYS[2]!)}: this key is not one of the keys`);
    expect(() => assembleMultisigSpend(chainParams('bitcoin_cash', 'mainnet'), tx, [spend], [])).toThrow(/bitcoin_cash has no segwit/);
  });
});
