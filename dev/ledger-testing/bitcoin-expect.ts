// What the Bitcoin app >= 2.1 must be sent for the fixture wallet: its policy (doc/wallet.md) and
// the PSBT it signs, written from BIP174/BIP370 key types and doc/merkle.md, independently of the
// desk's own builder (main/core/ledger/psbt.ts). Segwit wallets: BIP174's witness UTXO (0x01) and
// witness script (0x05) beside the whole previous transaction, the spent script from bitcoinjs-lib.
// A miniscript vault (issue 27): its policy hand-written from doc/wallet.md, its keys derived by bip32.
import { BIP32Factory } from 'bip32';
import { payments } from 'bitcoinjs-lib';
import * as ecc from 'tiny-secp256k1';
import { concatBytes, hexToBytes, reverseBytes } from '../../shared/coins/index.ts';
import { deriveAddress } from '../../shared/coins/multisig-address.ts';
import { u32le } from '../../main/core/ledger/apdu-fields.ts';
import { HARDENED } from '../../main/core/ledger/paths.ts';
import { ascii, hex, mapCommitment, mapsRoot, policyId, readMapValue, sha256, u8, varint, type KV, type Policy, type Session } from './apdu.ts';
import type { LedgerFixture, VaultLedgerFixture } from './fixtures.ts';

const H = (n: number) => n + HARDENED;
const bip32 = BIP32Factory(ecc);

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

/** PSBTv2's global map of a one-input, two-output payment: tx version, fallback locktime 0, counts, PSBT version 2. */
const globalMap = (txVersion: number): KV => [
  [u8(0x02), u32le(txVersion)],
  [u8(0x03), u32le(0)],
  [u8(0x04), varint(1)],
  [u8(0x05), varint(2)],
  [u8(0xfb), u32le(2)],
];

export function expectedPsbt(f: LedgerFixture): { global: KV; inputs: KV[]; outputs: KV[] } {
  if (f.wallet.scriptType !== 'p2sh') return expectedSegwitPsbt(f);
  const global = globalMap(1);
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
  return psbtCommand(expectedPsbt(f), p);
}

function psbtCommand({ global, inputs, outputs }: PsbtMaps, p: Policy): Uint8Array {
  return hexToBytes(hex(mapCommitment(global), varint(inputs.length), mapsRoot(inputs), varint(outputs.length), mapsRoot(outputs), policyId(p), hmacOf(p)));
}

interface PsbtMaps {
  global: KV;
  inputs: KV[];
  outputs: KV[];
}

/** Before signing, the device reads input 0's previous transaction (PSBT_IN_NON_WITNESS_UTXO) and its redeem script. */
export const readsInput = (f: LedgerFixture) => (s: Session, pending: string): string => {
  const { inputs } = expectedPsbt(f);
  return readMapValue(s, readMapValue(s, pending, inputs, 0, u8(0x00)), inputs, 0, u8(0x04));
};

const derivations = (f: LedgerFixture, type: number, change: number, index: number): KV => origin(f, change, index).map(([k, v]): [Uint8Array, Uint8Array] => [concatBytes(u8(type), k), v]);

