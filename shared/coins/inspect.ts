/**
 * What a co-signer checks before signing: a transaction, unsigned (as the create endpoints return
 * it) or signed, decoded into who pays whom how much, which keys must sign each input, the hash
 * each must sign (recomputed here, never taken on trust) and which signatures are already there
 * and valid. Pure: the CLI and the desktop app render the same report.
 */
import { encodeAddress, scriptToAddress } from './address.ts';
import type { InputSpend } from './assemble.ts';
import { spentScriptPubKey } from './assemble.ts';
import { bytesToHex, equalBytes, hexToBytes } from './bytes.ts';
import { describeChain, latestConsensusBranchId } from './coin-table.ts';
import type { ChainParams, NetworkName, SighashAlgorithmName, TxFormat, UtxoCoinName } from './coin-table.ts';
import { CoinError } from './errors.ts';
import { hash160 } from './hash.ts';
import { isCompressedPublicKey } from './keys.ts';
import { OP, classifyOutputScript, decodeScript, p2pkhScript, parseMultisigRedeemScript } from './script.ts';
import type { ScriptChunk } from './script.ts';
import { signatureHash } from './sighash/index.ts';
import type { SighashContext, SpentOutput } from './sighash/index.ts';
import { parseSignatureDer, verifyDerSignature } from './signature.ts';
import { decodeTx, isZcashTx, txFormatOf, txidHex } from './tx.ts';
import type { Tx, TxInput, TxOutput } from './tx.ts';
import { unitsToDecimal } from './units.ts';
import { lockWords } from './spend-locks.ts';

/** An amount in the coin's smallest unit, and as people read it ("0.5 litecoin"). */
export interface ReportAmount {
  readonly units: bigint;
  readonly display: string;
}

export interface SignatureReport {
  /** DER, without the hash type byte. */
  readonly signature: Uint8Array;
  readonly hashType: number;
  /** The key the signature verifies against; null when none (or when it cannot be checked). */
  readonly publicKey: Uint8Array | null;
  /** Counts towards the input: true/false; null when the hash is unknown (input amounts needed). */
  readonly valid: boolean | null;
  /** Why it does not count, in words. */
  readonly problem?: string;
}

export type InputKind = 'p2pkh' | 'multisig' | 'unknown';

export interface InputReport {
  readonly index: number;
  /** Display order, as explorers show txids. */
  readonly prevTxid: Uint8Array;
  readonly vout: number;
  readonly sequence: number;
  readonly kind: InputKind;
  /** 'unsigned': the script holds what is to be signed; 'signed': it holds signatures. */
  readonly form: 'unsigned' | 'signed' | 'unknown';
  /** Signatures needed: 1 for P2PKH, M for M-of-N; null when the input is not understood. */
  readonly required: number | null;
  /** Multisig: the N keys in redeem-script order. P2PKH: the key once signed (unsigned, only its hash is known). */
  readonly publicKeys: readonly Uint8Array[];
  /** P2PKH: the hash160 of the key that must sign. */
  readonly publicKeyHash?: Uint8Array;
  /** The P2PKH scriptPubKey or the redeem script: the script code of the pre-ZIP-244 digests. */
  readonly scriptCode: Uint8Array | null;
  /** The address the input spends from, with this coin's prefixes. */
  readonly address: string | null;
  readonly amount?: ReportAmount;
  /** The digest every key of this input signs; null when it cannot be computed (see hashProblem). */
  readonly hashToSign: Uint8Array | null;
  readonly hashProblem?: string;
  readonly signatures: readonly SignatureReport[];
  readonly validSignatures: number;
  /** The input carries exactly its required count of valid signatures. */
  readonly complete: boolean;
  readonly notes: readonly string[];
}

export type OutputKind = 'p2pkh' | 'p2sh' | 'p2wpkh' | 'p2wsh' | 'p2tr' | 'nulldata' | 'non-standard';

export interface OutputReport {
  readonly index: number;
  readonly kind: OutputKind;
  /** null: no address form on this coin ("non-standard" when rendered). */
  readonly address: string | null;
  readonly script: Uint8Array;
  readonly amount: ReportAmount;
  /** Pays back to an address one of the inputs spends from: usually change. */
  readonly returnsToInput: boolean;
}

