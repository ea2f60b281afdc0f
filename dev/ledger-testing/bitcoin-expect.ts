// What the Bitcoin app >= 2.1 must be sent for the fixture wallet: its policy (doc/wallet.md) and
// the PSBT it signs, written from BIP174/BIP370 key types and doc/merkle.md, independently of the
// desk's own builder (main/core/ledger/psbt.ts). Segwit wallets: BIP174's witness UTXO (0x01) and
// witness script (0x05) beside the whole previous transaction, the spent script from bitcoinjs-lib.
import { payments } from 'bitcoinjs-lib';
import { concatBytes, hexToBytes, reverseBytes } from '../../shared/coins/index.ts';
import { deriveAddress } from '../../shared/coins/multisig-address.ts';
import { u32le } from '../../main/core/ledger/apdu-fields.ts';
import { HARDENED } from '../../main/core/ledger/paths.ts';
import { ascii, hex, mapCommitment, mapsRoot, policyId, readMapValue, sha256, u8, varint, type KV, type Policy, type Session } from './apdu.ts';
import type { LedgerFixture } from './fixtures.ts';

const H = (n: number) => n + HARDENED;

/** doc/wallet.md's templates for a 2-of-3 of each script type and key order. */
const TEMPLATES = {
  p2sh: ['sh(multi(2,@0/**,@1/**,@2/**))', 'sh(sortedmulti(2,@0/**,@1/**,@2/**))'],
  'p2sh-p2wsh': ['sh(wsh(multi(2,@0/**,@1/**,@2/**)))', 'sh(wsh(sortedmulti(2,@0/**,@1/**,@2/**)))'],
  p2wsh: ['wsh(multi(2,@0/**,@1/**,@2/**))', 'wsh(sortedmulti(2,@0/**,@1/**,@2/**))'],
} as const;

export function policyOf(f: LedgerFixture): Policy {
  return {
    name: 'Treasury',
    template: TEMPLATES[f.wallet.scriptType][f.wallet.sortKeys ? 1 : 0],
    keys: f.cosigners.map((c) => `[${c.fingerprint}/45'/0']${c.xpub}`),
  };
}

/** The device's HMAC over the policy id (any 32 bytes only the device could make; the desk stores it as given). */
export const hmacOf = (p: Policy) => sha256(concatBytes(ascii('device secret'), policyId(p)));

const i64le = (n: bigint) => {
  const o = new Uint8Array(8);
  new DataView(o.buffer).setBigInt64(0, n, true);
  return o;
};
function origin(f: LedgerFixture, change: number, index: number): KV {
  return f.cosigners.map((c) => {
    const pub = deriveAddress(f.params, 2, f.cosigners.map((x) => x.xpub), change === 1, index).publicKeys[f.cosigners.indexOf(c)]!;
    return [pub, concatBytes(hexToBytes(c.fingerprint), u32le(H(45)), u32le(H(0)), u32le(change), u32le(index))];
  });
}

/** The PSBTv2 maps the device must be given for the fixture's payment (BIP174/BIP370 key types). */
/** What a segwit input's witness UTXO names: the P2WSH program, or the P2SH of it (nested). */
export function segwitSpent(f: LedgerFixture, witnessScript: Uint8Array): { scriptPubKey: Uint8Array; redeemScript?: Uint8Array } {
  const wsh = payments.p2wsh({ redeem: { output: witnessScript } });
  if (f.wallet.scriptType === 'p2wsh') return { scriptPubKey: wsh.output! };
  return { scriptPubKey: payments.p2sh({ redeem: wsh }).output!, redeemScript: wsh.output! };
}

