// Endpoints 6/9 (and v1's create): an unsigned payment from single-signature public keys or from
// M-of-N redeem scripts. Coins are chosen from the backend's unspent outputs, the fee rate comes
// from the backend, and the shared money code builds the transaction and the hashes to sign.
import { addressToScript } from '../../shared/coins/address.ts';
import { hash160 } from '../../shared/coins/hash.ts';
import { parsePublicKeyHex } from '../../shared/coins/keys.ts';
import { buildPayment, type HashToSign, multisigSource, type PaymentSource, SEQUENCE_REPLACEABLE } from '../../shared/coins/payment.ts';
import { CoinError } from '../../shared/coins/errors.ts';
import { multisigScripts, type MultisigScriptType } from '../../shared/coins/multisig-script.ts';
import { p2pkhScript } from '../../shared/coins/script.ts';
import { encodeTx } from '../../shared/coins/tx.ts';
import type { MempoolConflict, Outpoint, UtxoBackend } from '../chains/backend.ts';
import { badRequest } from '../errors.ts';
import { controlledInputs } from './coin-control.ts';
import { SELECTION_CANDIDATES, selectionCandidates } from './unspent-pages.ts';
import type { MiniscriptPath } from '../../shared/coins/miniscript-spend.ts';

/** What a miniscript input states beside its amount: the miniscript, the path, the nSequence and when the path opens. */
export interface MiniscriptInputStatement {
  miniscript: string;
  path: MiniscriptPath;
  sequence: number;
  /** The block holding the coin, null while unconfirmed. */
  height: number | null;
  /** The first block that can hold the spend on this path (null: an unconfirmed coin, or a path without a timelock). */
  spendableAtHeight: number | null;
}
import { checkReplacementFees, signalsReplacements } from './replacement.ts';

/**
 * P2PKH sources of the comma-separated public keys in `from` (hex). Their outputs are read when the
 * payment is built (buildUnsignedPayment): a bounded set for coin selection, or the ones named.
 */
export function singleSigSources(from: string): PaymentSource[] {
  const keys = from.split(',').map((k) => k.trim()).filter((k) => k.length > 0);
  if (keys.length === 0) throw badRequest('from must list at least one public key (hex, comma-separated)');
  const sources: PaymentSource[] = [];
  for (const [i, hex] of keys.entries()) {
    const publicKey = parsePublicKeyHex(hex, keys.length > 1 ? `from[${i}]` : 'from');
    const scriptPubKey = p2pkhScript(hash160(publicKey));
    sources.push({ scriptCode: scriptPubKey, publicKeys: [publicKey], required: 1, scriptPubKey, unspent: [] });
  }
  return sources;
}

/** One redeem script entry of endpoint 9; `script_type` and `sort_keys` are extensions (docs/api-decisions.md). */
export interface RedeemScriptEntry {
  public_keys?: readonly string[] | undefined;
  script_type?: MultisigScriptType | undefined;
  sort_keys?: boolean | undefined;
}

/**
 * Sources of M-of-N scripts, each given as its public keys (hex). Without the extension fields:
 * P2SH with the keys in the order given (no BIP67, docs/api-decisions.md), as always. A segwit
 * type on a coin without segwit is a 400 naming the coin.
 */
export function multisigSources(params: UtxoBackend['params'], required: number | undefined, redeemScripts: readonly RedeemScriptEntry[]): PaymentSource[] {
  const sources: PaymentSource[] = [];
  if (required === undefined) throw badRequest('number_of_required_signatures is required for M-of-N redeem scripts (public_keys)');
  for (const [i, rs] of redeemScripts.entries()) {
    if (rs.public_keys === undefined) throw badRequest(`redeem_scripts[${i}]: public_keys is required (or descriptor / miniscript for a miniscript vault)`);
    const keys = rs.public_keys.map((hex, j) => parsePublicKeyHex(hex, `redeem_scripts[${i}].public_keys[${j}]`));
    if (required > keys.length) throw badRequest(`redeem_scripts[${i}]: ${required} signatures required but only ${keys.length} public keys given`);
    let scripts;
    try {
      scripts = multisigScripts(params, required, keys, { scriptType: rs.script_type ?? 'p2sh', sortKeys: rs.sort_keys === true });
    } catch (err) {
      if (err instanceof CoinError) throw badRequest(`redeem_scripts[${i}]: ${err.message}`);
      throw err;
    }
    sources.push(multisigSource(scripts.multisigScript, scripts.scriptPubKey, [], rs.script_type ?? 'p2sh'));
  }
  return sources;
}

/** What one input spends, as the chain has it: stated so a co-signer can check it offline. */
export interface InputSpent {
  txid: string;
  vout: number;
  amount: bigint;
  scriptType: MultisigScriptType | 'p2pkh';
  /** The redeem script (p2sh), the witness script (segwit) or the P2PKH scriptPubKey. */
  script: Uint8Array;
  scriptPubKey: Uint8Array;
  /** Miniscript vault inputs: the miniscript, path, nSequence and when the path opens (miniscript-payment.ts). */
  miniscript?: MiniscriptInputStatement;
}

export interface PaymentTerms {
  to?: string | undefined;
  amount?: bigint | undefined;
  fee_address?: string | undefined;
  fee_amount?: bigint | undefined;
  miners_fee?: bigint | undefined;
  // The treasury extensions (docs/api-decisions.md, section 8).
  outputs?: readonly { to: string; amount: bigint }[] | undefined;
  inputs?: readonly Outpoint[] | undefined;
  allow_unconfirmed?: boolean | undefined;
  fee_rate?: bigint | undefined;
  replaceable?: boolean | undefined;
}