export interface ZcashHeaderReport {
  readonly versionGroupId: number;
  /** v5: the branch id in the transaction. v4 carries none: the one the hashes are computed for. */
  readonly consensusBranchId: number;
  readonly branchIdSource: 'transaction' | 'newest-upgrade';
  /** The network upgrade(s) of this coin and network with that branch id; null when none. */
  readonly networkUpgrade: string | null;
  /** 0: never expires. */
  readonly expiryHeight: number;
  readonly shielded: { readonly saplingSpends: number; readonly saplingOutputs: number; readonly orchardActions: number; readonly joinSplits: number };
  /** Net value entering the transparent side from the shielded pools (part of the fee). */
  readonly shieldedValueBalance: bigint;
}

export interface TransactionReport {
  readonly coin: UtxoCoinName;
  readonly network: NetworkName;
  readonly chain: string;
  readonly decimals: number;
  /** Display order. */
  readonly txid: Uint8Array;
  /** False when adding signatures will change the txid (every format but Zcash v5). */
  readonly txidFinal: boolean;
  readonly format: TxFormat;
  readonly version: number;
  readonly locktime: number;
  readonly sighashAlgorithm: SighashAlgorithmName;
  readonly zcash?: ZcashHeaderReport;
  readonly inputs: readonly InputReport[];
  readonly outputs: readonly OutputReport[];
  readonly totals: { readonly outputs: ReportAmount; readonly inputs?: ReportAmount; readonly fee?: ReportAmount };
  /** The coin's digest commits to the spent amounts and they were not given: no hash, no signature check. */
  readonly hashesNeedAmounts: boolean;
  /** Every input carries its required count of valid signatures. */
  readonly complete: boolean;
  readonly warnings: readonly string[];
}

export interface InspectOptions {
  /** The amount of the output each input spends, in input order (all of them, or none). */
  readonly amounts?: readonly bigint[];
}

/** Digests that commit to the spent amounts (and ZIP-244 to every spent scriptPubKey). */
const AMOUNT_COMMITTING: ReadonlySet<SighashAlgorithmName> = new Set(['forkid', 'zip243', 'zip244']);

const OP_RETURN = 0x6a;
const MAX_U64 = 0xffffffffffffffffn;

function amountOf(params: ChainParams, units: bigint): ReportAmount {
  return { units, display: `${unitsToDecimal(units, params.decimals)} ${params.coin}` };
}

function hex8(n: number): string {
  return `0x${(n >>> 0).toString(16).padStart(8, '0')}`;
}

function hex2(n: number): string {
  return `0x${n.toString(16).padStart(2, '0')}`;
}

/** A push with data (OP_0 counts: it pushes an empty array). */
function isPush(c: ScriptChunk): c is ScriptChunk & { data: Uint8Array } {
  return c.data !== undefined;
}

/** What one input is, read from its scriptSig: the spend (if understood) and any signatures in it. */
interface ParsedInput {
  spend: InputSpend | null;
  form: InputReport['form'];
  /** P2PKH signed: the key in the scriptSig. */
  signerKey?: Uint8Array;
  /** Signature pushes with their hash type byte, in script order. */
  sigPushes: Uint8Array[];
  notes: string[];
}

