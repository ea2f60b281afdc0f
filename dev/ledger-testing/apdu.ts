// APDU exchanges for replay tests (@ledgerhq/hw-transport-mocker), written from the apps' documented
// formats: the dashboard's GET_APP_AND_VERSION (CLA B0 INS 01), app-bitcoin-new doc/bitcoin.md
// (CLA E1, the F8 CONTINUE framework and its client commands), app-bitcoin's btc.asc (CLA E0: GET
// WALLET PUBLIC KEY 40, GET TRUSTED INPUT 42, HASH INPUT START 44, HASH INPUT FINALIZE FULL 4A,
// HASH SIGN 48), app-zcash's variant of those (docs/APDU.md and its legacy parser) and
// app-ethereum's ethapp.adoc (CLA E0: GET ETH PUBLIC ADDRESS 02, SIGN ETH TRANSACTION 04). Where a
// device answer holds a signature, the test makes it with its own key.
import { createHash } from 'node:crypto';
import { DisconnectedDevice } from '@ledgerhq/errors';
import { openTransportReplayer, RecordStore } from '@ledgerhq/hw-transport-mocker';
import { bytesToHex, concatBytes, encodeCompactSize, hexToBytes, reverseBytes } from '../../shared/coins/index.ts';
import { u32be } from '../../main/core/ledger/apdu-fields.ts';
import type { LedgerConnector, Transport } from '../../main/core/ledger/transport.ts';

export { u32be };

export type Bytes = Uint8Array | string;
const b = (x: Bytes): Uint8Array => (typeof x === 'string' ? hexToBytes(x) : x);
export const hex = (...parts: Bytes[]): string => bytesToHex(concatBytes(...parts.map(b)));
export const ascii = (s: string): Uint8Array => new TextEncoder().encode(s);
export const u8 = (n: number): Uint8Array => Uint8Array.of(n);
export const sha256 = (x: Bytes): Uint8Array => new Uint8Array(createHash('sha256').update(b(x)).digest());
export const varint = (n: number): Uint8Array => encodeCompactSize(n);

/** An APDU as Transport.send frames it: CLA INS P1 P2 Lc data (Lc always present). */
export const apdu = (cla: number, ins: number, p1: number, p2: number, data: Bytes = new Uint8Array(0)): string => hex(Uint8Array.of(cla, ins, p1, p2, b(data).length), data);
export const OK = '9000';

/** A device session: (APDU, answer) pairs in order, as RecordStore text. */
export class Session {
  readonly pairs: [string, string][] = [];
  x(command: string, answer: string): this {
    this.pairs.push([command, answer]);
    return this;
  }
  text(): string {
    return this.pairs.map(([c, a]) => `=> ${c}\n<= ${a}`).join('\n');
  }
}

// ---- dashboard / any app ----------------------------------------------------------------------

/** GET_APP_AND_VERSION: format 1, name, version, flags. */
export function appAndVersion(s: Session, name: string, version: string): Session {
  return s.x(apdu(0xb0, 0x01, 0, 0), hex(u8(1), u8(name.length), ascii(name), u8(version.length), ascii(version), u8(1), u8(0x02), OK));
}

// ---- replay ---------------------------------------------------------------------------------------

export interface Replay {
  connector: LedgerConnector;
  /** Every scripted exchange was used, in order (throws otherwise). */
  done(): void;
  opened(): number;
}

/**
 * A connector that replays `session`. With `unplugAfter`, the cable is pulled after that many
 * exchanges: the next one fails the way @ledgerhq/hw-transport-node-hid reports it.
 */
export function replay(session: Session, options: { unplugAfter?: number } = {}): Replay {
  const store = RecordStore.fromString(session.text());
  let opened = 0;
  return {
    connector: {
      list: () => Promise.resolve(['replay']),
      async open() {
        opened++;
        const t = (await openTransportReplayer(store)) as unknown as Transport;
        if (options.unplugAfter !== undefined) {
          const exchange = t.exchange.bind(t);
          let n = 0;
          t.exchange = (command: Buffer) => {
            if (n++ >= options.unplugAfter!) return Promise.reject(new DisconnectedDevice('Ledger Device has been disconnected'));
            return exchange(command);
          };
        }
        return t;
      },
    },
    done: () => store.ensureQueueEmpty(),
    opened: () => opened,
  };
}

