/**
 * The legacy (pre-segwit) signature hash, exactly as Bitcoin Core's SignatureHash for
 * SigVersion::BASE, quirks included: SIGHASH_SINGLE without a matching output hashes to "1",
 * and OP_CODESEPARATORs are cut out of the script code at operation boundaries.
 */
import { ByteWriter, reverseBytes } from '../bytes.ts';
import { CoinError } from '../errors.ts';
import { sha256d } from '../hash.ts';
import { OP, readScriptOp } from '../script.ts';
import type { BitcoinTx } from '../tx.ts';

export const SIGHASH_ALL = 0x01;
export const SIGHASH_NONE = 0x02;
export const SIGHASH_SINGLE = 0x03;
export const SIGHASH_ANYONECANPAY = 0x80;

/**
 * uint256 one in natural byte order (01 00 .. 00): what Core signs for SIGHASH_SINGLE past the
 * last output. bitcoinjs-lib returns 00 .. 00 01 here, so it is no oracle for this case.
 */
function one(): Uint8Array {
  const h = new Uint8Array(32);
  h[0] = 1;
  return h;
}

/**
 * Writes the script code with OP_CODESEPARATORs removed, byte for byte as Core's
 * CTransactionSignatureSerializer::SerializeScriptCode: the length counts the separators found
 * by walking operations, and a malformed trailing push is cut at the position the walk stopped.
 */
function writeScriptCode(w: ByteWriter, script: Uint8Array): void {
  let separators = 0;
  for (let pos = 0; ; ) {
    const op = readScriptOp(script, pos);
    if (!op.ok) break;
    if (op.opcode === OP.OP_CODESEPARATOR) separators++;
    pos = op.next;
  }
  w.writeVarInt(script.length - separators);
  let begin = 0;
  let pos = 0;
  for (;;) {
    const op = readScriptOp(script, pos);
    pos = op.next;
    if (!op.ok) break;
    if (op.opcode === OP.OP_CODESEPARATOR) {
      w.writeBytes(script.subarray(begin, pos - 1));
      begin = pos;
    }
  }
  if (begin !== script.length) w.writeBytes(script.subarray(begin, pos));
}

/**
 * The 32-byte digest a legacy signature of input `inputIndex` commits to, in natural order
 * (as signed; reverse it to compare with Core's uint256 hex). `hashType` is used as uint32.
 */
export function legacySighash(tx: BitcoinTx, inputIndex: number, scriptCode: Uint8Array, hashType: number): Uint8Array {
  if (!Number.isInteger(inputIndex) || inputIndex < 0 || inputIndex >= tx.inputs.length) {
    throw new CoinError(`input index ${inputIndex} is out of range: the transaction has ${tx.inputs.length} input(s)`);
  }
  const type = hashType >>> 0;
  const base = type & 0x1f;
  const anyoneCanPay = (type & SIGHASH_ANYONECANPAY) !== 0;
  const single = base === SIGHASH_SINGLE;
  const none = base === SIGHASH_NONE;
  if (single && inputIndex >= tx.outputs.length) return one();

  const w = new ByteWriter();
  w.writeU32LE(tx.version >>> 0);
  const inputIndexes = anyoneCanPay ? [inputIndex] : tx.inputs.map((_, i) => i);
  w.writeVarInt(inputIndexes.length);
  for (const i of inputIndexes) {
    const input = tx.inputs[i];
    if (input === undefined) continue;
    w.writeBytes(reverseBytes(input.prevTxid)).writeU32LE(input.vout);
    if (i === inputIndex) writeScriptCode(w, scriptCode);
    else w.writeVarInt(0);
    // Other inputs' sequences are blanked so they can be updated (NONE/SINGLE).
    w.writeU32LE(i !== inputIndex && (single || none) ? 0 : input.sequence);
  }
  const outputCount = none ? 0 : single ? inputIndex + 1 : tx.outputs.length;
  w.writeVarInt(outputCount);
  for (let o = 0; o < outputCount; o++) {
    const output = tx.outputs[o];
    if (output === undefined) continue;
    if (single && o !== inputIndex) {
      // A "null" output: value -1, empty script.
      w.writeU64LE(0xffffffffffffffffn).writeVarInt(0);
    } else {
      w.writeU64LE(output.value).writeVarBytes(output.script);
    }
  }
  w.writeU32LE(tx.locktime);
  w.writeU32LE(type);
  return sha256d(w.toBytes());
}
