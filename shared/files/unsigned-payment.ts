// The offline check of an unsigned multisig payment, shared by the treasurer (on the service's
// answer) and the co-signer (on a request file): decode the transaction ourselves, re-derive every
// redeem script from the xpubs, recompute every hash, and compare the outputs with what was asked.
import {
  decodeTx,
  equalBytes,
  inspectTransaction,
  scriptToAddress,
  type ChainParams,
} from '../coins/index.ts';
import { miniscriptInputHash, readUnsignedMiniscriptInput, relativeLockProblem, RELATIVE_LOCK_TX_VERSION } from '../coins/assemble-miniscript.ts';
import { multisigInputHash } from '../coins/assemble-multisig.ts';
import { CoinError } from '../coins/errors.ts';
import type { TxOutput } from '../coins/tx.ts';
import type { VaultPolicy } from '../coins/vault-policy.ts';
import { vaultInputSpend, type VaultPathKey } from '../coins/vault-spend.ts';
import { deriveAddress } from '../coins/multisig-address.ts';
import type { MultisigScriptOptions } from '../coins/multisig-script.ts';
import { readUnsignedMultisigInput } from '../coins/unsigned-witness.ts';
import { acceptedLocks, lockProblems, type AcceptedLocks } from '../coins/spend-locks.ts';
import type { Tx } from '../coins/tx.ts';
import { coinAmount } from '../coins/units.ts';
import { PaymentCheckError } from './errors.ts';
import { plural } from '../api/words.ts';

export type OutputPurpose = 'payment' | 'operator_fee' | 'change';

export interface ExpectedOutput {
  address: string;
  amount: bigint;
  purpose: OutputPurpose;
}

export interface InputClaim {
  amount: bigint;
  /** Below the xpubs: 0/i or 1/i. */
  path: string;
}

export interface VerifiedInput {
  index: number;
  amount: bigint;
  path: string;
  change: boolean;
  addressIndex: number;
  address: string;
  redeemScript: Uint8Array;
  /** In redeem-script (= co-signer) order; a vault's: the chosen path's keys. */
  publicKeys: Uint8Array[];
  hash: Uint8Array;
  /** A vault's input: who holds each of `publicKeys` (policy key = co-signer position) and where below its xpub. */
  pathKeys?: readonly VaultPathKey[];
}

export interface VerifiedPayment {
  inputs: VerifiedInput[];
  totalInput: bigint;
  totalOutput: bigint;
}

function parsePath(path: string): { change: boolean; index: number } {
  const [c, i] = path.split('/');
  return { change: c === '1', index: Number(i) };
}

/** The version, nLockTime and nSequence values are the accepted ones (spend-locks.ts), or a refusal naming each lock. */
function checkLocks(params: ChainParams, tx: Tx, locks: AcceptedLocks, fail: (why: string) => never): void {
  const problems = lockProblems(params, tx, locks);
  if (problems.length > 0) fail(problems.join('; '));
}

/**
 * Throws PaymentCheckError(code) saying what differs; returns the recomputed hashes otherwise. Pure.
 * `script`: the wallet's script type and key order; absent or P2SH with keys as given, the
 * original check. `locks`: the version, nLockTime and nSequence values accepted; by default those of
 * any kind of payment (docs/file-formats.md), the desk passes the exact ones it asked for.
 */
