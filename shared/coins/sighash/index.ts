/**
 * Signature-hash dispatch: the coin table names the algorithm, this registry maps the name to
 * its module and to the transaction format it signs. A new algorithm is a new module and one
 * entry here; the Record type makes a name without a module a compile error.
 */
import { equalBytes } from '../bytes.ts';
import { describeChain, latestConsensusBranchId, sighashTypeInDigest } from '../coin-table.ts';
import type { ChainParams, SighashAlgorithmName, TxFormat } from '../coin-table.ts';
import { CoinError } from '../errors.ts';
import { hash160, sha256 } from '../hash.ts';
import { classifyOutputScript, witnessScript as witnessOutputScript } from '../script.ts';
import { isBitcoinTx, txFormatOf } from '../tx.ts';
import type { BitcoinTx, Tx, ZcashV4Tx, ZcashV5Tx } from '../tx.ts';
import { bip143Sighash } from './bip143.ts';
import { SIGHASH_UTXOS, forkIdSighash } from './forkid.ts';
import { legacyForkIdSighash } from './legacy-forkid.ts';
import { legacySighash } from './legacy.ts';
import { zip243Sighash } from './zip243.ts';
import { zip244Sighash } from './zip244.ts';
import type { SpentOutput } from './zip244.ts';

export type { SpentOutput } from './zip244.ts';

/**
 * What a signature of one input commits to besides the transaction. One shape for every coin:
 * pass the script code AND the spent outputs, and each algorithm takes what it hashes.
 */
export interface SighashContext {
  /**
   * The redeem script of a P2SH (multisig) input, the scriptPubKey of a P2PKH input: the script
   * code of the legacy, forkid and ZIP-243 digests. ZIP-244 has no script code (it commits to
   * the spent scriptPubKey); there it is only checked against that scriptPubKey.
   */
  scriptCode: Uint8Array;
  /**
   * The outputs spent by ALL inputs, in input order, as the chain has them. ZIP-244 needs them
   * all; forkid and ZIP-243 read this input's amount. When given, this input's script code is
   * checked against its scriptPubKey (P2SH: the hash of the redeem script; otherwise equal).
   */
  prevouts?: readonly SpentOutput[];
  /** This input's spent amount, when `prevouts` is not given. */
  amount?: bigint;
  /** This input's spent scriptPubKey, when `prevouts` is not given. */
  scriptPubKey?: Uint8Array;
  /** ZIP-243 only: the branch id to sign for; default: the network's newest upgrade. */
  consensusBranchId?: number;
}

interface Spent {
  amount?: bigint;
  scriptPubKey?: Uint8Array;
}

type Algorithm = (params: ChainParams, tx: Tx, inputIndex: number, context: SighashContext) => Uint8Array;

/** The transaction format each algorithm signs. */
export const SIGHASH_TX_FORMAT: Readonly<Record<SighashAlgorithmName, TxFormat>> = {
  legacy: 'bitcoin',
  forkid: 'bitcoin',
  'legacy-forkid': 'bitcoin',
  zip243: 'zcash-v4',
  zip244: 'zcash-v5',
};

function checkFormat(params: ChainParams, tx: Tx): void {
  const want = SIGHASH_TX_FORMAT[params.sighashAlgorithm];
  const got = txFormatOf(tx);
  if (got !== want) {
    throw new CoinError(`${describeChain(params)} signs ${want} transactions, but this one is a ${got} transaction (build it with newTransparentTx)`);
  }
}

// checkFormat has run: these only narrow the type.
function asBitcoin(tx: Tx): BitcoinTx {
  if (!isBitcoinTx(tx)) throw new CoinError('internal error: not a Bitcoin-format transaction');
  return tx;
}

function asV4(tx: Tx): ZcashV4Tx {
  if (tx.format !== 'zcash-v4') throw new CoinError('internal error: not a Zcash v4 transaction');
  return tx;
}

function asV5(tx: Tx): ZcashV5Tx {
  if (tx.format !== 'zcash-v5') throw new CoinError('internal error: not a Zcash v5 transaction');
  return tx;
}