/** Whether any treasury extension field is given (the answer then states fee, vsize and replacements). */
export function usesTreasuryFields(t: PaymentTerms): boolean {
  return t.outputs !== undefined || t.inputs !== undefined || t.allow_unconfirmed !== undefined || t.fee_rate !== undefined || t.replaceable !== undefined;
}

/** Fields that exclude each other, and a coin that cannot do what is asked: 400s before any lookup. */
function checkTerms(params: UtxoBackend['params'], t: PaymentTerms): void {
  if (t.outputs !== undefined && (t.to !== undefined || t.amount !== undefined)) throw badRequest('give either to and amount, or outputs, not both');
  if (t.outputs === undefined && (t.to === undefined || t.amount === undefined)) throw badRequest('to and amount are required (or outputs, a list of {to, amount})');
  if (t.fee_rate !== undefined && t.miners_fee !== undefined) throw badRequest('give either miners_fee (a total) or fee_rate (units per vbyte), not both');
  if (t.replaceable === true && !signalsReplacements(params)) throw badRequest(`replaceable is refused on ${params.coin}: its nodes do not relay replacements (BIP125)`);
}

export interface UnsignedPayment {
  /** The unsigned transaction, encoded. */
  tx: Uint8Array;
  totalInputValue: bigint;
  /** One per signature each input needs. */
  hashes: HashToSign[];
  /** What each input spends (amounts from the backend's chain data, never the caller's). */
  inputs: InputSpent[];
  minersFee: bigint;
  /** The virtual size the fee was computed for. */
  vsize: number;
  /** Mempool transactions this payment replaces (BIP125). */
  replaces: string[];
  /** A treasury extension field was used: the answer states fee, vsize and replacements. */
  extended: boolean;
}

export async function buildUnsignedPayment(backend: UtxoBackend, sources: PaymentSource[], terms: PaymentTerms, options: { version?: number } = {}): Promise<UnsignedPayment> {
  const { params } = backend;
  checkTerms(params, terms);
  const recipients =
    terms.outputs !== undefined
      ? { outputs: terms.outputs.map((o, i) => ({ script: addressToScript(params, o.to, `outputs[${i}].to`), amount: o.amount })) }
      : { to: { script: addressToScript(params, terms.to!, 'to'), amount: terms.amount! } };
  let conflicts: MempoolConflict[] = [];
  let leftOut = false;
  if (terms.inputs !== undefined) {
    const controlled = await controlledInputs(backend, sources, terms.inputs, terms.allow_unconfirmed !== false);
    sources = controlled.sources;
    conflicts = controlled.conflicts;
  } else {
    const candidates = await selectionCandidates(backend, sources, terms.allow_unconfirmed === false);
    sources = candidates.sources;
    leftOut = candidates.leftOut;
  }
  const operatorFee =
    terms.fee_address !== undefined && terms.fee_amount !== undefined
      ? { script: addressToScript(params, terms.fee_address, 'fee_address'), amount: terms.fee_amount }
      : undefined;
  const feePerKb = terms.miners_fee === undefined && terms.fee_rate === undefined ? await backend.feePerKb() : 0n;
  // Zcash transactions carry the branch id of the block they are for.
  const height = ((await backend.indexedHeight()) ?? 0) + 1;
  const built = withinCandidates(leftOut, () => buildPayment({
    params,
    sources,
    ...recipients,
    feePerKb,
    height,
    ...(operatorFee ? { operatorFee } : {}),
    ...(terms.miners_fee !== undefined ? { minersFee: terms.miners_fee } : {}),
    ...(terms.fee_rate !== undefined ? { feePerVbyte: terms.fee_rate } : {}),
    ...(terms.inputs !== undefined ? { spendAll: true } : {}),
    ...(terms.replaceable === true ? { sequence: SEQUENCE_REPLACEABLE } : {}),
    ...(options.version !== undefined ? { version: options.version } : {}),
  }));
  // Checked on the fee about to be built (signatures at their largest, so the rate is not overstated).
  checkReplacementFees(backend.params, built.minersFee, built.estimatedVsize, conflicts);
  return {
    minersFee: built.minersFee,
    vsize: built.estimatedVsize,
    replaces: conflicts.map((c) => c.txid),
    extended: usesTreasuryFields(terms),
    tx: encodeTx(built.tx),
    totalInputValue: built.totalInputValue,
    hashes: built.hashes,
    inputs: built.spends.map((s) => ({
      txid: s.txid,
      vout: s.vout,
      amount: s.amount,
      scriptType: s.source.scriptType ?? (s.source.publicKeys.length === 1 && s.source.required === 1 ? 'p2pkh' : 'p2sh'),
      script: s.source.scriptCode,
      scriptPubKey: s.scriptPubKey,
    })),
  };
}

/** A shortfall when coin selection's candidates were cut says so, and what to do instead. */
function withinCandidates<T>(leftOut: boolean, build: () => T): T {
  try {
    return build();
  } catch (err) {
    if (!leftOut || !(err instanceof CoinError) || !err.message.startsWith('insufficient funds')) throw err;
    throw new CoinError(
      `${err.message}: coin selection draws from the first ${SELECTION_CANDIDATES.toLocaleString('en-US')} unspent outputs of the sources (in the order given, each oldest first) and these addresses hold more; a payment needing more inputs would be too large to relay. Name the outputs to spend (inputs), or consolidate the small ones first`,
      err.field,
    );
  }
}