export function verifyUnsignedPayment(
  params: ChainParams,
  m: number,
  xpubs: readonly string[],
  tx: Uint8Array,
  claims: readonly InputClaim[],
  expected: readonly ExpectedOutput[],
  minersFee: bigint,
  code = 'mismatch',
  script: MultisigScriptOptions = {},
  locks: AcceptedLocks = acceptedLocks(params, { vault: false, older: 0 }),
): VerifiedPayment {
  const fail = (why: string): never => {
    throw new PaymentCheckError(code, why);
  };
  if ((script.scriptType ?? 'p2sh') !== 'p2sh' || script.sortKeys === true) {
    return verifyScripted(params, m, xpubs, tx, claims, expected, minersFee, script, locks, fail);
  }
  let report;
  try {
    report = inspectTransaction(params, tx, { amounts: claims.map((c) => c.amount) });
  } catch (err) {
    return fail(`the transaction cannot be decoded or does not fit its input amounts: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (report.inputs.length !== claims.length) fail(`the transaction has ${report.inputs.length} inputs, ${claims.length} were described`);

  const inputs = report.inputs.map((input, i): VerifiedInput => {
    const claim = claims[i]!;
    const { change, index } = parsePath(claim.path);
    const derived = deriveAddress(params, m, xpubs, change, index);
    if (input.kind !== 'multisig' || input.form !== 'unsigned' || !input.scriptCode) fail(`input ${i} is not an unsigned multisig input of this wallet`);
    if (!equalBytes(input.scriptCode!, derived.redeemScript)) {
      fail(`input ${i} spends with a redeem script that is not this wallet's at ${claim.path} (${derived.address})`);
    }
    if (!input.hashToSign) fail(`the hash of input ${i} cannot be computed: ${input.hashProblem ?? 'unknown reason'}`);
    return {
      index: i,
      amount: claim.amount,
      path: claim.path,
      change,
      addressIndex: index,
      address: derived.address,
      redeemScript: derived.redeemScript,
      publicKeys: derived.publicKeys,
      hash: input.hashToSign!,
    };
  });
  checkLocks(params, decodeTx(tx, params), locks, fail);

  if (report.outputs.length !== expected.length) {
    fail(`the transaction has ${report.outputs.length} outputs where ${expected.length} were asked for (${expected.map((e) => e.purpose).join(', ')})`);
  }
  report.outputs.forEach((o, i) => {
    const e = expected[i]!;
    if (o.address !== e.address) fail(`output ${i} (${e.purpose}) pays ${o.address ?? 'a non-standard script'} instead of ${e.address}`);
    if (o.amount.units !== e.amount) fail(`output ${i} (${e.purpose}) pays ${coinAmount(params, o.amount.units)} instead of ${coinAmount(params, e.amount)}`);
  });
  const totalInput = claims.reduce((s, c) => s + c.amount, 0n);
  const totalOutput = report.outputs.reduce((s, o) => s + o.amount.units, 0n);
  if (totalInput - totalOutput !== minersFee) fail(`the miners' fee would be ${totalInput - totalOutput}, not the ${minersFee} asked for`);
  return { inputs, totalInput, totalOutput };
}

/**
 * The same check for a wallet of any script type and key order: each input must be the wallet's
 * script at its path, in the wallet's type (a segwit input's witness script, a P2SH input's redeem
 * script), and its hash is recomputed with the claimed amount (BIP143 for segwit inputs).
 */
function verifyScripted(
  params: ChainParams,
  m: number,
  xpubs: readonly string[],
  bytes: Uint8Array,
  claims: readonly InputClaim[],
  expected: readonly ExpectedOutput[],
  minersFee: bigint,
  script: MultisigScriptOptions,
  locks: AcceptedLocks,
  fail: (why: string) => never,
): VerifiedPayment {
  let tx;
  try {
    const decoded = decodeTx(bytes, params);
    if (decoded.format !== undefined && decoded.format !== 'bitcoin') return fail('a segwit payment must be a Bitcoin-format transaction');
    tx = decoded;
  } catch (err) {
    return fail(`the transaction cannot be decoded: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (tx.inputs.length !== claims.length) fail(`the transaction has ${tx.inputs.length} inputs, ${claims.length} were described`);
  const inputs = tx.inputs.map((input, i): VerifiedInput => {
    const claim = claims[i]!;
    const { change, index } = parsePath(claim.path);
    const derived = deriveAddress(params, m, xpubs, change, index, script);
    let read;
    try {
      read = readUnsignedMultisigInput(input, i);
    } catch (err) {
      return fail(err instanceof Error ? err.message : String(err));
    }
    if (!read) return fail(`input ${i} is not an unsigned multisig input of this wallet`);
    if (read.scriptType !== derived.scriptType) fail(`input ${i} is spent as ${read.scriptType}; this wallet's addresses are ${derived.scriptType}`);
    if (!equalBytes(read.multisigScript, derived.multisigScript)) fail(`input ${i} spends with a script that is not this wallet's at ${claim.path} (${derived.address})`);
    let hash: Uint8Array;
    try {
      hash = multisigInputHash(params, tx, i, { scriptType: read.scriptType, multisigScript: read.multisigScript, amount: claim.amount, scriptPubKey: derived.scriptPubKey });
    } catch (err) {
      return fail(`the hash of input ${i} cannot be computed: ${err instanceof Error ? err.message : String(err)}`);
    }
    return { index: i, amount: claim.amount, path: claim.path, change, addressIndex: index, address: derived.address, redeemScript: derived.multisigScript, publicKeys: derived.publicKeys, hash };
  });
  checkLocks(params, tx, locks, fail);
  return { inputs, ...checkOutputs(params, tx.outputs, claims, expected, minersFee, fail) };
}