export function expectedPsbt(f: LedgerFixture): { global: KV; inputs: KV[]; outputs: KV[] } {
  if (f.wallet.scriptType !== 'p2sh') return expectedSegwitPsbt(f);
  const global: KV = [
    [u8(0x02), u32le(1)],
    [u8(0x03), u32le(0)],
    [u8(0x04), varint(1)],
    [u8(0x05), varint(2)],
    [u8(0xfb), u32le(2)],
  ];
  const input: KV = [
    [u8(0x00), f.prevTx],
    [u8(0x04), f.redeemScript],
    ...origin(f, 0, 0).map(([k, v]): [Uint8Array, Uint8Array] => [concatBytes(u8(0x06), k), v]),
    [u8(0x0e), reverseBytes(hexToBytes(f.prevTxid))],
    [u8(0x0f), u32le(1)],
    [u8(0x10), u32le(0xffffffff)],
  ];
  const change = deriveAddress(f.params, 2, f.cosigners.map((c) => c.xpub), true, 0);
  const outputs: KV[] = [
    [
      [u8(0x03), i64le(60_000n)],
      [u8(0x04), f.unsignedTx.outputs[0]!.script],
    ],
    [
      [u8(0x00), change.redeemScript],
      ...origin(f, 1, 0).map(([k, v]): [Uint8Array, Uint8Array] => [concatBytes(u8(0x02), k), v]),
      [u8(0x03), i64le(39_000n)],
      [u8(0x04), f.unsignedTx.outputs[1]!.script],
    ],
  ];
  return { global, inputs: [input], outputs };
}

/** SIGN_PSBT's data: global map commitment, input and output map commitments' roots, wallet id, hmac. */
export function signPsbtCommand(f: LedgerFixture, p: Policy): Uint8Array {
  const { global, inputs, outputs } = expectedPsbt(f);
  return hexToBytes(hex(mapCommitment(global), varint(inputs.length), mapsRoot(inputs), varint(outputs.length), mapsRoot(outputs), policyId(p), hmacOf(p)));
}

/** Before signing, the device reads input 0's previous transaction (PSBT_IN_NON_WITNESS_UTXO) and its redeem script. */
export const readsInput = (f: LedgerFixture) => (s: Session, pending: string): string => {
  const { inputs } = expectedPsbt(f);
  return readMapValue(s, readMapValue(s, pending, inputs, 0, u8(0x00)), inputs, 0, u8(0x04));
};

const derivations = (f: LedgerFixture, type: number, change: number, index: number): KV => origin(f, change, index).map(([k, v]): [Uint8Array, Uint8Array] => [concatBytes(u8(type), k), v]);

/** A segwit wallet's PSBTv2 maps: both UTXO forms, the witness script, the nested redeem script. */
function expectedSegwitPsbt(f: LedgerFixture): { global: KV; inputs: KV[]; outputs: KV[] } {
  const global: KV = [
    [u8(0x02), u32le(1)],
    [u8(0x03), u32le(0)],
    [u8(0x04), varint(1)],
    [u8(0x05), varint(2)],
    [u8(0xfb), u32le(2)],
  ];
  const spent = segwitSpent(f, f.redeemScript);
  const input: KV = [
    [u8(0x00), f.prevTx],
    [u8(0x01), concatBytes(i64le(100_000n), varint(spent.scriptPubKey.length), spent.scriptPubKey)],
    ...(spent.redeemScript ? [[u8(0x04), spent.redeemScript] as [Uint8Array, Uint8Array]] : []),
    [u8(0x05), f.redeemScript],
    ...derivations(f, 0x06, 0, 0),
    [u8(0x0e), reverseBytes(hexToBytes(f.prevTxid))],
    [u8(0x0f), u32le(1)],
    [u8(0x10), u32le(0xffffffff)],
  ];
  const change = deriveAddress(f.params, 2, f.cosigners.map((c) => c.xpub), true, 0, { scriptType: f.wallet.scriptType, sortKeys: f.wallet.sortKeys });
  const changeSpent = segwitSpent(f, change.multisigScript);
  const outputs: KV[] = [
    [
      [u8(0x03), i64le(60_000n)],
      [u8(0x04), f.unsignedTx.outputs[0]!.script],
    ],
    [
      ...(changeSpent.redeemScript ? [[u8(0x00), changeSpent.redeemScript] as [Uint8Array, Uint8Array]] : []),
      ...derivations(f, 0x02, 1, 0),
      [u8(0x03), i64le(39_000n)],
      [u8(0x04), changeSpent.scriptPubKey],
    ],
  ];
  return { global, inputs: [input], outputs };
}

/** A segwit input: the device reads the previous transaction, the witness UTXO it must agree with, and the witness script. */
export const readsSegwitInput = (f: LedgerFixture) => (s: Session, pending: string): string => {
  const { inputs } = expectedPsbt(f);
  return [0x00, 0x01, 0x05].reduce((p, key) => readMapValue(s, p, inputs, 0, u8(key)), pending);
};