function checkIndex(tx: Tx, inputIndex: number): void {
  if (!Number.isInteger(inputIndex) || inputIndex < 0 || inputIndex >= tx.inputs.length) {
    throw new CoinError(`input index ${inputIndex} is out of range: the transaction has ${tx.inputs.length} input(s)`);
  }
}

/** The spent output of `inputIndex`, from `prevouts` and/or amount/scriptPubKey, which must agree. */
function spentOutput(tx: Tx, inputIndex: number, context: SighashContext): Spent {
  const { prevouts } = context;
  if (prevouts !== undefined && prevouts.length !== tx.inputs.length) {
    throw new CoinError(`the spent outputs must be given for all ${tx.inputs.length} input(s) of the transaction, in order; got ${prevouts.length}`);
  }
  const listed = prevouts?.[inputIndex];
  if (listed !== undefined && context.amount !== undefined && listed.amount !== context.amount) {
    throw new CoinError(`input ${inputIndex}: two different amounts were given for the output it spends (${context.amount} and ${listed.amount})`);
  }
  if (listed !== undefined && context.scriptPubKey !== undefined && !equalBytes(listed.scriptPubKey, context.scriptPubKey)) {
    throw new CoinError(`input ${inputIndex}: two different scriptPubKeys were given for the output it spends`);
  }
  const amount = listed?.amount ?? context.amount;
  const scriptPubKey = listed?.scriptPubKey ?? context.scriptPubKey;
  if (scriptPubKey !== undefined) checkScriptCode(inputIndex, context.scriptCode, scriptPubKey);
  return { ...(amount === undefined ? {} : { amount }), ...(scriptPubKey === undefined ? {} : { scriptPubKey }) };
}

/** The mistake this catches: the P2SH scriptPubKey passed as script code, or the wrong redeem script. */
function checkScriptCode(inputIndex: number, scriptCode: Uint8Array, scriptPubKey: Uint8Array): void {
  const spent = classifyOutputScript(scriptPubKey);
  if (spent.type === 'p2sh') {
    if (!equalBytes(hash160(scriptCode), spent.hash)) {
      throw new CoinError(`input ${inputIndex}: the script code is not the redeem script of the P2SH output this input spends`);
    }
  } else if (!equalBytes(scriptCode, scriptPubKey)) {
    throw new CoinError(`input ${inputIndex}: the script code must be the scriptPubKey of the output this input spends (for P2SH, its redeem script)`);
  }
}

function requireAmount(params: ChainParams, inputIndex: number, spent: Spent): bigint {
  if (spent.amount === undefined) {
    throw new CoinError(`${describeChain(params)} signatures commit to the amount being spent: the amount of the output spent by input ${inputIndex} is needed`);
  }
  return spent.amount;
}

function allPrevouts(params: ChainParams, tx: Tx, inputIndex: number, context: SighashContext, spent: Spent): readonly SpentOutput[] {
  if (context.prevouts !== undefined) return context.prevouts;
  // A one-input transaction's only spent output may come as amount + scriptPubKey.
  if (tx.inputs.length === 1 && spent.amount !== undefined && spent.scriptPubKey !== undefined) {
    return [{ amount: spent.amount, scriptPubKey: spent.scriptPubKey }];
  }
  throw new CoinError(
    `${describeChain(params)} signatures commit to the amount and scriptPubKey of every output the transaction spends: ` +
      `give them for all ${tx.inputs.length} input(s) (signing input ${inputIndex})`,
  );
}