// ---- app-bitcoin-new (doc/bitcoin.md, doc/merkle.md, doc/wallet.md) -------------------------------

const leafHash = (x: Bytes) => sha256(concatBytes(u8(0), b(x)));
const nodeHash = (l: Uint8Array, r: Uint8Array) => sha256(concatBytes(u8(1), l, r));
const split = (n: number) => {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
};

/** Root of the Merkle tree of hashed leaves (RFC 6962 shape, 0x00/0x01 prefixes). */
export function merkleRoot(leaves: readonly Uint8Array[]): Uint8Array {
  if (leaves.length === 0) return new Uint8Array(32);
  if (leaves.length === 1) return leaves[0]!;
  const k = split(leaves.length);
  return nodeHash(merkleRoot(leaves.slice(0, k)), merkleRoot(leaves.slice(k)));
}

/** The audit path of leaf i, bottom-up. */
export function merkleProof(leaves: readonly Uint8Array[], i: number): Uint8Array[] {
  if (leaves.length <= 1) return [];
  const k = split(leaves.length);
  return i < k ? [...merkleProof(leaves.slice(0, k), i), merkleRoot(leaves.slice(k))] : [...merkleProof(leaves.slice(k), i - k), merkleRoot(leaves.slice(0, k))];
}

/** A PSBT map as key/value pairs (any order). */
export type KV = [Uint8Array, Uint8Array][];
const sortedMap = (map: KV): KV => [...map].sort((a, b) => (bytesToHex(a[0]) < bytesToHex(b[0]) ? -1 : 1));

/** A Merkleized map (doc/merkle.md): size, root of the sorted keys, root of their values. */
export function mapCommitment(map: KV): Uint8Array {
  const sorted = sortedMap(map);
  return concatBytes(varint(sorted.length), merkleRoot(sorted.map(([k]) => leafHash(k))), merkleRoot(sorted.map(([, v]) => leafHash(v))));
}

/** Root of a list of map commitments (the PSBT's inputs or outputs). */
export const mapsRoot = (maps: readonly KV[]): Uint8Array => merkleRoot(maps.map((m) => leafHash(mapCommitment(m))));

/**
 * The device reads the value of `key` in map `index` of a committed list (doc/bitcoin.md client
 * commands): the map's commitment with its proof, the key's index in the sorted keys, that key's
 * proof, the value's proof, then the value itself. Returns the client's last answer, to be sent next.
 */
export function readMapValue(s: Session, pending: string, maps: readonly KV[], index: number, key: Uint8Array): string {
  const listLeaves = maps.map((m) => leafHash(mapCommitment(m)));
  const proof = (leaves: Uint8Array[], i: number) => {
    const path = merkleProof(leaves, i);
    return cont(leaves[i]!, u8(path.length), u8(path.length), ...path);
  };
  s.x(pending, interrupted(u8(0x41), merkleRoot(listLeaves), varint(maps.length), varint(index)));
  s.x(proof(listLeaves, index), interrupted(u8(0x40), u8(0), listLeaves[index]!));
  const map = sortedMap(maps[index]!);
  const keyLeaves = map.map(([k]) => leafHash(k));
  const valueLeaves = map.map(([, v]) => leafHash(v));
  const k = map.findIndex(([mk]) => bytesToHex(mk) === bytesToHex(key));
  if (k < 0) throw new Error('the test reads a key the map does not have');
  s.x(cont(askPreimage(concatBytes(u8(0), mapCommitment(maps[index]!)))), interrupted(u8(0x42), merkleRoot(keyLeaves), keyLeaves[k]!));
  s.x(cont(u8(1), varint(k)), interrupted(u8(0x41), merkleRoot(keyLeaves), varint(map.length), varint(k)));
  s.x(proof(keyLeaves, k), interrupted(u8(0x41), merkleRoot(valueLeaves), varint(map.length), varint(k)));
  s.x(proof(valueLeaves, k), interrupted(u8(0x40), u8(0), valueLeaves[k]!));
  return cont(askPreimage(concatBytes(u8(0), map[k]![1])));
}

export interface Policy {
  name: string;
  template: string;
  keys: string[];
}

