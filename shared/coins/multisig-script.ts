/**
 * The scripts of an M-of-N multisig for each script type the desk and the service offer
 * (docs/api-decisions.md, extensions): legacy P2SH (the default), nested P2SH-P2WSH and native
 * P2WSH, the segwit ones only on coins with segwit. BIP67 key order is the caller's explicit choice.
 */
import { compareBytes } from './bytes.ts';
import { describeChain } from './coin-table.ts';
import type { ChainParams } from './coin-table.ts';
import { CoinError } from './errors.ts';
import { hash160, sha256 } from './hash.ts';
import { MAX_MULTISIG_KEYS, MAX_WITNESS_MULTISIG_KEYS, multisigScript, p2shScript, witnessScript as witnessOutputScript } from './script.ts';

export const MULTISIG_SCRIPT_TYPES = ['p2sh', 'p2sh-p2wsh', 'p2wsh'] as const;
export type MultisigScriptType = (typeof MULTISIG_SCRIPT_TYPES)[number];
/** The segwit script types: the multisig script is a witness script, signed with BIP143. */
export type SegwitMultisigScriptType = Exclude<MultisigScriptType, 'p2sh'>;

export interface MultisigScriptOptions {
  /** Default 'p2sh'. */
  scriptType?: MultisigScriptType;
  /** Sort the keys by BIP67 (lexicographic order of the compressed keys). Default false: the order given. */
  sortKeys?: boolean;
}

/** Largest redeem script P2SH can spend (the consensus push limit). */
export const MAX_REDEEM_SCRIPT_SIZE = 520;
/** Bitcoin Core's MAX_STANDARD_P2WSH_SCRIPT_SIZE: a larger witness script is not relayed. */
export const MAX_STANDARD_WITNESS_SCRIPT_SIZE = 3600;

export interface MultisigScripts {
  readonly scriptType: MultisigScriptType;
  readonly m: number;
  /** The keys in script order (sorted when sortKeys asked for it). */
  readonly keys: readonly Uint8Array[];
  /** OP_M <keys> OP_N OP_CHECKMULTISIG: what the signatures are checked against. */
  readonly multisigScript: Uint8Array;
  /** The output paying to the multisig. */
  readonly scriptPubKey: Uint8Array;
  /** p2sh: the multisig script; p2sh-p2wsh: 0020<sha256(witnessScript)>; p2wsh: absent. */
  readonly redeemScript?: Uint8Array;
  /** Segwit types: the multisig script, carried last in the witness. */
  readonly witnessScript?: Uint8Array;
}

export function isMultisigScriptType(value: string): value is MultisigScriptType {
  return (MULTISIG_SCRIPT_TYPES as readonly string[]).includes(value);
}

export function isSegwitScriptType(type: MultisigScriptType): type is SegwitMultisigScriptType {
  return type !== 'p2sh';
}

/** BIP67: the keys in lexicographic order of their compressed serialization. A new array. */
export function sortPublicKeysBip67(pubkeys: readonly Uint8Array[]): Uint8Array[] {
  return [...pubkeys].sort(compareBytes);
}

/** Refuses a segwit script type on a coin without segwit, naming the coin. */
export function requireScriptType(params: ChainParams, scriptType: MultisigScriptType): void {
  if (!isMultisigScriptType(scriptType)) {
    throw new CoinError(`unknown multisig script type "${String(scriptType)}" (expected ${MULTISIG_SCRIPT_TYPES.join(', ')})`);
  }
  if (isSegwitScriptType(scriptType) && !params.segwit) {
    throw new CoinError(`${describeChain(params)} has no segwit: a ${scriptType} multisig cannot be made on it (use p2sh)`);
  }
}

/** The P2WSH program of a witness script: 0020<sha256(witnessScript)>. */
export function p2wshScript(witnessScript: Uint8Array): Uint8Array {
  return witnessOutputScript(0, sha256(witnessScript));
}

/** The scripts of an M-of-N multisig of `pubkeys` as `scriptType`. Pure; refusals are CoinErrors. */
export function multisigScripts(params: ChainParams, m: number, pubkeys: readonly Uint8Array[], options: MultisigScriptOptions = {}): MultisigScripts {
  const scriptType = options.scriptType ?? 'p2sh';
  requireScriptType(params, scriptType);
  const keys = options.sortKeys === true ? sortPublicKeysBip67(pubkeys) : [...pubkeys];
  if (scriptType === 'p2sh') {
    const script = multisigScript(m, keys, MAX_MULTISIG_KEYS);
    if (script.length > MAX_REDEEM_SCRIPT_SIZE) {
      throw new CoinError(`the redeem script is ${script.length} bytes; P2SH allows at most ${MAX_REDEEM_SCRIPT_SIZE}`);
    }
    return { scriptType, m, keys, multisigScript: script, redeemScript: script, scriptPubKey: p2shScript(hash160(script)) };
  }
  if (keys.length > MAX_WITNESS_MULTISIG_KEYS) {
    throw new CoinError(`a ${scriptType} multisig holds at most ${MAX_WITNESS_MULTISIG_KEYS} public keys (CHECKMULTISIG's limit), got ${keys.length}`);
  }
  const script = multisigScript(m, keys, MAX_WITNESS_MULTISIG_KEYS);
  if (script.length > MAX_STANDARD_WITNESS_SCRIPT_SIZE) {
    throw new CoinError(`the witness script is ${script.length} bytes; nodes relay at most ${MAX_STANDARD_WITNESS_SCRIPT_SIZE}`);
  }
  const program = p2wshScript(script);
  if (scriptType === 'p2wsh') return { scriptType, m, keys, multisigScript: script, witnessScript: script, scriptPubKey: program };
  return { scriptType, m, keys, multisigScript: script, witnessScript: script, redeemScript: program, scriptPubKey: p2shScript(hash160(program)) };
}
