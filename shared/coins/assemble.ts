// Sign-and-send's core: every supplied signature is checked against the hash recomputed from the
// transaction itself, then the scriptSigs are assembled. Any doubt is an error naming the input and
// the key; nothing half-signed comes out.
import type { ChainParams } from './coin-table.ts';
import { bytesToHex, equalBytes, hexToBytes } from './bytes.ts';
import { CoinError } from './errors.ts';
import { hash160 } from './hash.ts';
import { classifyOutputScript, compileScript, OP, p2shScript, parseMultisigRedeemScript } from './script.ts';
import { signatureHash } from './sighash/index.ts';
import { parseSignatureDer, verifyDerSignature, withHashType } from './signature.ts';
import type { Tx } from './tx.ts';

export interface SuppliedSignature {
  inputIndex: number;
  publicKey: Uint8Array;
  /** DER, without the hash type byte (a trailing byte equal to the coin's hash type is tolerated). */
  signature: Uint8Array;
  /** What the signer believes it signed; checked against the recomputed hash when given. */
  hashToSign?: Uint8Array;
}

export type InputSpend =
  | { kind: 'p2pkh'; scriptCode: Uint8Array; pubkeyHash: Uint8Array }
  | { kind: 'multisig'; scriptCode: Uint8Array; required: number; publicKeys: Uint8Array[] };

/** What each input of an unsigned transaction (as create returns it) needs to be signed by. */
export function unsignedInputSpends(tx: Tx): InputSpend[] {
  return tx.inputs.map((input, i) => {
    const multisig = parseMultisigRedeemScript(input.scriptSig);
    if (multisig) return { kind: 'multisig', scriptCode: input.scriptSig, required: multisig.m, publicKeys: multisig.pubkeys };
    const out = classifyOutputScript(input.scriptSig);
    if (out.type === 'p2pkh') return { kind: 'p2pkh', scriptCode: input.scriptSig, pubkeyHash: out.hash };
    throw new CoinError(
      `input ${i} of tx is not an unsigned input as create returns it (its script must be the P2PKH scriptPubKey or the multisig redeem script)`,
      'tx',
    );
  });
}

/** The output an unsigned input spends: its P2PKH script, or the P2SH of its redeem script. */
export function spentScriptPubKey(spend: InputSpend): Uint8Array {
  return spend.kind === 'p2pkh' ? spend.scriptCode : p2shScript(hash160(spend.scriptCode));
}

/** The DER part of a supplied signature: a trailing byte equal to the coin's hash type is tolerated. */
export function derOf(params: ChainParams, signature: Uint8Array, where: string): Uint8Array {
  try {
    parseSignatureDer(signature);
    return signature;
  } catch (first) {
    const last = signature[signature.length - 1];
    if (last === params.hashType && signature.length > 8) {
      const trimmed = signature.subarray(0, signature.length - 1);
      try {
        parseSignatureDer(trimmed);
        return trimmed;
      } catch {
        // report the original problem below
      }
    }
    throw new CoinError(`${where}: ${first instanceof Error ? first.message : String(first)}`, 'signatures');
  }
}

function ownsKey(spend: InputSpend, publicKey: Uint8Array): boolean {
  return spend.kind === 'p2pkh'
    ? equalBytes(hash160(publicKey), spend.pubkeyHash)
    : spend.publicKeys.some((k) => equalBytes(k, publicKey));
}

/**
 * Verifies every signature and returns the signed transaction. `inputAmounts` are the spent
 * outputs' values, needed by the amount-committing digests.
 */
export function assembleSigned(params: ChainParams, unsigned: Tx, signatures: readonly SuppliedSignature[], inputAmounts?: readonly bigint[]): Tx {
  const spends = unsignedInputSpends(unsigned);
  if (inputAmounts && inputAmounts.length !== spends.length) {
    throw new CoinError(`${inputAmounts.length} input amounts given for ${spends.length} inputs`, 'tx');
  }
  const prevouts = inputAmounts
    ? spends.map((spend, i) => ({ amount: inputAmounts[i]!, scriptPubKey: spentScriptPubKey(spend) }))
    : undefined;
  const hashes = spends.map((spend, i) => signatureHash(params, unsigned, i, { scriptCode: spend.scriptCode, ...(prevouts ? { prevouts } : {}) }));
  const valid: Map<string, Uint8Array>[] = spends.map(() => new Map());

  for (const sig of signatures) {
    const keyHex = bytesToHex(sig.publicKey);
    const where = `input ${sig.inputIndex}, public key ${keyHex}`;
    const spend = spends[sig.inputIndex];
    const hash = hashes[sig.inputIndex];
    if (!spend || !hash) throw new CoinError(`${where}: the transaction has no input ${sig.inputIndex} (it has ${spends.length})`, 'signatures');
    if (!ownsKey(spend, sig.publicKey)) throw new CoinError(`${where}: this key is not one of the keys that can sign input ${sig.inputIndex}`, 'signatures');
    if (sig.hashToSign && !equalBytes(sig.hashToSign, hash)) {
      throw new CoinError(
        `${where}: hash_to_sign ${bytesToHex(sig.hashToSign)} is not the hash of this transaction's input (${bytesToHex(hash)}): the transaction or the hash was altered`,
        'signatures',
      );
    }
    const der = derOf(params, sig.signature, where);
    if (!verifyDerSignature(hash, sig.publicKey, der)) {
      throw new CoinError(`${where}: the signature does not verify against this transaction's hash (wrong key, another hash, or an altered transaction)`, 'signatures');
    }
    const previous = valid[sig.inputIndex]!.get(keyHex);
    if (previous && !equalBytes(previous, der)) continue; // two valid signatures by one key: keep the first
    valid[sig.inputIndex]!.set(keyHex, der);
  }

  const inputs = unsigned.inputs.map((input, i) => {
    const spend = spends[i]!;
    const sigs = valid[i]!;
    if (spend.kind === 'p2pkh') {
      const [entry] = sigs;
      if (!entry) throw new CoinError(`input ${i}: no signature was given`, 'signatures');
      const [keyHex, der] = entry;
      const publicKey = hexToBytes(keyHex);
      return { ...input, scriptSig: compileScript([withHashType(der, params.hashType), publicKey]) };
    }
    // Signatures in redeem-script key order, exactly M of them.
    const ordered = spend.publicKeys.map((k) => sigs.get(bytesToHex(k))).filter((s): s is Uint8Array => s !== undefined);
    if (ordered.length < spend.required) {
      throw new CoinError(`input ${i}: ${ordered.length} valid signature(s) of the ${spend.required} required`, 'signatures');
    }
    const chunks = [OP.OP_0, ...ordered.slice(0, spend.required).map((der) => withHashType(der, params.hashType)), spend.scriptCode];
    return { ...input, scriptSig: compileScript(chunks) };
  });
  return { ...unsigned, inputs };
}
