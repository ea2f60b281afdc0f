// Vaults at the edge of what Bitcoin lets a script do (issue 31, findings 7 and 8), read from
// BIP388 policies and spent through the desk's one pipeline on litecoind -regtest:
// - a decaying thresh() over 8 keys (3 of 8 now, 2 of 8 after 10 blocks, 1 of 8 after 20), spent
//   on each of its paths by keys other than the first ones (the satisfier used to list every
//   combination of the 8 keys and stopped at 1,000: no path could be spent);
// - a vault of exactly 201 operations (a 2-of-8 multi() now, or one of 24 recovery keys, each
//   after its own number of blocks): accepted and spent, so the limit is not stricter than Bitcoin's;
// - the same with a 2-of-9 multi(), 202 operations (one more key counted when its CHECKMULTISIG
//   runs): refused when imported, in words; its spend, built and signed by hand, is refused by the
//   node for exceeding the operation limit.
import { BIP32Factory } from 'bip32';
import * as ecc from 'tiny-secp256k1';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addressToScript, bytesToHex, chainParams, encodeTxHex, hexToBytes, signDer } from '../../../shared/coins/index.ts';
import { analyseMiniscript, measureMiniscript, miniscriptWitnessScript } from '../../../shared/coins/miniscript.ts';
import { p2wshScript } from '../../../shared/coins/multisig-script.ts';
import { segwitSignatureHash } from '../../../shared/coins/sighash/index.ts';
import { withHashType } from '../../../shared/coins/signature.ts';
import type { BitcoinTx } from '../../../shared/coins/tx.ts';
import { testCosigner, type TestCosigner } from '../../../dev/desk-testing/keys.ts';
import { fundWalletCoin, signAndSend, startDeskWithVault, type WalletDesk } from '../../../dev/desk-testing/regtest.ts';
import { proposePayment } from '../payments/propose.ts';
import { refreshConfirmations } from '../payments/submit.ts';
import { createVault, vaultPaths } from './vaults.ts';

const params = chainParams('litecoin', 'regtest');
const COIN = 100_000_000n;
const bip32 = BIP32Factory(ecc);
const signers = Array.from({ length: 40 }, (_, i) => testCosigner(`limits-${i}`));
const keyInfo = (c: TestCosigner) => `[${c.fingerprint}${c.derivationPath.slice(1)}]${c.xpub}`;
/** A BIP388 policy file of a miniscript whose keys are K0, K1, ...: Ki is @i/**, signers[i]'s key. */
const policyFile = (ms: string, n: number) => JSON.stringify({ name: 'x', descriptor_template: `wsh(${ms.replace(/\bK(\d+)\b/g, '@$1/**')})`, keys_info: signers.slice(0, n).map(keyInfo) });
const vault = (name: string, text: string) => ({ template: 'import' as const, coin: 'litecoin' as const, network: 'regtest' as const, name, text });

const decaying = `thresh(3,${Array.from({ length: 8 }, (_, i) => (i === 0 ? 'pk(K0)' : `s:pk(K${i})`)).join(',')},sln:older(10),sln:older(20))`;
/** A 2-of-`m` multi() now, or one of 24 recovery keys after 1..24 blocks. */
function ladder(m: number): string {
  const first = m;
  let inner = `and_v(v:pkh(K${first}),older(1))`;
  for (let i = 1; i < 24; i++) inner = `or_i(and_v(v:pkh(K${first + i}),older(${i + 1})),${inner})`;
  return `or_d(multi(2,${Array.from({ length: m }, (_, i) => `K${i}`).join(',')}),${inner})`;
}

let thresh: WalletDesk;
let at201: string;

beforeAll(async () => {
  thresh = await startDeskWithVault(vault('Decaying 3 of 8', policyFile(decaying, 8)));
  at201 = (await createVault(thresh.deps, vault('201 operations', policyFile(ladder(8), 32)))).id;
}, 300_000);
afterAll(async () => {
  await thresh?.dispose();
});