function parseInput(input: TxInput): ParsedInput {
  const unknown = (note: string): ParsedInput => ({ spend: null, form: 'unknown', sigPushes: [], notes: [note] });
  if ((input.witness?.length ?? 0) > 0) return unknown('a segwit input: Countersign neither builds nor checks these');
  const script = input.scriptSig;
  if (script.length === 0) return unknown('its input script is empty: nothing says what it spends');

  // Unsigned, as create returns it: the script code itself.
  const multisig = parseMultisigRedeemScript(script);
  if (multisig) {
    return { spend: { kind: 'multisig', scriptCode: script, required: multisig.m, publicKeys: multisig.pubkeys }, form: 'unsigned', sigPushes: [], notes: [] };
  }
  const out = classifyOutputScript(script);
  if (out.type === 'p2pkh') return { spend: { kind: 'p2pkh', scriptCode: script, pubkeyHash: out.hash }, form: 'unsigned', sigPushes: [], notes: [] };

  let chunks: ScriptChunk[];
  try {
    chunks = decodeScript(script);
  } catch {
    return unknown('its input script is malformed (a data push runs past its end)');
  }
  if (!chunks.every(isPush)) return unknown('its input script is neither a signature nor a script to sign');
  const pushes = chunks.map((c) => c.data);

  // Signed P2PKH: <sig||type> <pubkey>.
  const [sig, key] = pushes;
  if (pushes.length === 2 && sig !== undefined && key !== undefined && (key.length === 33 || key.length === 65) && sig.length > 0) {
    const notes = isCompressedPublicKey(key) ? [] : ['the public key in its script is not a valid compressed public key'];
    return { spend: { kind: 'p2pkh', scriptCode: p2pkhScript(hash160(key)), pubkeyHash: hash160(key) }, form: 'signed', signerKey: key, sigPushes: [sig], notes };
  }

  // Signed (or partly signed) P2SH multisig: OP_0 <sigs...> <redeemScript>.
  const redeem = pushes[pushes.length - 1];
  const parsed = redeem === undefined ? null : parseMultisigRedeemScript(redeem);
  if (redeem !== undefined && parsed && pushes.length >= 2) {
    const notes: string[] = [];
    if (chunks[0]?.opcode !== OP.OP_0) notes.push('its script does not start with OP_0 as multisig spends must (nodes refuse it)');
    // Empty pushes between are placeholders some wallets leave for missing signatures.
    const sigPushes = pushes.slice(1, -1).filter((p) => p.length > 0);
    return {
      spend: { kind: 'multisig', scriptCode: redeem, required: parsed.m, publicKeys: parsed.pubkeys },
      form: 'signed',
      sigPushes,
      notes,
    };
  }
  return unknown('its input script is not one Countersign builds (P2PKH or P2SH multisig)');
}

/** Hash type and DER of a pushed signature, or why it cannot be checked at all. */
interface SigCandidate {
  der: Uint8Array;
  hashType: number;
  problem?: string;
}

function candidate(params: ChainParams, push: Uint8Array): SigCandidate {
  if (push.length < 2) return { der: push, hashType: push[0] ?? 0, problem: 'too short to be a signature' };
  const der = push.slice(0, -1);
  const hashType = push[push.length - 1] ?? 0;
  try {
    parseSignatureDer(der);
  } catch (e) {
    return { der, hashType, problem: e instanceof Error ? e.message : String(e) };
  }
  if (hashType !== params.hashType) {
    return {
      der,
      hashType,
      problem: `hash type ${hex2(hashType)} is not ${hex2(params.hashType)}, the one ${params.coin} payments are signed with: it does not commit to the whole transaction as expected`,
    };
  }
  return { der, hashType };
}

function verifies(hash: Uint8Array, key: Uint8Array, der: Uint8Array): boolean {
  try {
    return verifyDerSignature(hash, key, der);
  } catch {
    // An uncompressed or invalid key: it validates nothing here.
    return false;
  }
}

const ALTERED = "does not verify against this input's hash: made for another transaction, or the transaction was altered";

/**
 * Multisig signatures against keys as OP_CHECKMULTISIG pairs them: both in script order, each
 * signature taking the first remaining key it verifies against. A signature matching no remaining
 * key consumes none here (the interpreter would fail at once), so the others are still reported.
 */
function matchMultisig(hash: Uint8Array | null, keys: readonly Uint8Array[], candidates: readonly SigCandidate[]): SignatureReport[] {
  let next = 0;
  return candidates.map((c): SignatureReport => {
    const base = { signature: c.der, hashType: c.hashType };
    if (c.problem !== undefined) return { ...base, publicKey: null, valid: false, problem: c.problem };
    if (hash === null) return { ...base, publicKey: null, valid: null, problem: 'not checked: the hash is unknown' };
    for (let k = next; k < keys.length; k++) {
      const key = keys[k];
      if (key !== undefined && verifies(hash, key, c.der)) {
        next = k + 1;
        return { ...base, publicKey: key, valid: true };
      }
    }
    const earlier = keys.slice(0, next).findIndex((key) => verifies(hash, key, c.der));
    const earlierKey = keys[earlier];
    if (earlierKey !== undefined) {
      return {
        ...base,
        publicKey: earlierKey,
        valid: false,
        problem: `verifies against key #${earlier + 1}, which an earlier signature already used: signatures must follow the redeem script's key order, one per key`,
      };
    }
    return { ...base, publicKey: null, valid: false, problem: `${ALTERED} (it matches none of the input's keys)` };
  });
}