/** Wallet policy v2 serialization: version, name, template length and hash, key count, keys root. */
export function serializePolicy(p: Policy): Uint8Array {
  const keyLeaves = p.keys.map((k) => leafHash(ascii(k)));
  return concatBytes(u8(2), varint(p.name.length), ascii(p.name), varint(p.template.length), sha256(ascii(p.template)), varint(p.keys.length), merkleRoot(keyLeaves));
}

export const policyId = (p: Policy): Uint8Array => sha256(serializePolicy(p));

const interrupted = (...parts: Bytes[]) => hex(...parts, 'e000');
const cont = (...parts: Bytes[]) => apdu(0xf8, 0x01, 0, 0, hex(...parts));
const e1 = (ins: number, data: Bytes = new Uint8Array(0)) => apdu(0xe1, ins, 0, 1, data);

/** Client command GET_PREIMAGE (0x40) and the client's answer (whole preimage: ours all fit). */
function askPreimage(preimage: Uint8Array): string {
  if (preimage.length > 253) throw new Error('test preimages are short');
  return hex(varint(preimage.length), u8(preimage.length), preimage);
}

/** The device reads the descriptor template, then each key with its Merkle proof (as REGISTER_WALLET does). */
function revealPolicy(s: Session, p: Policy, firstAnswer: string): string {
  const template = ascii(p.template);
  s.x(firstAnswer, interrupted(u8(0x40), u8(0), sha256(template)));
  let pending = cont(askPreimage(template));
  const leaves = p.keys.map((k) => leafHash(ascii(k)));
  const root = merkleRoot(leaves);
  p.keys.forEach((k, i) => {
    const proof = merkleProof(leaves, i);
    s.x(pending, interrupted(u8(0x41), root, varint(p.keys.length), varint(i)));
    s.x(cont(leaves[i]!, u8(proof.length), u8(proof.length), ...proof), interrupted(u8(0x40), u8(0), leaves[i]!));
    pending = cont(askPreimage(concatBytes(u8(0), ascii(k))));
  });
  return pending;
}

export function masterFingerprint(s: Session, fingerprint: string): Session {
  return s.x(e1(0x05), hex(fingerprint, OK));
}

export function extendedPubkey(s: Session, steps: readonly number[], display: boolean, xpub: string): Session {
  return s.x(e1(0x00, hex(u8(display ? 1 : 0), u8(steps.length), ...steps.map(u32be))), hex(ascii(xpub), OK));
}

/** REGISTER_WALLET: the device reads the policy, the person approves; it answers id || hmac. */
export function registerWallet(s: Session, p: Policy, hmac: Uint8Array): Session {
  const ser = serializePolicy(p);
  const last = revealPolicy(s, p, e1(0x02, hex(varint(ser.length), ser)));
  return s.x(last, hex(sha256(ser), hmac, OK));
}

/** GET_WALLET_ADDRESS with display: the device reads the whole policy, then its keys; answers the address. */
export function walletAddress(s: Session, p: Policy, hmac: Uint8Array, change: number, index: number, address: string): Session {
  const ser = serializePolicy(p);
  s.x(e1(0x03, hex(u8(1), sha256(ser), hmac, u8(change), u32be(index))), interrupted(u8(0x40), u8(0), sha256(ser)));
  const last = revealPolicy(s, p, cont(askPreimage(ser)));
  return s.x(last, hex(ascii(address), OK));
}

/**
 * SIGN_PSBT: `command` is the first APDU's data (the PSBT's Merkle commitments, wallet id and
 * hmac); the device reads the policy, then what `reads` scripts of the PSBT's maps, then YIELDs
 * each `<input index> <pubkey len> <pubkey> <sig>`. (A real device reads every field it checks; the
 * replays read the ones the desk must get right for a legacy P2SH input.)
 */
export function signPsbt(
  s: Session,
  command: Uint8Array,
  p: Policy,
  yields: readonly { input: number; pubkey: Uint8Array; signature: Uint8Array }[],
  /** What the device reads of the PSBT itself before signing (client commands over its maps). */
  reads: (s: Session, pending: string) => string = (_s, pending) => pending,
): Session {
  const ser = serializePolicy(p);
  s.x(e1(0x04, command), interrupted(u8(0x40), u8(0), sha256(ser)));
  let pending = reads(s, revealPolicy(s, p, cont(askPreimage(ser))));
  for (const y of yields) {
    s.x(pending, interrupted(u8(0x10), varint(y.input), u8(y.pubkey.length), y.pubkey, y.signature));
    pending = cont();
  }
  return s.x(pending, OK);
}