/** The outputs are exactly those asked for, in order, and the fee is the one asked for. */
function checkOutputs(params: ChainParams, outputs: readonly TxOutput[], claims: readonly InputClaim[], expected: readonly ExpectedOutput[], minersFee: bigint, fail: (why: string) => never): { totalInput: bigint; totalOutput: bigint } {
  if (outputs.length !== expected.length) {
    fail(`the transaction has ${outputs.length} outputs where ${expected.length} were asked for (${expected.map((e) => e.purpose).join(', ')})`);
  }
  outputs.forEach((o, i) => {
    const e = expected[i]!;
    const address = scriptToAddress(params, o.script);
    if (address !== e.address) fail(`output ${i} (${e.purpose}) pays ${address ?? 'a non-standard script'} instead of ${e.address}`);
    if (o.value !== e.amount) fail(`output ${i} (${e.purpose}) pays ${coinAmount(params, o.value)} instead of ${coinAmount(params, e.amount)}`);
  });
  const totalInput = claims.reduce((s, c) => s + c.amount, 0n);
  const totalOutput = outputs.reduce((s, o) => s + o.value, 0n);
  if (totalInput - totalOutput !== minersFee) fail(`the miners' fee would be ${totalInput - totalOutput}, not the ${minersFee} asked for`);
  return { totalInput, totalOutput };
}

/**
 * The same check for a miniscript vault spent on the path that opens after `blocks` (issue 27):
 * version 2 (BIP68), each input the unsigned vault form (docs/api-decisions.md, section 12) whose
 * witness script is the one the vault derives at the claimed path and whose path is the chosen
 * one, its nSequence meeting the path's timelock; each input's BIP143 hash recomputed, signed by
 * the path's keys only; the version, nLockTime and nSequence values the accepted ones (`locks`: by
 * default those of any kind of spend on that path, docs/file-formats.md; the desk passes the exact
 * ones it asked for). Pure; throws PaymentCheckError(code) saying what differs.
 */
export function verifyUnsignedVaultPayment(
  params: ChainParams,
  policy: VaultPolicy,
  blocks: number,
  bytes: Uint8Array,
  claims: readonly InputClaim[],
  expected: readonly ExpectedOutput[],
  minersFee: bigint,
  code = 'mismatch',
  locks: AcceptedLocks = acceptedLocks(params, { vault: true, older: blocks }),
): VerifiedPayment {
  const fail = (why: string): never => {
    throw new PaymentCheckError(code, why);
  };
  const words = <T>(f: () => T): T => {
    try {
      return f();
    } catch (err) {
      if (err instanceof CoinError) return fail(err.message);
      throw err;
    }
  };
  let tx;
  try {
    tx = decodeTx(bytes, params);
  } catch (err) {
    return fail(`the transaction cannot be decoded: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (tx.format !== undefined && tx.format !== 'bitcoin') return fail('a vault payment must be a Bitcoin-format transaction');
  if (tx.version < RELATIVE_LOCK_TX_VERSION) fail(`the transaction has version ${tx.version}; a vault spend has version ${RELATIVE_LOCK_TX_VERSION} (relative timelocks, BIP68)`);
  if (tx.inputs.length !== claims.length) fail(`the transaction has ${tx.inputs.length} inputs, ${claims.length} were described`);
  const decoded = tx;
  const inputs = decoded.inputs.map((input, i): VerifiedInput => {
    const claim = claims[i]!;
    const { change, index } = parsePath(claim.path);
    const ours = words(() => vaultInputSpend(params, policy, change, index, blocks));
    const read = words(() => readUnsignedMiniscriptInput(input, i)) ?? fail(`input ${i} is not an unsigned vault input (miniscript, path, witness script)`);
    if (!equalBytes(read.compiled.witnessScript, ours.witnessScript)) fail(`input ${i}'s witness script is not the one this vault derives at ${claim.path} (${ours.address.address})`);
    if (read.path !== ours.path.index) fail(`input ${i} is spent on path ${read.path}, not on the chosen path ${ours.path.index} (${blocks === 0 ? 'the primary path' : `the path that opens after ${plural(blocks, 'block')}`})`);
    const lock = relativeLockProblem(decoded, i, ours.path);
    if (lock !== null) fail(lock);
    const hash = words(() => miniscriptInputHash(params, decoded, i, { compiled: read.compiled, paths: read.paths, path: read.path, amount: claim.amount, scriptPubKey: ours.address.scriptPubKey }));
    const keys = ours.pathKeys;
    return { index: i, amount: claim.amount, path: claim.path, change, addressIndex: index, address: ours.address.address, redeemScript: ours.witnessScript, publicKeys: keys.map((k) => k.publicKey), hash, pathKeys: keys };
  });
  checkLocks(params, decoded, locks, fail);
  return { inputs, ...checkOutputs(params, decoded.outputs, claims, expected, minersFee, fail) };
}