describe('a decaying thresh() over 8 keys', () => {
  it('shows its three paths', () => {
    expect(vaultPaths(thresh.deps, thresh.walletId).map((p) => `${p.threshold} of ${p.keys.length} after ${p.blocks}`)).toEqual(['3 of 8 after 0', '2 of 8 after 10', '1 of 8 after 20']);
  });

  it('is spent on each of its paths, by keys other than its first ones', async () => {
    const { desk, deps, walletId } = thresh;
    const coins = [await fundWalletCoin(desk, deps, walletId, COIN), await fundWalletCoin(desk, deps, walletId, COIN), await fundWalletCoin(desk, deps, walletId, COIN)];
    await desk.mine(20);
    const paths: [number, TestCosigner[]][] = [
      [0, [signers[2]!, signers[5]!, signers[7]!]],
      [10, [signers[4]!, signers[6]!]],
      [20, [signers[7]!]],
    ];
    for (const [i, [blocks, by]] of paths.entries()) {
      const coin = coins[i]!;
      const to = await desk.node.newAddress('bech32');
      const p = await proposePayment(deps, walletId, { to, amount: COIN / 2n, minersFee: 0n, feeRate: 3n, inputs: [`${coin.txid}:${coin.vout}`], vaultPath: blocks });
      const { payment } = await signAndSend(deps, p, by);
      expect(payment.state).toBe('broadcast');
      await desk.mine(1);
      expect((await refreshConfirmations(deps, payment.id)).state).toBe('confirmed');
    }
  }, 120_000);
});

describe('the operation limit', () => {
  it('a vault of exactly 201 operations is accepted and spent on its primary path', async () => {
    expect(measureMiniscript(ladder(8)).resources.ops).toBe(201);
    const { desk, deps } = thresh;
    const coin = await fundWalletCoin(desk, deps, at201, COIN);
    const p = await proposePayment(deps, at201, { to: await desk.node.newAddress('bech32'), amount: COIN / 2n, minersFee: 0n, feeRate: 3n, inputs: [`${coin.txid}:${coin.vout}`] });
    const { payment } = await signAndSend(deps, p, [signers[3]!, signers[6]!]);
    await desk.mine(1);
    expect((await refreshConfirmations(deps, payment.id)).state).toBe('confirmed');
  }, 120_000);

  it('one more key in its multi(), 202 operations: refused when imported, in words; the node refuses its spend', async () => {
    const ms = ladder(9);
    await expect(createVault(thresh.deps, vault('202 operations', policyFile(ms, 33)))).rejects.toThrow(
      'its script has 202 operations (193 in the script, 9 more counted for the keys of its multi() when it runs); Bitcoin allows 201: coins sent to it could never be spent. Use fewer keys in its multi() of 9 keys',
    );
    // The same script with each signer's key at 0/0, assembled without the desk's check, funded and spent by hand.
    const priv = (c: TestCosigner) => bip32.fromBase58(c.accountXprv, { messagePrefix: '', bech32: '', bip32: { public: params.xpubVersions[0]!, private: params.xprvVersions[0]! }, pubKeyHash: 0, scriptHash: 0, wif: params.wifVersion }).derivePath('0/0');
    const keys = Object.fromEntries(signers.slice(0, 33).map((c, i) => [`K${i}`, priv(c).publicKey]));
    const witnessScript = miniscriptWitnessScript({ analysis: analyseMiniscript(ms), ...measureMiniscript(ms) }, keys);
    const { desk } = thresh;
    const script = p2wshScript(witnessScript);
    const txid = await desk.node.fundScript(script, COIN);
    await desk.mine(1);
    const funding = await desk.node.rpc.call<{ vout: { n: number; scriptPubKey: { hex: string } }[] }>('getrawtransaction', [txid, true]);
    const vout = funding.vout.find((o) => o.scriptPubKey.hex === bytesToHex(script))!.n;
    const unsigned: BitcoinTx = {
      version: 2,
      inputs: [{ prevTxid: hexToBytes(txid), vout, scriptSig: new Uint8Array(0), sequence: 0xffffffff }],
      outputs: [{ value: COIN - 10_000n, script: addressToScript(params, await desk.node.newAddress('bech32')) }],
      locktime: 0,
    };
    const hash = segwitSignatureHash(params, unsigned, 0, { witnessScript, amount: COIN });
    const sig = (c: TestCosigner) => withHashType(signDer(hash, priv(c).privateKey!), params.hashType);
    const signed = { ...unsigned, inputs: [{ ...unsigned.inputs[0]!, witness: [new Uint8Array(0), sig(signers[0]!), sig(signers[1]!), witnessScript] }] };
    const [verdict] = await desk.node.rpc.call<{ allowed: boolean; 'reject-reason'?: string }[]>('testmempoolaccept', [[encodeTxHex(signed)]]);
    expect(verdict!.allowed).toBe(false);
    expect(verdict!['reject-reason']).toMatch(/Operation limit exceeded/);
  }, 120_000);
});