function checkP2pkh(hash: Uint8Array | null, key: Uint8Array, c: SigCandidate): SignatureReport {
  const base = { signature: c.der, hashType: c.hashType, publicKey: key };
  if (c.problem !== undefined) return { ...base, valid: false, problem: c.problem };
  if (hash === null) return { ...base, valid: null, problem: 'not checked: the hash is unknown' };
  return verifies(hash, key, c.der) ? { ...base, valid: true } : { ...base, valid: false, problem: ALTERED };
}

function outputKind(script: Uint8Array): OutputKind {
  const c = classifyOutputScript(script);
  if (c.type !== 'other') return c.type;
  return script[0] === OP_RETURN ? 'nulldata' : 'non-standard';
}

function inputAddress(params: ChainParams, spend: InputSpend): string {
  // encodeAddress, not p2shAddressOfRedeemScript: an over-long redeem script is still shown.
  return spend.kind === 'p2pkh'
    ? encodeAddress(params, { type: 'p2pkh', hash: spend.pubkeyHash })
    : encodeAddress(params, { type: 'p2sh', hash: hash160(spend.scriptCode) });
}

function upgradeNames(params: ChainParams, branchId: number): string | null {
  const names = params.networkUpgrades.filter((u) => u.branchId === branchId).map((u) => u.name);
  return names.length > 0 ? names.join('/') : null;
}

function zcashHeader(params: ChainParams, tx: Tx, warnings: string[]): ZcashHeaderReport | undefined {
  if (!isZcashTx(tx)) return undefined;
  const chain = describeChain(params);
  let branchId: number;
  let source: ZcashHeaderReport['branchIdSource'];
  if (tx.format === 'zcash-v5') {
    branchId = tx.consensusBranchId;
    source = 'transaction';
  } else if (params.networkUpgrades.length > 0) {
    branchId = latestConsensusBranchId(params);
    source = 'newest-upgrade';
  } else {
    branchId = 0;
    source = 'newest-upgrade';
  }
  const networkUpgrade = upgradeNames(params, branchId);
  if (source === 'transaction' && networkUpgrade === null) {
    warnings.push(`branch id ${hex8(branchId)} is not a network upgrade of ${chain}: the network will refuse this transaction`);
  }
  if (source === 'newest-upgrade' && networkUpgrade !== null) {
    warnings.push(`v4 transactions do not name their network upgrade: hashes are computed for ${networkUpgrade} (${hex8(branchId)}), the newest of ${chain}`);
  }
  const shielded = {
    saplingSpends: tx.sapling.spends.length,
    saplingOutputs: tx.sapling.outputs.length,
    orchardActions: tx.format === 'zcash-v5' ? (tx.orchard?.actions.length ?? 0) : 0,
    joinSplits: tx.format === 'zcash-v4' ? tx.joinSplits.length : 0,
  };
  let balance = tx.sapling.valueBalance;
  if (tx.format === 'zcash-v5') balance += tx.orchard?.valueBalance ?? 0n;
  else for (const js of tx.joinSplits) balance += js.vpubNew - js.vpubOld;
  if (Object.values(shielded).some((n) => n > 0)) {
    warnings.push('the transaction has shielded parts: who they pay is not visible here (Countersign builds transparent-only payments)');
  }
  return { versionGroupId: tx.versionGroupId, consensusBranchId: branchId, branchIdSource: source, networkUpgrade, expiryHeight: tx.expiryHeight, shielded, shieldedValueBalance: balance };
}

function checkAmounts(tx: Tx, amounts: readonly bigint[] | undefined): void {
  if (amounts === undefined) return;
  if (amounts.length !== tx.inputs.length) {
    throw new CoinError(
      `${amounts.length} input amount(s) given for a transaction with ${tx.inputs.length} input(s): give the amount of every input, in input order`,
      'amounts',
    );
  }
  amounts.forEach((a, i) => {
    if (a < 0n || a > MAX_U64) throw new CoinError(`the amount given for input ${i} is out of range: ${a}`, 'amounts');
  });
}

function decode(params: ChainParams, bytes: Uint8Array): Tx {
  if (bytes.length === 0) throw new CoinError('the transaction is empty', 'tx');
  try {
    return decodeTx(bytes, params);
  } catch (e) {
    if (e instanceof CoinError) throw new CoinError(`this is not a valid ${describeChain(params)} transaction: ${e.message}`, 'tx');
    throw e;
  }
}

