// Spends of wsh miniscript vaults on a chosen path (issue 27; docs/api-decisions.md, section 12):
// every signature is checked against the BIP143 digest and the keys of that path, the input's
// nSequence against the path's relative timelock, and the witness is the cheapest non-malleable
// satisfaction the valid signatures allow (miniscript-spend.ts asks the library). Any doubt is an
// error in words naming the input; nothing half-signed comes out.
import { derOf, type SuppliedSignature } from './assemble.ts';
import { plural } from '../api/words.ts';
import { bytesToHex, equalBytes } from './bytes.ts';
import type { ChainParams } from './coin-table.ts';
import { CoinError } from './errors.ts';
import {
  type CompiledMiniscript,
  compileWshMiniscript,
  type MiniscriptPath,
  miniscriptPaths,
  pathSatisfactions,
  SEQUENCE_DISABLE_FLAG,
  SEQUENCE_TYPE_FLAG,
  SEQUENCE_VALUE_MASK,
} from './miniscript-spend.ts';
import { checkWitnessScript, segwitSignatureHash } from './sighash/index.ts';
import { verifyDerSignature, withHashType } from './signature.ts';
import type { BitcoinTx, TxInput } from './tx.ts';
import { RELATIVE_LOCK_TX_VERSION } from './spend-locks.ts';

/** BIP68 and OP_CHECKSEQUENCEVERIFY apply only from version 2 (the rule of the lock fields, spend-locks.ts). */
export { RELATIVE_LOCK_TX_VERSION };

/** How one input of a miniscript payment is spent. */
export interface MiniscriptInputSpend {
  compiled: CompiledMiniscript;
  paths: MiniscriptPath[];
  /** The path chosen for this input. */
  path: number;
  /** The amount of the output this input spends, read from the chain (BIP143 commits to it). */
  amount: bigint;
  /** The spent output's scriptPubKey, when known: the witness script must hash to it. */
  scriptPubKey?: Uint8Array;
}

/** A path in words: "path 1 (1 of 2 keys, after 51,840 blocks)". */
export function describePath(p: MiniscriptPath): string {
  return `path ${p.index} (${p.signatures} of ${p.keys.length} key${p.keys.length === 1 ? '' : 's'}, ${p.older === null ? 'no timelock' : `after ${plural(p.older, 'block')}`})`;
}

/** The chosen path of a miniscript; an index outside them is refused naming the paths there are. */
export function pathOf(paths: readonly MiniscriptPath[], index: number, field = 'path'): MiniscriptPath {
  const p = paths[index];
  if (!Number.isInteger(index) || p === undefined) {
    throw new CoinError(`${field}: the miniscript has no path ${index}; its paths are ${paths.map(describePath).join(', ')}`, field);
  }
  return p;
}

// ---- the unsigned form ------------------------------------------------------------------------

/**
 * While unsigned, a miniscript input carries three witness items: the miniscript (UTF-8), the
 * chosen path's index (one byte) and the witness script; its scriptSig is empty (P2WSH). So
 * sign-and-send reads from the transaction alone what each input signs and on which path, and a
 * miniscript that does not compile to the witness script is refused.
 */
export function unsignedMiniscriptInput(compiled: CompiledMiniscript, path: number): { scriptSig: Uint8Array; witness: Uint8Array[] } {
  return { scriptSig: new Uint8Array(0), witness: [new TextEncoder().encode(compiled.miniscript), Uint8Array.of(path), compiled.witnessScript] };
}

/** The miniscript, its paths and the chosen path of an unsigned input in that form; null for any other input. */
export function readUnsignedMiniscriptInput(
  input: Pick<TxInput, 'scriptSig' | 'witness'>,
  inputIndex: number,
  // Inputs of one vault share a miniscript: its paths (a satisfier run) are read once per transaction.
  seen: Map<string, { compiled: CompiledMiniscript; paths: MiniscriptPath[] }> = new Map(),
): Omit<MiniscriptInputSpend, 'amount'> | null {
  const w = input.witness;
  if (w === undefined || w.length !== 3) return null;
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(w[0]!);
  } catch {
    return null;
  }
  // A signed or foreign witness (signatures, keys) is not a miniscript placeholder: left to the other forms.
  if (!/^[a-z0-9_:(),]+$/i.test(text) || !text.includes('(')) return null;
  const field = `input ${inputIndex}`;
  if (input.scriptSig.length !== 0) throw new CoinError(`${field}: a miniscript input is P2WSH: its scriptSig must be empty`, 'tx');
  if (w[1]!.length !== 1) throw new CoinError(`${field}: its second witness item must be the path's index (one byte)`, 'tx');
  const known = seen.get(text);
  const compiled = known?.compiled ?? compileWshMiniscript(text, field);
  if (!equalBytes(compiled.witnessScript, w[2]!)) {
    throw new CoinError(`${field}: its witness script is not the one its miniscript compiles to (the script or the miniscript was altered)`, 'tx');
  }
  const paths = known?.paths ?? miniscriptPaths(compiled);
  seen.set(text, { compiled, paths });
  return { compiled, paths, path: pathOf(paths, w[1]![0]!, field).index };
}

// ---- checks -----------------------------------------------------------------------------------

/** The BIP143 digest of input `inputIndex` over the miniscript's witness script and the spent amount. */
export function miniscriptInputHash(params: ChainParams, tx: BitcoinTx, inputIndex: number, spend: MiniscriptInputSpend): Uint8Array {
  if (spend.scriptPubKey !== undefined) checkWitnessScript(inputIndex, spend.compiled.witnessScript, spend.scriptPubKey);
  return segwitSignatureHash(params, tx, inputIndex, { witnessScript: spend.compiled.witnessScript, amount: spend.amount });
}

