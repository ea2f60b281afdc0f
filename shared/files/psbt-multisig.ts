/**
 * The PSBT fields of a multisig payment, P2SH, P2SH-P2WSH or P2WSH: building the PSBT a
 * co-signer's wallet signs, and reading back the signatures it added. Pure: bytes in, bytes out.
 * Segwit inputs carry the whole previous transaction as well as the witness UTXO: hardware
 * wallets (Coldcard, Ledger, Trezor) want it since the 2020 segwit fee attack, and it is what
 * proves the amount a BIP143 signature commits to (psbt-finalize.ts).
 *
 * Entries over our codec (psbt.ts), not bitcoinjs-lib's Psbt.addInput/updateInput and payments:
 * its addInput refuses a Dash DIP2 special transaction as NON_WITNESS_UTXO ("Transaction has
 * unexpected data", measured with bitcoinjs-lib 7.0.5), and Dash is a PSBT coin of the desk;
 * what is left here is a mapping of our fields to BIP174 entries and back.
 */
import { ByteReader, ByteWriter, bytesToHex, checkWitnessScript, classifyOutputScript, decodeScript, pushData, encodeTx, equalBytes, hexToBytes, type CoinError } from '../coins/index.ts';
import { p2wshScript } from '../coins/multisig-script.ts';
import type { BitcoinTx } from '../coins/tx.ts';
import { FileFormatError } from './errors.ts';
import { GLOBAL, INPUT, OUTPUT, encodeWitnessUtxo, findEntries, findEntry, outputOfRaw, type DecodedPsbt, type Psbt, type PsbtEntry } from './psbt.ts';

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

/**
 * One input, described by the scripts of its multisig (the fields of MultisigScripts):
 * p2sh: `redeemScript` = the multisig script; p2sh-p2wsh: `redeemScript` = 0020<sha256(witnessScript)>
 * and `witnessScript` = the multisig script; p2wsh: `witnessScript` only.
 */
export interface MultisigPsbtInput {
  /** The whole previous transaction (NON_WITNESS_UTXO), also for segwit inputs. */
  prevTx: Uint8Array;
  redeemScript?: Uint8Array;
  /** Segwit inputs: their WITNESS_UTXO is written from `prevTx`, so the two cannot disagree. */
  witnessScript?: Uint8Array;
  /** Every co-signer's key of this input, in script order. */
  derivations: readonly KeyDerivation[];
}