/**
 * Decodes and checks `tx` for `params`' coin and network. Hashes are recomputed from the
 * transaction; for coins whose digest commits to amounts (fork-id, ZIP-243, ZIP-244) only when
 * `amounts` gives every input's. Malformed bytes are a CoinError; anything decodable gives a
 * report, with what is wrong in it said in the report.
 */
export function inspectTransaction(params: ChainParams, txBytes: Uint8Array, options: InspectOptions = {}): TransactionReport {
  const tx = decode(params, txBytes);
  const { amounts } = options;
  checkAmounts(tx, amounts);
  const chain = describeChain(params);
  const warnings: string[] = [];
  const format = txFormatOf(tx);
  const zcash = zcashHeader(params, tx, warnings);

  const parsed = tx.inputs.map(parseInput);
  const spentScripts = parsed.map((p) => (p.spend ? spentScriptPubKey(p.spend) : null));
  const prevouts: SpentOutput[] | undefined =
    amounts && spentScripts.every((s): s is Uint8Array => s !== null)
      ? spentScripts.map((scriptPubKey, i) => ({ amount: amounts[i] ?? 0n, scriptPubKey }))
      : undefined;
  const hashesNeedAmounts = AMOUNT_COMMITTING.has(params.sighashAlgorithm) && amounts === undefined;
  const wrongFormat = format !== params.txFormat;
  if (wrongFormat) warnings.push(`this is a ${format} transaction, but ${chain} payments are ${params.txFormat} transactions: their hashes cannot be computed`);

  const hashOf = (i: number, spend: InputSpend): { hash: Uint8Array | null; problem?: string } => {
    if (wrongFormat) return { hash: null, problem: `not a ${params.txFormat} transaction` };
    if (hashesNeedAmounts) {
      return { hash: null, problem: `${chain} signatures commit to the amounts being spent: give every input's amount to compute the hashes and check signatures` };
    }
    if (params.sighashAlgorithm === 'zip244' && prevouts === undefined) {
      const unknownAt = spentScripts.findIndex((s) => s === null);
      return { hash: null, problem: `ZIP-244 hashes commit to every output spent, and what input ${unknownAt} spends is unknown` };
    }
    const spent = spentScripts[i];
    const context: SighashContext = {
      scriptCode: spend.scriptCode,
      ...(prevouts ? { prevouts } : amounts && spent ? { amount: amounts[i], scriptPubKey: spent } : {}),
    };
    try {
      return { hash: signatureHash(params, tx, i, context) };
    } catch (e) {
      if (!(e instanceof CoinError)) throw e;
      return { hash: null, problem: e.message };
    }
  };

  const inputs = tx.inputs.map((input, i): InputReport => {
    const p = parsed[i] ?? parseInput(input);
    const amount = amounts?.[i] === undefined ? {} : { amount: amountOf(params, amounts[i] ?? 0n) };
    const common = { index: i, prevTxid: input.prevTxid, vout: input.vout, sequence: input.sequence, form: p.form, ...amount };
    const { spend } = p;
    if (spend === null) {
      return { ...common, kind: 'unknown', required: null, publicKeys: [], scriptCode: null, address: null, hashToSign: null, hashProblem: 'the input is not understood', signatures: [], validSignatures: 0, complete: false, notes: p.notes };
    }
    const { hash, problem } = hashOf(i, spend);
    const candidates = p.sigPushes.map((s) => candidate(params, s));
    const notes = [...p.notes];
    let signatures: SignatureReport[];
    let required: number;
    let publicKeys: Uint8Array[];
    if (spend.kind === 'multisig') {
      required = spend.required;
      publicKeys = spend.publicKeys;
      signatures = matchMultisig(hash, publicKeys, candidates);
      if (candidates.length > required) notes.push(`it carries ${candidates.length} signatures where the redeem script takes exactly ${required}: nodes refuse that`);
    } else {
      required = 1;
      publicKeys = p.signerKey ? [p.signerKey] : [];
      signatures = p.signerKey && candidates[0] ? [checkP2pkh(hash, p.signerKey, candidates[0])] : [];
    }
    const validSignatures = signatures.filter((s) => s.valid === true).length;
    return {
      ...common,
      kind: spend.kind,
      required,
      publicKeys,
      ...(spend.kind === 'p2pkh' ? { publicKeyHash: spend.pubkeyHash } : {}),
      scriptCode: spend.scriptCode,
      address: inputAddress(params, spend),
      hashToSign: hash,
      ...(problem === undefined ? {} : { hashProblem: problem }),
      signatures,
      validSignatures,
      complete: validSignatures === required && signatures.length === required,
      notes,
    };
  });

  const inputAddresses = new Set(inputs.map((i) => i.address).filter((a): a is string => a !== null));
  const outputs = tx.outputs.map((o: TxOutput, index): OutputReport => {
    const kind = outputKind(o.script);
    const address = scriptToAddress(params, o.script);
    if (kind !== 'nulldata' && o.value < params.dustLimit) {
      warnings.push(`output ${index} pays ${unitsToDecimal(o.value, params.decimals)} ${params.coin}, below the dust limit of ${params.dustLimit} units: nodes will not relay the transaction`);
    }
    if (kind === 'non-standard') warnings.push(`output ${index} pays to a non-standard script with no address: check it with whoever built the transaction`);
    return { index, kind, address, script: o.script, amount: amountOf(params, o.value), returnsToInput: address !== null && inputAddresses.has(address) };
  });

  const outputSum = tx.outputs.reduce((s, o) => s + o.value, 0n);
  let totals: TransactionReport['totals'] = { outputs: amountOf(params, outputSum) };
  if (amounts) {
    const inputSum = amounts.reduce((s, a) => s + a, 0n);
    const fee = inputSum - outputSum + (zcash?.shieldedValueBalance ?? 0n);
    if (fee < 0n) warnings.push('the outputs pay more than the inputs (with the amounts given) bring in: the amounts are wrong, or the network will refuse the transaction');
    totals = { ...totals, inputs: amountOf(params, inputSum), fee: amountOf(params, fee) };
  }

  // A lock on when it can be mined is signed with it (spend-locks.ts): said in words, as the desk's co-signers see it.
  for (const lock of lockWords(params, tx)) warnings.push(`${lock}: a payment built by Countersign carries none, except a vault's recovery path (its older())`);
  if (tx.inputs.length === 0) warnings.push('the transaction has no transparent inputs');
  if (tx.outputs.length === 0) warnings.push('the transaction has no transparent outputs');
  const complete = inputs.length > 0 && inputs.every((i) => i.complete);
  if (hashesNeedAmounts) {
    warnings.push(`${chain} signature hashes commit to the input amounts: give the amount of every input to see the hashes to sign and check signatures`);
  }
  return {
    coin: params.coin,
    network: params.network,
    chain,
    decimals: params.decimals,
    txid: hexToBytes(txidHex(tx)),
    // ZIP-244 txids leave input scripts out; every other txid hashes the signatures too.
    txidFinal: complete || format === 'zcash-v5',
    format,
    version: tx.version,
    locktime: tx.locktime,
    sighashAlgorithm: params.sighashAlgorithm,
    ...(zcash ? { zcash } : {}),
    inputs,
    outputs,
    totals,
    hashesNeedAmounts,
    complete,
    warnings,
  };
}