/**
 * SIGN_MESSAGE (INS 0x10): the path, the message's length and the Merkle root of its 64-byte chunks;
 * the device reads each chunk (its leaf's proof, then its preimage), the person approves, and it
 * answers the 65-byte compact signature.
 */
export function signMessage(s: Session, steps: readonly number[], message: Uint8Array, signature: Uint8Array): Session {
  const chunks: Uint8Array[] = [];
  for (let i = 0; i < message.length; i += 64) chunks.push(message.subarray(i, i + 64));
  const leaves = chunks.map((c) => leafHash(c));
  const root = merkleRoot(leaves);
  let pending = e1(0x10, hex(u8(steps.length), ...steps.map(u32be), varint(message.length), root));
  chunks.forEach((c, i) => {
    const path = merkleProof(leaves, i);
    s.x(pending, interrupted(u8(0x41), root, varint(chunks.length), varint(i)));
    s.x(cont(leaves[i]!, u8(path.length), u8(path.length), ...path), interrupted(u8(0x40), u8(0), leaves[i]!));
    pending = cont(askPreimage(concatBytes(u8(0), c)));
  });
  return s.x(pending, hex(signature, OK));
}

// ---- app-bitcoin legacy protocol (btc.asc) ---------------------------------------------------------

/** GET WALLET PUBLIC KEY: uncompressed key, address, chain code. */
export function walletPublicKey(s: Session, steps: readonly number[], format: number, uncompressedKey: Uint8Array, address: string, chainCode: Uint8Array): Session {
  return s.x(apdu(0xe0, 0x40, 0, format, hex(u8(steps.length), ...steps.map(u32be))), hex(u8(uncompressedKey.length), uncompressedKey, u8(address.length), ascii(address), chainCode, OK));
}

const MAX_SCRIPT_BLOCK = 50;
function blocks(script: Uint8Array, tail: Uint8Array): Uint8Array[] {
  if (script.length === 0) return [tail];
  const out: Uint8Array[] = [];
  for (let o = 0; o < script.length; o += MAX_SCRIPT_BLOCK) {
    const end = Math.min(o + MAX_SCRIPT_BLOCK, script.length);
    out.push(end === script.length ? concatBytes(script.subarray(o, end), tail) : script.subarray(o, end));
  }
  return out;
}

export interface RawTx {
  version: Uint8Array;
  inputs: { prevout: Uint8Array; script: Uint8Array; sequence: Uint8Array }[];
  outputs: { amount: Uint8Array; script: Uint8Array }[];
  locktime: Uint8Array;
  /** What follows the locktime in the stream (dashExtra for a Dash special transaction). */
  extra?: Uint8Array;
}

/**
 * What follows the locktime for a Dash special transaction (DIP2), whose txid covers
 * varint(payload length) || payload: lib-app-bitcoin's transaction.c reads, in the locktime's APDU,
 * a varint it does not hash and then hashes that many bytes, so those bytes go behind their own length.
 */
export const dashExtra = (payload: Uint8Array): Uint8Array => {
  const covered = concatBytes(varint(payload.length), payload);
  return concatBytes(varint(covered.length), covered);
};

/** GET TRUSTED INPUT of output `vout` of `prev`, streamed in the app's chunks; answers the 56-byte trusted input. */
export function trustedInput(s: Session, prev: RawTx, vout: number, trusted: Uint8Array): Session {
  const ti = (first: boolean, data: Bytes, answer = OK) => s.x(apdu(0xe0, 0x42, first ? 0x00 : 0x80, 0x00, data), answer);
  ti(true, hex(u32be(vout), prev.version, varint(prev.inputs.length)));
  for (const i of prev.inputs) {
    ti(false, hex(i.prevout, varint(i.script.length)));
    for (const blk of blocks(i.script, i.sequence)) ti(false, blk);
  }
  ti(false, varint(prev.outputs.length));
  for (const o of prev.outputs) ti(false, hex(o.amount, varint(o.script.length), o.script));
  // The locktime and the extra's length share an APDU: the app answers at a locktime that ends one.
  const last = blocks(concatBytes(prev.locktime, prev.extra ?? new Uint8Array(0)), new Uint8Array(0));
  last.forEach((blk, k) => ti(false, blk, k === last.length - 1 ? hex(trusted, OK) : OK));
  return s;
}

