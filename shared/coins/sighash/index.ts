/**
 * Signature-hash dispatch: the coin table names the algorithm, this registry maps the name to
 * its module. A new algorithm (BIP143-forkid, ZIP-243, ZIP-244, ...) is a new module and one
 * entry here; the Record type makes a name without a module a compile error.
 */
import type { ChainParams, SighashAlgorithmName } from '../coin-table.ts';
import type { Tx } from '../tx.ts';
import { legacySighash } from './legacy.ts';

export interface SighashContext {
  /** The script the signature commits to: the redeem script (P2SH) or the scriptPubKey (P2PKH). */
  scriptCode: Uint8Array;
  /** The spent output's value; needed by the amount-committing algorithms. */
  amount?: bigint;
  /** The spent output's scriptPubKey; needed by ZIP-244. */
  scriptPubKey?: Uint8Array;
}

type SighashAlgorithm = (tx: Tx, inputIndex: number, context: SighashContext, hashType: number) => Uint8Array;

const ALGORITHMS: Record<SighashAlgorithmName, SighashAlgorithm> = {
  legacy: (tx, inputIndex, context, hashType) => legacySighash(tx, inputIndex, context.scriptCode, hashType),
};

/** The 32-byte digest to sign for `inputIndex`, with the coin's own algorithm and hash type. */
export function signatureHash(params: ChainParams, tx: Tx, inputIndex: number, context: SighashContext): Uint8Array {
  return ALGORITHMS[params.sighashAlgorithm](tx, inputIndex, context, params.hashType);
}