/**
 * Why the input's nSequence (and the transaction's version) do not meet the path's relative
 * timelock, in words; null when they do. The node would refuse such a spend as non-BIP68-final.
 */
export function relativeLockProblem(tx: BitcoinTx, inputIndex: number, path: MiniscriptPath): string | null {
  if (path.older === null) return null;
  const seq = tx.inputs[inputIndex]!.sequence;
  const where = `input ${inputIndex} on ${describePath(path)}`;
  if (tx.version < RELATIVE_LOCK_TX_VERSION) return `${where}: the transaction's version ${tx.version} does not enforce relative timelocks (BIP68 needs version ${RELATIVE_LOCK_TX_VERSION})`;
  if ((seq & SEQUENCE_DISABLE_FLAG) !== 0) return `${where}: its nSequence 0x${seq.toString(16)} turns relative timelocks off; it must be at least ${path.older}`;
  if ((seq & SEQUENCE_TYPE_FLAG) !== 0) return `${where}: its nSequence ${seq} counts 512-second units, the path counts blocks`;
  if ((seq & SEQUENCE_VALUE_MASK) < path.older) return `${where}: its nSequence ${seq & SEQUENCE_VALUE_MASK} is below the path's relative timelock of ${plural(path.older, 'block')} (older(${path.older}))`;
  return null;
}

/**
 * Checks one signature of a miniscript input; returns its DER form. Refused, naming the input and
 * the key: a key of no path, a key of another path than the chosen one, a signature that does
 * not verify against the BIP143 digest.
 */
export function checkMiniscriptSignature(params: ChainParams, tx: BitcoinTx, spend: MiniscriptInputSpend, signature: SuppliedSignature): Uint8Array {
  const i = signature.inputIndex;
  const keyHex = bytesToHex(signature.publicKey);
  const where = `input ${i}, public key ${keyHex}`;
  const path = pathOf(spend.paths, spend.path);
  if (!path.keys.includes(keyHex)) {
    const others = spend.paths.filter((p) => p.keys.includes(keyHex));
    if (others.length === 0) throw new CoinError(`${where}: this key is not one of the miniscript's keys`, 'signatures');
    throw new CoinError(`${where}: this key signs ${others.map(describePath).join(', ')}, not ${describePath(path)}, the path this input is spent on`, 'signatures');
  }
  const hash = miniscriptInputHash(params, tx, i, spend);
  if (signature.hashToSign && !equalBytes(signature.hashToSign, hash)) {
    throw new CoinError(`${where}: hash_to_sign ${bytesToHex(signature.hashToSign)} is not the hash of this transaction's input (${bytesToHex(hash)})`, 'signatures');
  }
  const der = derOf(params, signature.signature, where);
  if (!verifyDerSignature(hash, signature.publicKey, der)) {
    throw new CoinError(`${where}: the signature does not verify against this transaction's BIP143 hash for an input of ${spend.amount} (wrong key, another amount or hash, or an altered transaction)`, 'signatures');
  }
  return der;
}

// ---- assembly ---------------------------------------------------------------------------------

/**
 * The signed transaction: each input's witness is the cheapest non-malleable satisfaction of its
 * path that the valid signatures allow, then the witness script; scriptSig empty (P2WSH). A path
 * short of signatures, or an nSequence below the path's timelock, is refused in words.
 */
export function assembleMiniscriptSpend(params: ChainParams, unsigned: BitcoinTx, spends: readonly MiniscriptInputSpend[], signatures: readonly SuppliedSignature[]): BitcoinTx {
  if (spends.length !== unsigned.inputs.length) throw new CoinError(`${spends.length} input spend(s) given for the transaction's ${unsigned.inputs.length} input(s)`, 'tx');
  const valid: Map<string, Uint8Array>[] = spends.map(() => new Map());
  for (const sig of signatures) {
    const spend = spends[sig.inputIndex];
    if (spend === undefined) throw new CoinError(`input ${sig.inputIndex}: the transaction has no such input (it has ${spends.length})`, 'signatures');
    const der = checkMiniscriptSignature(params, unsigned, spend, sig);
    const byKey = valid[sig.inputIndex]!;
    const keyHex = bytesToHex(sig.publicKey);
    if (!byKey.has(keyHex)) byKey.set(keyHex, withHashType(der, params.hashType)); // two valid signatures by one key: keep the first
  }
  const inputs = unsigned.inputs.map((input, i) => {
    const spend = spends[i]!;
    const path = pathOf(spend.paths, spend.path);
    const lock = relativeLockProblem(unsigned, i, path);
    if (lock !== null) throw new CoinError(lock, 'tx');
    const sigs = valid[i]!;
    const lengths = new Map([...sigs].map(([k, s]) => [k, s.length]));
    const best = pathSatisfactions(spend.compiled, path, lengths)[0];
    if (best === undefined) {
      const have = [...sigs.keys()];
      throw new CoinError(
        `input ${i}: ${describePath(path)} needs ${path.signatures} signature(s) of ${path.keys.join(', ')}; ${have.length} valid given${have.length > 0 ? ` (${have.join(', ')})` : ''}`,
        'signatures',
      );
    }
    const stack = best.stack.map((item) => (item instanceof Uint8Array ? item : sigs.get(item.signatureOf)!));
    const { witness: _placeholder, ...rest } = input;
    return { ...rest, scriptSig: new Uint8Array(0), witness: [...stack, spend.compiled.witnessScript] };
  });
  return { ...unsigned, inputs };
}