/**
 * The txid (display order) a legacy app (lib-app-bitcoin transaction.c, PARSE_MODE_TRUSTED_INPUT,
 * a Bitcoin-layout coin) hashes from the GET TRUSTED INPUT commands of `s`: every byte it reads
 * but the varint behind the locktime, and after it that many bytes of extra data. What the app
 * reads in one step must sit in one APDU (version and input count; outpoint and script length;
 * a script's last byte and the sequence; amount and script length; locktime and the extra's
 * length); scripts and the extra may span APDUs; a locktime that ends an APDU ends the
 * transaction. Throws where the app would refuse or answer early.
 */
export function trustedInputTxid(s: Session): string {
  const chunks = s.pairs
    .map(([command]) => hexToBytes(command))
    .filter((c) => c[0] === 0xe0 && c[1] === 0x42)
    .map((c, k) => {
      if ((c[2] === 0x00) !== (k === 0)) throw new Error('GET TRUSTED INPUT must start with P1 00 and continue with P1 80');
      return c.subarray(k === 0 ? 9 : 5);
    });
  let chunk = 0;
  let at = 0;
  const hashed: Uint8Array[] = [];
  const left = () => chunks[chunk]!.length - at;
  /** n bytes in the current APDU, or (`fresh`) at the start of the next one when it is used up. */
  const field = (n: number, fresh: boolean, hash = true): Uint8Array => {
    if (fresh && left() === 0 && chunk + 1 < chunks.length) [chunk, at] = [chunk + 1, 0];
    if (n > left()) throw new Error(`${n} bytes the app reads in one step are not in one APDU`);
    const out = chunks[chunk]!.subarray(at, (at += n));
    if (hash) hashed.push(out);
    return out;
  };
  const count = (fresh: boolean, hash = true): number => {
    const first = field(1, fresh, hash)[0]!;
    if (first < 0xfd) return first;
    if (first === 0xff) throw new Error('64-bit varints are refused');
    return field(first === 0xfd ? 2 : 4, false, hash).reduce((v, byte, k) => v + byte * 2 ** (8 * k), 0);
  };
  /** Script or extra bytes, which may continue in the next APDUs. */
  const span = (n: number) => {
    for (let rest = n; rest > 0; ) {
      if (left() === 0 && chunk + 1 < chunks.length) [chunk, at] = [chunk + 1, 0];
      const take = Math.min(rest, left());
      if (take === 0) throw new Error('the stream ends inside a script or the extra data');
      hashed.push(chunks[chunk]!.subarray(at, (at += take)));
      rest -= take;
    }
  };
  field(4, true);
  for (let i = count(false); i > 0; i--) {
    field(36, true);
    const script = count(false);
    span(script);
    field(4, script === 0);
  }
  for (let o = count(true); o > 0; o--) {
    field(8, true);
    span(count(false));
  }
  field(4, true);
  if (left() > 0) span(count(false, false));
  if (left() !== 0 || chunk !== chunks.length - 1) throw new Error('bytes follow the transaction: the app answered before them');
  return bytesToHex(reverseBytes(sha256(sha256(concatBytes(...hashed)))));
}

/** HASH INPUT START over the transaction being signed: every input untrusted (prefix 00 + outpoint), only `signing` carrying its script. */
export function hashInputStart(s: Session, first: boolean, version: Uint8Array, outpoints: readonly Uint8Array[], sequences: readonly Uint8Array[], signing: number, redeemScript: Uint8Array): Session {
  s.x(apdu(0xe0, 0x44, 0x00, first ? 0x00 : 0x80, hex(version, varint(outpoints.length))), OK);
  outpoints.forEach((op, i) => {
    const script = i === signing ? redeemScript : new Uint8Array(0);
    s.x(apdu(0xe0, 0x44, 0x80, first ? 0x00 : 0x80, hex(u8(0), op, varint(script.length))), OK);
    for (const blk of blocks(script, sequences[i]!)) s.x(apdu(0xe0, 0x44, 0x80, first ? 0x00 : 0x80, blk), OK);
  });
  return s;
}

