// Segwit multisig made by shared/coins alone, proven by litecoind -regtest: a 2-of-3 P2WSH, a
// 2-of-3 P2SH-P2WSH (BIP67-sorted keys) and, beside them, the legacy P2SH of the same keys are
// funded, spent with our codec, our digests and our witness assembly, and the node accepts and
// confirms each spend; its decoding shows our witness, weight and vsize.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fundedNode, type RegtestNode } from '../dev/chains/litecoind.ts';
import { addressToScript, scriptToAddress } from '../shared/coins/address.ts';
import { assembleMultisigSpend, checkMultisigSignature, multisigInputHash, type MultisigInputSpend } from '../shared/coins/assemble-multisig.ts';
import { bytesToHex, hexToBytes } from '../shared/coins/bytes.ts';
import { chainParams } from '../shared/coins/coin-table.ts';
import { multisigScripts, type MultisigScriptType } from '../shared/coins/multisig-script.ts';
import { estimateVsize } from '../shared/coins/tx-size.ts';
import { encodeTxHex, txidHex, txVsize, txWeight, wtxidHex, type BitcoinTx } from '../shared/coins/tx.ts';
import { testKey } from './test/keys.ts';

const params = chainParams('litecoin', 'regtest');
const keys = [testKey('segwit k1'), testKey('segwit k2'), testKey('segwit k3')];
const AMOUNT = 1_000_000n;
const RATE = 100n; // litoshi per vbyte, far above the node's relay minimum
// Signatures are assumed 73 bytes (72 DER + type); a real one is 71..73 (70 about 1 in 128 times).
// So the estimate is never below the node's vsize, and above it by at most 3 bytes per signature:
// a quarter vbyte each in a witness (plus 1 for rounding), a whole vbyte each in a P2SH scriptSig,
// plus 2 there for its length prefix: a 2-of-3 scriptSig is 254 bytes at most, and below 253 its
// length takes 1 byte instead of 3 (a CI run met slack 7 this way).
const boundFor = (type: MultisigScriptType, sigs: number): number => (type === 'p2sh' ? 3 * sigs + 2 : Math.ceil((3 * sigs) / 4) + 1);

let node: RegtestNode;
beforeAll(async () => {
  node = await fundedNode();
});
afterAll(async () => node?.stop());

interface DecodedTx {
  txid: string;
  hash: string;
  size: number;
  vsize: number;
  weight: number;
  vin: { txinwitness?: string[]; scriptSig: { hex: string } }[];
}

async function fund(scriptPubKey: Uint8Array): Promise<{ txid: string; vout: number }> {
  const txid = await node.fundScript(scriptPubKey, AMOUNT);
  await node.mine(1);
  const raw = await node.rpc.call<{ vout: { n: number; scriptPubKey: { hex: string } }[] }>('getrawtransaction', [txid, true]);
  const out = raw.vout.find((o) => o.scriptPubKey.hex === bytesToHex(scriptPubKey));
  if (!out) throw new Error('funding output not found');
  return { txid, vout: out.n };
}

function unsignedSpend(prev: { txid: string; vout: number }, payee: Uint8Array, fee: bigint): BitcoinTx {
  return {
    version: params.txVersion,
    inputs: [{ prevTxid: hexToBytes(prev.txid), vout: prev.vout, scriptSig: new Uint8Array(0), sequence: 0xffffffff }],
    outputs: [{ value: AMOUNT - fee, script: payee }],
    locktime: 0,
  };
}

const sign = (hash: Uint8Array, k: number) => ({ inputIndex: 0, publicKey: keys[k]!.publicKey, signature: hexToBytes(keys[k]!.sign(bytesToHex(hash))) });