const ALGORITHMS: Record<SighashAlgorithmName, Algorithm> = {
  legacy: (params, tx, inputIndex, context) => {
    spentOutput(tx, inputIndex, context);
    return legacySighash(asBitcoin(tx), inputIndex, context.scriptCode, params.hashType);
  },
  forkid: (params, tx, inputIndex, context) => {
    // Bitcoin Cash's SIGHASH_UTXOS changes the digest; this service never signs with it.
    if ((params.hashType & SIGHASH_UTXOS) !== 0) throw new CoinError(`${describeChain(params)}: SIGHASH_UTXOS signatures are not supported`);
    const amount = requireAmount(params, inputIndex, spentOutput(tx, inputIndex, context));
    return forkIdSighash(asBitcoin(tx), inputIndex, context.scriptCode, amount, sighashTypeInDigest(params));
  },
  'legacy-forkid': (params, tx, inputIndex, context) => {
    spentOutput(tx, inputIndex, context);
    return legacyForkIdSighash(asBitcoin(tx), inputIndex, context.scriptCode, params.hashType, params.forkId ?? 0);
  },
  zip243: (params, tx, inputIndex, context) => {
    const amount = requireAmount(params, inputIndex, spentOutput(tx, inputIndex, context));
    const branchId = context.consensusBranchId ?? latestConsensusBranchId(params);
    return zip243Sighash(asV4(tx), { index: inputIndex, scriptCode: context.scriptCode, amount }, params.hashType, branchId);
  },
  zip244: (params, tx, inputIndex, context) => {
    const spent = spentOutput(tx, inputIndex, context);
    const prevouts = allPrevouts(params, tx, inputIndex, context, spent);
    return zip244Sighash(asV5(tx), inputIndex, prevouts, params.hashType);
  },
};

/**
 * The 32-byte digest to sign for `inputIndex`, with the coin's own algorithm and hash type.
 * Throws a CoinError when the transaction is not in the coin's format, or when the algorithm
 * needs spent amounts or scripts the context does not carry.
 */
export function signatureHash(params: ChainParams, tx: Tx, inputIndex: number, context: SighashContext): Uint8Array {
  checkFormat(params, tx);
  checkIndex(tx, inputIndex);
  return ALGORITHMS[params.sighashAlgorithm](params, tx, inputIndex, context);
}

/** What a segwit v0 (P2WSH or P2SH-P2WSH) signature commits to besides the transaction. */
export interface SegwitSighashContext {
  /** The witness script (the multisig script): BIP143's script code for P2WSH. */
  witnessScript: Uint8Array;
  /** The amount of the output this input spends, as the chain has it: the digest commits to it. */
  amount: bigint;
  /** The spent scriptPubKey, when known: the witness script is then checked to hash to it. */
  scriptPubKey?: Uint8Array;
}

/**
 * The 32-byte digest to sign for segwit v0 input `inputIndex` (BIP143). It commits to the
 * coin's hash type: SIGHASH_ALL (0x01) on bitcoin and litecoin, and bitcoin_gold's fork-id type
 * (0x00004F41), which its nodes demand on segwit inputs too. Refused on a coin without segwit.
 */
export function segwitSignatureHash(params: ChainParams, tx: Tx, inputIndex: number, context: SegwitSighashContext): Uint8Array {
  if (!params.segwit) throw new CoinError(`${describeChain(params)} has no segwit: its inputs cannot be signed as P2WSH or P2SH-P2WSH`);
  checkFormat(params, tx);
  checkIndex(tx, inputIndex);
  if (context.scriptPubKey !== undefined) checkWitnessScript(inputIndex, context.witnessScript, context.scriptPubKey);
  return bip143Sighash(asBitcoin(tx), inputIndex, context.witnessScript, context.amount, sighashTypeInDigest(params));
}

/** The witness script must hash to the spent output: P2WSH directly, P2SH-P2WSH through its 0020 program. */
export function checkWitnessScript(inputIndex: number, witnessScript: Uint8Array, scriptPubKey: Uint8Array): void {
  const program = witnessOutputScript(0, sha256(witnessScript));
  const spent = classifyOutputScript(scriptPubKey);
  const matches =
    (spent.type === 'p2wsh' && equalBytes(spent.hash, program.subarray(2))) || (spent.type === 'p2sh' && equalBytes(spent.hash, hash160(program)));
  if (!matches) {
    throw new CoinError(`input ${inputIndex}: the witness script does not hash to the output this input spends (neither its P2WSH nor its P2SH-P2WSH script)`);
  }
}