function signatureLine(s: SignatureReport): string {
  const status = s.valid === true ? 'valid' : s.valid === false ? 'INVALID' : 'not checked';
  return `${status} (hash type ${hex2(s.hashType)})${s.problem ? `: ${s.problem}` : ''}`;
}

/** An aligned "label  value" line of an input. */
function row(label: string, value: string): string {
  return `      ${label.padEnd(13)} ${value}`;
}

function inputLines(input: InputReport): string[] {
  const lines: string[] = [];
  const kind =
    input.kind === 'multisig'
      ? `${input.required}-of-${input.publicKeys.length} multisig`
      : input.kind === 'p2pkh'
        ? 'single key (P2PKH)'
        : 'not understood';
  lines.push(`  #${input.index}  spends ${bytesToHex(input.prevTxid)}:${input.vout}`);
  lines.push(row('from', `${input.address ?? 'unknown'} (${kind})`));
  if (input.amount) lines.push(row('amount', `${input.amount.units} units (${input.amount.display})`));
  if (input.kind !== 'unknown') {
    lines.push(row('hash to sign', input.hashToSign ? bytesToHex(input.hashToSign) : `unknown: ${input.hashProblem ?? ''}`));
  }
  const shown = new Set<SignatureReport>();
  // Unchecked signatures are listed below; which keys made them is not known yet.
  const unsigned = input.signatures.some((s) => s.valid === null) ? 'unknown (signatures not checked)' : 'not signed';
  if (input.kind === 'multisig') {
    lines.push(row('signatures', `${input.validSignatures} valid of ${input.required} required${input.complete ? ' (complete)' : ''}`));
    input.publicKeys.forEach((key, k) => {
      const sig = input.signatures.find((s) => s.valid === true && s.publicKey !== null && equalBytes(s.publicKey, key));
      if (sig) shown.add(sig);
      lines.push(`        key ${k + 1}  ${bytesToHex(key)}  ${sig ? `signed: ${signatureLine(sig)}` : unsigned}`);
    });
  } else if (input.kind === 'p2pkh') {
    const key = input.publicKeys[0];
    const sig = input.signatures[0];
    if (sig) shown.add(sig);
    const who = key ? bytesToHex(key) : `the key of ${input.address ?? 'this address'}`;
    lines.push(row('key', `${who}  ${sig ? `signed: ${signatureLine(sig)}` : 'not signed'}`));
  }
  for (const s of input.signatures) {
    if (!shown.has(s)) lines.push(`        signature ${bytesToHex(s.signature).slice(0, 16)}...  ${signatureLine(s)}`);
  }
  for (const note of input.notes) lines.push(row('note', note));
  return lines;
}