describe('2-of-3 multisig spends accepted by litecoind', () => {
  const vsizes: Record<string, number> = {};

  it.each([
    ['p2wsh', true],
    ['p2sh-p2wsh', true],
    ['p2sh', false],
  ] as const)('%s (sorted keys: %s): funded, spent, decoded as we encode it, confirmed', async (scriptType, sortKeys) => {
    const scripts = multisigScripts(params, 2, keys.map((k) => k.publicKey), { scriptType, sortKeys });
    const address = scriptToAddress(params, scripts.scriptPubKey)!;
    expect(address).toMatch(scriptType === 'p2wsh' ? /^rltc1q/ : /^Q/);
    // The node reads our address as the same script.
    const info = await node.rpc.call<{ scriptPubKey: string; isvalid: boolean }>('validateaddress', [address]);
    expect(info).toMatchObject({ isvalid: true, scriptPubKey: bytesToHex(scripts.scriptPubKey) });

    const prev = await fund(scripts.scriptPubKey);
    const payee = addressToScript(params, await node.newAddress('bech32'));
    const estimate = estimateVsize(params, [{ scriptType, m: 2, n: 3 }], [payee.length]);
    const tx = unsignedSpend(prev, payee, BigInt(estimate) * RATE);
    const spend: MultisigInputSpend = { scriptType, multisigScript: scripts.multisigScript, amount: AMOUNT, scriptPubKey: scripts.scriptPubKey };
    const hash = multisigInputHash(params, tx, 0, spend);

    // Negative: a signature over another amount is refused, naming the input and the key.
    const overWrongAmount = sign(multisigInputHash(params, tx, 0, { ...spend, amount: AMOUNT + 1n }), 1);
    const wrongAmountMessage = `input 0, public key ${keys[1]!.publicKeyHex}: the signature does not verify`;
    if (scriptType === 'p2sh') {
      // The legacy digest does not commit to the amount: the same signature is valid.
      expect(() => checkMultisigSignature(params, tx, spend, overWrongAmount)).not.toThrow();
    } else {
      expect(() => checkMultisigSignature(params, tx, spend, overWrongAmount)).toThrow(wrongAmountMessage);
    }

    const signed = assembleMultisigSpend(params, tx, [spend], [sign(hash, 2), sign(hash, 0)]);
    const hex = encodeTxHex(signed);
    const decoded = await node.rpc.call<DecodedTx>('decoderawtransaction', [hex]);
    expect(decoded.txid).toBe(txidHex(signed));
    expect(decoded.hash).toBe(wtxidHex(signed));
    expect(decoded.weight).toBe(txWeight(signed));
    expect(decoded.vsize).toBe(txVsize(signed));
    const input = signed.inputs[0]!;
    if (scriptType === 'p2sh') {
      expect(decoded.vin[0]!.txinwitness).toBeUndefined();
      expect(decoded.vin[0]!.scriptSig.hex).toBe(bytesToHex(input.scriptSig));
    } else {
      // <empty> <sigs in script key order> <witnessScript>: exactly M signatures.
      const witness = decoded.vin[0]!.txinwitness!;
      expect(witness).toHaveLength(4);
      expect(witness[0]).toBe('');
      expect(witness[3]).toBe(bytesToHex(scripts.witnessScript!));
      const order = scripts.keys.map(bytesToHex).filter((k) => k !== keys[1]!.publicKeyHex);
      const expected = order.map((k) => `${keys.find((t) => t.publicKeyHex === k)!.sign(bytesToHex(hash))}01`);
      expect(witness.slice(1, 3)).toEqual(expected);
      expect(decoded.vin[0]!.scriptSig.hex).toBe(scriptType === 'p2wsh' ? '' : `22${bytesToHex(scripts.redeemScript!)}`);
    }

    const sent = await node.rpc.call<string>('sendrawtransaction', [hex]);
    expect(sent).toBe(txidHex(signed));
    const [block] = await node.mine(1);
    const confirmed = await node.rpc.call<{ confirmations: number }>('getrawtransaction', [sent, true, block]);
    expect(confirmed.confirmations).toBe(1);

    const slack = estimate - decoded.vsize;
    expect(slack).toBeGreaterThanOrEqual(0);
    expect(slack).toBeLessThanOrEqual(boundFor(scriptType, 2));
    vsizes[scriptType] = decoded.vsize;
    console.log(`${scriptType} 2-of-3 spend, 1 in 1 out: vsize ${decoded.vsize} (weight ${decoded.weight}), estimated ${estimate}`);
  });

  it('segwit spends are smaller than the legacy P2SH spend of the same keys', () => {
    expect(vsizes['p2wsh']).toBeLessThan(vsizes['p2sh-p2wsh']!);
    expect(vsizes['p2sh-p2wsh']).toBeLessThan(vsizes['p2sh']!);
  });

  it('a witness script that does not hash to the output is refused before anything is sent', async () => {
    const pubkeys = keys.map((k) => k.publicKey);
    const native = multisigScripts(params, 2, pubkeys, { scriptType: 'p2wsh', sortKeys: true });
    const otherOrder = multisigScripts(params, 2, [...pubkeys].reverse(), { scriptType: 'p2wsh' });
    const prev = await fund(native.scriptPubKey);
    const tx = unsignedSpend(prev, native.scriptPubKey, 20_000n);
    const spend: MultisigInputSpend = { scriptType: 'p2wsh', multisigScript: otherOrder.multisigScript, amount: AMOUNT, scriptPubKey: native.scriptPubKey };
    expect(() => assembleMultisigSpend(params, tx, [spend], [])).toThrow(/input 0: the witness script does not hash to the output this input spends/);
    // The node agrees: the same witness, assembled without the check, is refused.
    const unchecked = { ...spend, scriptPubKey: otherOrder.scriptPubKey };
    const hash = multisigInputHash(params, tx, 0, unchecked);
    const forged = assembleMultisigSpend(params, tx, [unchecked], [sign(hash, 0), sign(hash, 1)]);
    await expect(node.rpc.call('sendrawtransaction', [encodeTxHex(forged)])).rejects.toThrow(/witness program hash mismatch|mandatory-script-verify-flag/i);
  });

  it('too few signatures: the input and the count are named', async () => {
    const scripts = multisigScripts(params, 2, keys.map((k) => k.publicKey), { scriptType: 'p2sh-p2wsh', sortKeys: true });
    const tx = unsignedSpend({ txid: '11'.repeat(32), vout: 0 }, scripts.scriptPubKey, 20_000n);
    const spend: MultisigInputSpend = { scriptType: 'p2sh-p2wsh', multisigScript: scripts.multisigScript, amount: AMOUNT };
    expect(() => assembleMultisigSpend(params, tx, [spend], [sign(multisigInputHash(params, tx, 0, spend), 0)])).toThrow('input 0: 1 valid signature(s) of the 2 required');
  });
});