export interface MultisigPsbtOutput {
  /** Only for outputs back to the wallet (change), so signers can recognise them; as MultisigPsbtInput. */
  redeemScript?: Uint8Array;
  witnessScript?: Uint8Array;
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

/**
 * The entries of one input. P2SH: NON_WITNESS_UTXO, REDEEM_SCRIPT, derivations (as always). Segwit:
 * NON_WITNESS_UTXO, WITNESS_UTXO, REDEEM_SCRIPT (nested only), WITNESS_SCRIPT, derivations; the
 * witness script is checked to hash to the output the input spends, the nested redeem script to
 * be its program.
 */
function inputEntries(tx: BitcoinTx, index: number, i: MultisigPsbtInput): PsbtEntry[] {
  const derivationEntries = i.derivations.map((d) => entry(INPUT.BIP32_DERIVATION, d.publicKey, encodeKeyOrigin(d.origin)));
  if (!i.witnessScript) {
    if (!i.redeemScript) throw new FileFormatError(`input ${index}: a P2SH input needs its redeem script, a segwit input its witness script`);
    return [entry(INPUT.NON_WITNESS_UTXO, none, i.prevTx), entry(INPUT.REDEEM_SCRIPT, none, i.redeemScript), ...derivationEntries];
  }
  const vout = tx.inputs[index]!.vout;
  const spent = outputOfRaw(i.prevTx, vout);
  if (!spent) throw new FileFormatError(`input ${index}: its previous transaction has no output ${vout}`);
  if (i.redeemScript && !equalBytes(i.redeemScript, p2wshScript(i.witnessScript))) {
    throw new FileFormatError(`input ${index}: the redeem script of a P2SH-P2WSH input must be 0020<sha256(witness script)>`);
  }
  try {
    checkWitnessScript(index, i.witnessScript, spent.script);
  } catch (err) {
    throw new FileFormatError((err as CoinError).message);
  }
  const kind = classifyOutputScript(spent.script).type;
  if (kind === 'p2sh' && !i.redeemScript) throw new FileFormatError(`input ${index} spends a P2SH-P2WSH output: give its redeem script (0020<sha256(witness script)>)`);
  if (kind === 'p2wsh' && i.redeemScript) throw new FileFormatError(`input ${index} spends a native P2WSH output: it has no redeem script`);
  return [
    entry(INPUT.NON_WITNESS_UTXO, none, i.prevTx),
    entry(INPUT.WITNESS_UTXO, none, encodeWitnessUtxo(spent)),
    ...(i.redeemScript ? [entry(INPUT.REDEEM_SCRIPT, none, i.redeemScript)] : []),
    entry(INPUT.WITNESS_SCRIPT, none, i.witnessScript),
    ...derivationEntries,
  ];
}

/** A PSBT asking for signatures on `tx` (its input scripts are emptied here). */
export function buildMultisigPsbt(tx: BitcoinTx, inputs: readonly MultisigPsbtInput[], outputs: readonly MultisigPsbtOutput[], xpubs: readonly GlobalXpub[] = []): Psbt {
  if (inputs.length !== tx.inputs.length) throw new FileFormatError(`the transaction has ${tx.inputs.length} inputs, ${inputs.length} were described`);
  if (outputs.length !== tx.outputs.length) throw new FileFormatError(`the transaction has ${tx.outputs.length} outputs, ${outputs.length} were described`);
  const derivationEntries = (type: number, ds: readonly KeyDerivation[] = []) => ds.map((d) => entry(type, d.publicKey, encodeKeyOrigin(d.origin)));
  return {
    global: [entry(GLOBAL.UNSIGNED_TX, none, encodeTx(withEmptyScripts(tx), { witness: false })), ...xpubs.map((x) => entry(GLOBAL.XPUB, x.xpub, encodeKeyOrigin(x.origin)))],
    inputs: inputs.map((i, index) => inputEntries(tx, index, i)),
    outputs: outputs.map((o) => [
      ...(o.redeemScript ? [entry(OUTPUT.REDEEM_SCRIPT, none, o.redeemScript)] : []),
      ...(o.witnessScript ? [entry(OUTPUT.WITNESS_SCRIPT, none, o.witnessScript)] : []),
      ...derivationEntries(OUTPUT.BIP32_DERIVATION, o.derivations),
    ]),
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
  /** From inputs a signer already finalized (FINAL_SCRIPTSIG `OP_0 <sig>... <redeemScript>`, or FINAL_SCRIPTWITNESS `<empty> <sig>... <witnessScript>`). */
  final: FinalSignature[];
  /** The SIGHASH_TYPE each input asks for, when it says. */
  sighashTypes: Map<number, number>;
}

const splitSig = (withType: Uint8Array) => ({ signature: withType.slice(0, -1), hashType: withType[withType.length - 1]! });

/** The items of a FINAL_SCRIPTWITNESS value: a count, then each item with its length. */
export function decodeWitnessStack(value: Uint8Array, where: string): Uint8Array[] {
  try {
    const r = new ByteReader(value, where);
    const items = Array.from({ length: r.readVarInt() }, () => r.readVarBytes());
    if (!r.done()) throw new FileFormatError(`${where}: ${r.remaining()} byte(s) follow its last item`);
    return items;
  } catch (err) {
    if (err instanceof FileFormatError) throw err;
    throw new FileFormatError(`${where} cannot be decoded (${(err as Error).message})`);
  }
}

/** Signatures of a finalized segwit input: witness `<empty> <sigs> <witnessScript>`, scriptSig empty (P2WSH) or the push of its program (P2SH-P2WSH). */
function finalWitnessSignatures(inputIndex: number, witness: Uint8Array, scriptSig: Uint8Array | undefined, expected: Uint8Array | undefined): Uint8Array[] {
  const items = decodeWitnessStack(witness, `input ${inputIndex}'s final witness`);
  const last = items[items.length - 1];
  if (items.length < 2 || items[0]!.length !== 0 || !last || !expected || !equalBytes(last, expected)) {
    throw new FileFormatError(`input ${inputIndex}'s final witness is not <empty> <signatures> <the wallet's witness script>`);
  }
  if (scriptSig && scriptSig.length > 0 && !equalBytes(scriptSig, pushData(p2wshScript(expected)))) {
    throw new FileFormatError(`input ${inputIndex}'s final script is not the push of its witness program 0020<sha256(the wallet's witness script)>`);
  }
  return items.slice(1, -1);
}

/** Signatures of a finalized P2SH input: scriptSig `OP_0 <sigs> <redeemScript>`. */
function finalScriptSigSignatures(inputIndex: number, scriptSig: Uint8Array, expected: Uint8Array | undefined): Uint8Array[] {
  let chunks;
  try {
    chunks = decodeScript(scriptSig);
  } catch {
    throw new FileFormatError(`input ${inputIndex}'s final script cannot be decoded`);
  }
  const last = chunks[chunks.length - 1]?.data;
  if (chunks[0]?.opcode !== 0x00 || !last || !expected || !equalBytes(last, expected)) {
    throw new FileFormatError(`input ${inputIndex}'s final script is not OP_0 <signatures> <the wallet's redeem script>`);
  }
  return chunks.slice(1, -1).map((c) => c.data ?? new Uint8Array(0));
}

/**
 * Every signature a PSBT carries, per input. `multisigScripts[i]` is the desk's own multisig
 * script of input i: the redeem script of a P2SH input, the witness script of a segwit one. A
 * finalized input (FINAL_SCRIPTSIG, or FINAL_SCRIPTWITNESS for segwit) must end in that script,
 * or the file is refused.
 */
export function psbtSignatures(psbt: DecodedPsbt, multisigScripts: readonly Uint8Array[]): PsbtSignatures {
  const partial: PartialSignature[] = [];
  const final: FinalSignature[] = [];
  const sighashTypes = new Map<number, number>();
  psbt.inputs.forEach((map, inputIndex) => {
    for (const e of findEntries(map, INPUT.PARTIAL_SIG)) partial.push({ inputIndex, publicKey: e.keyData, ...splitSig(e.value) });
    const sighash = findEntry(map, INPUT.SIGHASH_TYPE);
    if (sighash) sighashTypes.set(inputIndex, new DataView(sighash.value.buffer, sighash.value.byteOffset).getUint32(0, true));
    const finalScript = findEntry(map, INPUT.FINAL_SCRIPTSIG)?.value;
    const finalWitness = findEntry(map, INPUT.FINAL_SCRIPTWITNESS)?.value;
    const expected = multisigScripts[inputIndex];
    let sigs: Uint8Array[];
    if (finalWitness) sigs = finalWitnessSignatures(inputIndex, finalWitness, finalScript, expected);
    else if (finalScript) sigs = finalScriptSigSignatures(inputIndex, finalScript, expected);
    else return;
    for (const sig of sigs) {
      if (sig.length < 9) throw new FileFormatError(`input ${inputIndex}'s final ${finalWitness ? 'witness' : 'script'} holds something that is not a signature`);
      final.push({ inputIndex, ...splitSig(sig) });
    }
  });
  return { partial, final, sighashTypes };
}
