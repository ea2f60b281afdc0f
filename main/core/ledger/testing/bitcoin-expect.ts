// What the Bitcoin app >= 2.1 must be sent for the fixture wallet: its policy (doc/wallet.md) and
// the PSBT it signs, written from BIP174/BIP370 key types and doc/merkle.md, independently of the
// desk's own builder (main/core/ledger/psbt.ts).
import { concatBytes, hexToBytes, reverseBytes } from '../../../../shared/coins/index.ts';
import { deriveAddress } from '../../../../shared/coins/multisig-address.ts';
import { u32le } from '../apdu-fields.ts';
import { HARDENED } from '../paths.ts';
import { ascii, hex, mapCommitment, mapsRoot, policyId, readMapValue, sha256, u8, varint, type KV, type Policy, type Session } from './apdu.ts';
import type { LedgerFixture } from './fixtures.ts';

const H = (n: number) => n + HARDENED;

export function policyOf(f: LedgerFixture): Policy {
  return {
    name: 'Treasury',
    template: 'sh(multi(2,@0/**,@1/**,@2/**))',
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
export function expectedPsbt(f: LedgerFixture): { global: KV; inputs: KV[]; outputs: KV[] } {
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