/** A segwit wallet's PSBTv2 maps: both UTXO forms, the witness script, the nested redeem script. */
function expectedSegwitPsbt(f: LedgerFixture): { global: KV; inputs: KV[]; outputs: KV[] } {
  const global = globalMap(1);
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
export const readsSegwitInput = (f: LedgerFixture) => readsSegwitFields(expectedPsbt(f));

const readsSegwitFields = ({ inputs }: PsbtMaps) => (s: Session, pending: string): string => [0x00, 0x01, 0x05].reduce((p, key) => readMapValue(s, p, inputs, 0, u8(key)), pending);

// ---- a miniscript vault (issue 27) ------------------------------------------------------------------

/**
 * The vault's wallet policy as doc/wallet.md writes it: the fixture's recovery vault, 2 of @0..@2
 * now, or 1 of @3, @4 after 144 blocks (decaying: 1 of @0..@2 on their second branches), in the
 * or_d/and_v shape, each key `[fingerprint/45'/0']tpub`.
 */
export function vaultPolicyOf(f: VaultLedgerFixture): Policy {
  return {
    name: 'Treasury',
    template:
      f.shape === 'recovery'
        ? 'wsh(or_d(multi(2,@0/**,@1/**,@2/**),and_v(v:multi(1,@3/**,@4/**),older(144))))'
        : // A key's second use derives on another branch pair (BIP388 /<2;3>/*).
          'wsh(or_d(multi(2,@0/**,@1/**,@2/**),and_v(v:multi(1,@0/<2;3>/*,@1/<2;3>/*,@2/<2;3>/*),older(144))))',
    keys: f.cosigners.map((c) => `[${c.fingerprint}/45'/0']${c.xpub}`),
  };
}

/** A key of the vault at `branch/index` below its account xpub, by bip32 (the desk's derivation is not used). */
function vaultKey(f: VaultLedgerFixture, c: VaultLedgerFixture['cosigners'][number], branch: number, index: number): [Uint8Array, Uint8Array] {
  const network = { messagePrefix: '', bech32: '', bip32: { public: f.params.xpubVersions[0]!, private: f.params.xprvVersions[0]! }, pubKeyHash: 0, scriptHash: 0, wif: f.params.wifVersion };
  const pub = bip32.fromBase58(c.xpub, network).derive(branch).derive(index).publicKey;
  return [concatBytes(u8(0x06), pub), concatBytes(hexToBytes(c.fingerprint), u32le(H(45)), u32le(H(0)), u32le(branch), u32le(index))];
}

/**
 * The PSBTv2 maps of the vault payment (BIP174/BIP370): version 2, the input's nSequence the
 * path's (older(144) on the recovery path), both UTXO forms, the witness script, and derivations
 * of the chosen path's keys only (alice, bob, carol or dave, erin at 0/0; a decayed path's at 2/0);
 * the change output with every key expression of the vault at its change branch (1/0, and 3/0 for
 * a key's second use; output key type 0x02).
 */
export function expectedVaultPsbt(f: VaultLedgerFixture): PsbtMaps {
  const global = globalMap(2);
  const wsh = payments.p2wsh({ redeem: { output: Buffer.from(f.witnessScript) } }).output!;
  // The chosen path's keys: recovery keys dave, erin at 0/0; a decayed path's keys on branch 2.
  const onPath = f.blocks === 0 || f.shape === 'decaying' ? f.cosigners.slice(0, 3) : f.cosigners.slice(3);
  const branch = f.blocks > 0 && f.shape === 'decaying' ? 2 : 0;
  const input: KV = [
    [u8(0x00), f.prevTx],
    [u8(0x01), concatBytes(i64le(100_000n), varint(wsh.length), wsh)],
    [u8(0x05), f.witnessScript],
    ...onPath.map((c) => vaultKey(f, c, branch, 0)),
    [u8(0x0e), reverseBytes(hexToBytes(f.prevTxid))],
    [u8(0x0f), u32le(1)],
    [u8(0x10), u32le(f.blocks === 0 ? 0xffffffff : 144)],
  ];
  const outputs: KV[] = [
    [
      [u8(0x03), i64le(60_000n)],
      [u8(0x04), f.unsignedTx.outputs[0]!.script],
    ],
    [
      ...(f.shape === 'recovery' ? [1] : [1, 3]).flatMap((changeBranch) =>
        f.cosigners.map((c): [Uint8Array, Uint8Array] => {
          const [k, v] = vaultKey(f, c, changeBranch, 0);
          return [concatBytes(u8(0x02), k.subarray(1)), v];
        }),
      ),
      [u8(0x03), i64le(39_000n)],
      [u8(0x04), f.unsignedTx.outputs[1]!.script],
    ],
  ];
  return { global, inputs: [input], outputs };
}

export const signVaultPsbtCommand = (f: VaultLedgerFixture, p: Policy): Uint8Array => psbtCommand(expectedVaultPsbt(f), p);

/** The device reads the vault input's previous transaction, witness UTXO and witness script. */
export const readsVaultInput = (f: VaultLedgerFixture) => readsSegwitFields(expectedVaultPsbt(f));
