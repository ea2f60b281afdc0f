/**
 * The PSBT fields of a P2SH multisig payment (non-segwit): building the PSBT a co-signer's wallet
 * signs, and reading back the signatures it added. Pure: bytes in, bytes out.
 *
 * Entries over our codec (psbt.ts), not bitcoinjs-lib's Psbt.addInput/updateInput and payments:
 * its addInput refuses a Dash DIP2 special transaction as NON_WITNESS_UTXO ("Transaction has
 * unexpected data", measured with bitcoinjs-lib 7.0.5), and Dash is a PSBT coin of the desk;
 * what is left here is a mapping of our fields to BIP174 entries and back.
 */
import { ByteWriter, bytesToHex, decodeScript, encodeTx, equalBytes, hexToBytes } from '../coins/index.ts';
import type { BitcoinTx } from '../coins/tx.ts';
import { FileFormatError } from './errors.ts';
import { GLOBAL, INPUT, OUTPUT, findEntries, findEntry, type DecodedPsbt, type Psbt, type PsbtEntry } from './psbt.ts';

export interface KeyOrigin {
  /** Master key fingerprint, 8 hex digits. */
  fingerprint: string;
  /** Steps from the master key, hardened ones with bit 31 set. */
  path: readonly number[];
}

export interface KeyDerivation {
  publicKey: Uint8Array;
  origin: KeyOrigin;
}

export interface MultisigPsbtInput {
  /** The whole previous transaction (NON_WITNESS_UTXO). */
  prevTx: Uint8Array;
  redeemScript: Uint8Array;
  /** Every co-signer's key of this input, in redeem-script order. */
  derivations: readonly KeyDerivation[];
}

export interface MultisigPsbtOutput {
  /** Only for outputs back to the wallet (change), so signers can recognise them. */
  redeemScript?: Uint8Array;
  derivations?: readonly KeyDerivation[];
}

export interface GlobalXpub {
  /** The 78 bytes of the BIP32 serialization. */
  xpub: Uint8Array;
  origin: KeyOrigin;
}

export function encodeKeyOrigin(origin: KeyOrigin): Uint8Array {
  const w = new ByteWriter().writeBytes(hexToBytes(origin.fingerprint, 'fingerprint'));
  for (const step of origin.path) w.writeU32LE(step);
  return w.toBytes();
}

export function decodeKeyOrigin(value: Uint8Array): KeyOrigin {
  const view = new DataView(value.buffer, value.byteOffset, value.byteLength);
  const path: number[] = [];
  for (let at = 4; at + 4 <= value.length; at += 4) path.push(view.getUint32(at, true));
  return { fingerprint: bytesToHex(value.subarray(0, 4)), path };
}

/** The transaction as a PSBT carries it: every input script emptied. */
export function withEmptyScripts(tx: BitcoinTx): BitcoinTx {
  return { ...tx, inputs: tx.inputs.map((i) => ({ ...i, scriptSig: new Uint8Array(0), witness: [] })) };
}

const entry = (type: number, keyData: Uint8Array, value: Uint8Array): PsbtEntry => ({ type, keyData, value });
const none = new Uint8Array(0);

/** A PSBT asking for signatures on `tx` (its input scripts are emptied here). */
export function buildMultisigPsbt(tx: BitcoinTx, inputs: readonly MultisigPsbtInput[], outputs: readonly MultisigPsbtOutput[], xpubs: readonly GlobalXpub[] = []): Psbt {
  if (inputs.length !== tx.inputs.length) throw new FileFormatError(`the transaction has ${tx.inputs.length} inputs, ${inputs.length} were described`);
  if (outputs.length !== tx.outputs.length) throw new FileFormatError(`the transaction has ${tx.outputs.length} outputs, ${outputs.length} were described`);
  const derivationEntries = (type: number, ds: readonly KeyDerivation[] = []) => ds.map((d) => entry(type, d.publicKey, encodeKeyOrigin(d.origin)));
  return {
    global: [entry(GLOBAL.UNSIGNED_TX, none, encodeTx(withEmptyScripts(tx), { witness: false })), ...xpubs.map((x) => entry(GLOBAL.XPUB, x.xpub, encodeKeyOrigin(x.origin)))],
    inputs: inputs.map((i) => [
      entry(INPUT.NON_WITNESS_UTXO, none, i.prevTx),
      entry(INPUT.REDEEM_SCRIPT, none, i.redeemScript),
      ...derivationEntries(INPUT.BIP32_DERIVATION, i.derivations),
    ]),
    outputs: outputs.map((o) => [...(o.redeemScript ? [entry(OUTPUT.REDEEM_SCRIPT, none, o.redeemScript)] : []), ...derivationEntries(OUTPUT.BIP32_DERIVATION, o.derivations)]),
  };
}

export interface PartialSignature {
  inputIndex: number;
  publicKey: Uint8Array;
  /** DER, without the hash type byte. */
  signature: Uint8Array;
  hashType: number;
}

/** A signature found in a finalized input's script: its key is not named there. */
export interface FinalSignature {
  inputIndex: number;
  signature: Uint8Array;
  hashType: number;
}

export interface PsbtSignatures {
  partial: PartialSignature[];
  /** From inputs a signer already finalized (FINAL_SCRIPTSIG `OP_0 <sig>... <redeemScript>`). */
  final: FinalSignature[];
  /** The SIGHASH_TYPE each input asks for, when it says. */
  sighashTypes: Map<number, number>;
}

const splitSig = (withType: Uint8Array) => ({ signature: withType.slice(0, -1), hashType: withType[withType.length - 1]! });

/**
 * Every signature a PSBT carries, per input. For a finalized input the redeem script at the end
 * of its script must be `redeemScripts[i]` (the desk's own), or the file is refused.
 */
export function psbtSignatures(psbt: DecodedPsbt, redeemScripts: readonly Uint8Array[]): PsbtSignatures {
  const partial: PartialSignature[] = [];
  const final: FinalSignature[] = [];
  const sighashTypes = new Map<number, number>();
  psbt.inputs.forEach((map, inputIndex) => {
    for (const e of findEntries(map, INPUT.PARTIAL_SIG)) partial.push({ inputIndex, publicKey: e.keyData, ...splitSig(e.value) });
    const sighash = findEntry(map, INPUT.SIGHASH_TYPE);
    if (sighash) sighashTypes.set(inputIndex, new DataView(sighash.value.buffer, sighash.value.byteOffset).getUint32(0, true));
    const finalScript = findEntry(map, INPUT.FINAL_SCRIPTSIG);
    if (!finalScript) return;
    let chunks;
    try {
      chunks = decodeScript(finalScript.value);
    } catch {
      throw new FileFormatError(`input ${inputIndex}'s final script cannot be decoded`);
    }
    const last = chunks[chunks.length - 1]?.data;
    const expected = redeemScripts[inputIndex];
    if (chunks[0]?.opcode !== 0x00 || !last || !expected || !equalBytes(last, expected)) {
      throw new FileFormatError(`input ${inputIndex}'s final script is not OP_0 <signatures> <the wallet's redeem script>`);
    }
    for (const c of chunks.slice(1, -1)) {
      if (!c.data || c.data.length < 9) throw new FileFormatError(`input ${inputIndex}'s final script holds something that is not a signature`);
      final.push({ inputIndex, ...splitSig(c.data) });
    }
  });
  return { partial, final, sighashTypes };
}