function statusLine(report: TransactionReport): string {
  if (report.complete) return 'COMPLETE: every input carries its required valid signatures';
  if (report.hashesNeedAmounts) return 'NOT CHECKED: the input amounts are needed to compute the hashes and check signatures';
  const missing = report.inputs.filter((i) => !i.complete).map((i) => (i.required === null ? `input ${i.index} not understood` : `input ${i.index} has ${i.validSignatures} of ${i.required}`));
  const anySigs = report.inputs.some((i) => i.signatures.length > 0);
  return `${anySigs ? 'INCOMPLETE' : 'UNSIGNED'}: ${missing.join('; ')}`;
}

/** The report as text for a terminal: amounts with units, addresses, per input its hash and signatures. */
export function formatReport(report: TransactionReport): string {
  const lines: string[] = [];
  lines.push(`${report.chain} transaction`);
  lines.push(`  txid      ${bytesToHex(report.txid)}${report.txidFinal ? '' : ' (changes once all signatures are in)'}`);
  lines.push(`  format    ${report.format}, version ${report.version}, locktime ${report.locktime}, signature hash ${report.sighashAlgorithm}`);
  const z = report.zcash;
  if (z) {
    const upgrade = z.networkUpgrade ?? 'unknown upgrade';
    const source = z.branchIdSource === 'transaction' ? '' : ' (not in v4 transactions: assumed)';
    lines.push(`  zcash     version group ${hex8(z.versionGroupId)}, branch id ${hex8(z.consensusBranchId)} ${upgrade}${source}, expiry height ${z.expiryHeight === 0 ? '0 (never expires)' : z.expiryHeight}`);
  }
  lines.push(`  status    ${statusLine(report)}`);
  lines.push('', `Inputs (${report.inputs.length})`);
  for (const input of report.inputs) lines.push(...inputLines(input));
  lines.push('', `Outputs (${report.outputs.length})`);
  for (const o of report.outputs) {
    const to = o.address ?? (o.kind === 'nulldata' ? 'data (OP_RETURN)' : 'non-standard');
    lines.push(`  #${o.index}  ${to}  ${o.amount.units} units (${o.amount.display})${o.returnsToInput ? '  [back to an input address: change]' : ''}`);
  }
  const t = report.totals;
  lines.push('', 'Totals');
  lines.push(`  outputs   ${t.outputs.units} units (${t.outputs.display})`);
  if (t.inputs && t.fee) {
    lines.push(`  inputs    ${t.inputs.units} units (${t.inputs.display})`);
    lines.push(`  fee       ${t.fee.units} units (${t.fee.display})`);
  } else {
    lines.push('  inputs    unknown (amounts not given)');
  }
  if (report.warnings.length > 0) {
    lines.push('', 'Warnings');
    for (const w of report.warnings) lines.push(`  - ${w}`);
  }
  return `${lines.join('\n')}\n`;
}