/**
 * HASH INPUT START in BIP143 mode (the fork-id apps): each input as 02 || outpoint || amount. P2 is
 * the coin's option (02; 03 for Bitcoin Cash) on a new transaction, 80 when continuing one.
 */
export function hashInputStartForkid(s: Session, newTransaction: boolean, option: number, version: Uint8Array, entries: readonly { value: Uint8Array; script: Uint8Array; sequence: Uint8Array }[]): Session {
  const p2 = newTransaction ? option : 0x80;
  s.x(apdu(0xe0, 0x44, 0x00, p2, hex(version, varint(entries.length))), OK);
  for (const e of entries) {
    s.x(apdu(0xe0, 0x44, 0x80, p2, hex(u8(2), e.value, varint(e.script.length))), OK);
    for (const blk of blocks(e.script, e.sequence)) s.x(apdu(0xe0, 0x44, 0x80, p2, blk), OK);
  }
  return s;
}

/**
 * HASH INPUT START in segwit mode with trusted inputs (btc.asc; app-bitcoin >= 1.4.0 takes a segwit
 * input's amount only so): each input as 01 || length || trusted input (which carries the amount).
 * P2 02 on a new transaction, 80 when continuing one (one input at a time, with its script code).
 */
export function hashInputStartTrusted(s: Session, newTransaction: boolean, version: Uint8Array, entries: readonly { trusted: Uint8Array; script: Uint8Array; sequence: Uint8Array }[]): Session {
  const p2 = newTransaction ? 0x02 : 0x80;
  s.x(apdu(0xe0, 0x44, 0x00, p2, hex(version, varint(entries.length))), OK);
  for (const e of entries) {
    s.x(apdu(0xe0, 0x44, 0x80, p2, hex(u8(0x01), u8(e.trusted.length), e.trusted, varint(e.script.length))), OK);
    for (const blk of blocks(e.script, e.sequence)) s.x(apdu(0xe0, 0x44, 0x80, p2, blk), OK);
  }
  return s;
}

/**
 * HASH INPUT FINALIZE FULL: the serialized outputs in 50-byte chunks, the last with P1 = 80. The
 * app answers RFU (00) to each chunk, and RFU plus "no user validation requested" (00) to the last.
 */
export function hashOutputs(s: Session, outputs: Uint8Array): Session {
  for (let o = 0; o < outputs.length; o += MAX_SCRIPT_BLOCK) {
    const end = Math.min(o + MAX_SCRIPT_BLOCK, outputs.length);
    const last = end === outputs.length;
    s.x(apdu(0xe0, 0x4a, last ? 0x80 : 0x00, 0x00, outputs.subarray(o, end)), hex(last ? '0000' : '00', OK));
  }
  return s;
}

/**
 * HASH SIGN: path, RFU 00, lock time, sighash type. The app answers DER || hash type, with the Y
 * parity of R in the first byte (30 or 31: the host masks it with FE).
 */
export function hashSign(s: Session, steps: readonly number[], locktime: number, hashType: number, derWithType: Uint8Array, parity: 0 | 1 = 0): Session {
  const answer = Uint8Array.from(derWithType);
  answer[0] = 0x30 | parity;
  return s.x(apdu(0xe0, 0x48, 0, 0, hex(u8(steps.length), ...steps.map(u32be), u8(0), u32be(locktime), u8(hashType))), hex(answer, OK));
}

// ---- app-zcash (docs/APDU.md; the legacy parser src/parser/legacy/*.rs; tests/standalone/test_sign_cmd.py) --

/** A transparent Zcash transaction as GET TRUSTED INPUT streams it (the app's order, not the wire's). */
export interface ZcashStreamTx {
  /** version | overwintered, version group id, consensus branch id: 12 bytes. */
  header: Uint8Array;
  inputs: RawTx['inputs'];
  outputs: RawTx['outputs'];
  /** locktime, then the length-prefixed rest of the header (v5: the expiry height). */
  tail: Uint8Array;
}

/**
 * GET TRUSTED INPUT of output `vout`: index (big-endian) with the header and input count, each input
 * (outpoint and script length, then script blocks with the sequence), the outputs one per APDU,
 * the three shielded counts (all 0: no Sapling spends, outputs, Orchard actions), then the tail.
 * Answers the 56-byte trusted input to the last.
 */
export function zcashTrustedInput(s: Session, tx: ZcashStreamTx, vout: number, trusted: Uint8Array): Session {
  const ti = (first: boolean, data: Bytes, answer = OK) => s.x(apdu(0xe0, 0x42, first ? 0x00 : 0x80, 0x00, data), answer);
  ti(true, hex(u32be(vout), tx.header, varint(tx.inputs.length)));
  for (const i of tx.inputs) {
    ti(false, hex(i.prevout, varint(i.script.length)));
    for (const blk of blocks(i.script, i.sequence)) ti(false, blk);
  }
  ti(false, varint(tx.outputs.length));
  for (const o of tx.outputs) ti(false, hex(o.amount, varint(o.script.length), o.script));
  ti(false, '000000');
  const last = blocks(tx.tail, new Uint8Array(0));
  last.forEach((blk, k) => ti(false, blk, k === last.length - 1 ? hex(trusted, OK) : OK));
  return s;
}

/**
 * HASH INPUT START: header (12 bytes) and input count with P1 00, then each input as 01 38 + trusted
 * input + script length, and its script blocks with the sequence. P2 05 on the first pass, 80 on a
 * second (the app reads P2 only where P1 is 00: src/main.rs).
 */
export function zcashHashInput(s: Session, p2: 0x05 | 0x80, header: Uint8Array, inputs: readonly { trusted: Uint8Array; script: Uint8Array; sequence: Uint8Array }[]): Session {
  s.x(apdu(0xe0, 0x44, 0x00, p2, hex(header, varint(inputs.length))), OK);
  for (const i of inputs) {
    s.x(apdu(0xe0, 0x44, 0x80, p2, hex(u8(0x01), u8(i.trusted.length), i.trusted, varint(i.script.length))), OK);
    for (const blk of blocks(i.script, i.sequence)) s.x(apdu(0xe0, 0x44, 0x80, p2, blk), OK);
  }
  return s;
}

/** HASH INPUT FINALIZE FULL: the serialized outputs in 50-byte chunks, P1 80 on the last; the Rust app answers no data. */
export function zcashOutputs(s: Session, outputs: Uint8Array): Session {
  for (let o = 0; o < outputs.length; o += MAX_SCRIPT_BLOCK) {
    const end = Math.min(o + MAX_SCRIPT_BLOCK, outputs.length);
    s.x(apdu(0xe0, 0x4a, end === outputs.length ? 0x80 : 0x00, 0x00, outputs.subarray(o, end)), OK);
  }
  return s;
}

/**
 * HASH SIGN as the Zcash app takes it: path, 00, locktime (BE), SIGHASH_ALL, expiry height (BE).
 * With no path it sets those header fields and answers nothing; with one it answers DER || 01, R's
 * Y parity in the DER's first byte.
 */
export function zcashHashSign(s: Session, steps: readonly number[], locktime: number, expiry: number, derWithType?: Uint8Array, parity: 0 | 1 = 0): Session {
  const command = apdu(0xe0, 0x48, 0, 0, hex(u8(steps.length), ...steps.map(u32be), u8(0), u32be(locktime), u8(0x01), u32be(expiry)));
  if (!derWithType) return s.x(command, OK);
  const answer = Uint8Array.from(derWithType);
  answer[0] = 0x30 | parity;
  return s.x(command, hex(answer, OK));
}

// ---- app-ethereum (ethapp.adoc) ------------------------------------------------------------------

export function ethAddress(s: Session, steps: readonly number[], uncompressedKey: Uint8Array, address: string): Session {
  return s.x(apdu(0xe0, 0x02, 0, 0, hex(u8(steps.length), ...steps.map(u32be))), hex(u8(uncompressedKey.length), uncompressedKey, u8(address.length - 2), ascii(address.slice(2)), OK));
}

/** SIGN ETH TRANSACTION with the RLP in one chunk (ours fit); answers v (one byte), r, s. */
export function ethSign(s: Session, steps: readonly number[], rlp: Uint8Array, v: number, r: Uint8Array, sig: Uint8Array): Session {
  return s.x(apdu(0xe0, 0x04, 0, 0, hex(u8(steps.length), ...steps.map(u32be), rlp)), hex(u8(v), r, sig, OK));
}

export const statusWord = (sw: number): string => sw.toString(16).padStart(4, '0');
