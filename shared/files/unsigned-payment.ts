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
import { multisigInputHash } from '../coins/assemble-multisig.ts';
import { deriveAddress } from '../coins/multisig-address.ts';
import type { MultisigScriptOptions } from '../coins/multisig-script.ts';
import { readUnsignedMultisigInput } from '../coins/unsigned-witness.ts';
import { coinAmount } from '../coins/units.ts';
import { PaymentCheckError } from './errors.ts';

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
  /** In redeem-script (= co-signer) order. */
  publicKeys: Uint8Array[];
  hash: Uint8Array;
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

/**
 * Throws PaymentCheckError(code) saying what differs; returns the recomputed hashes otherwise. Pure.
 * `script`: the wallet's script type and key order; absent or P2SH with keys as given, the
 * original check.
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
): VerifiedPayment {
  const fail = (why: string): never => {
    throw new PaymentCheckError(code, why);
  };
  if ((script.scriptType ?? 'p2sh') !== 'p2sh' || script.sortKeys === true) {
    return verifyScripted(params, m, xpubs, tx, claims, expected, minersFee, script, fail);
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
  if (tx.outputs.length !== expected.length) {
    fail(`the transaction has ${tx.outputs.length} outputs where ${expected.length} were asked for (${expected.map((e) => e.purpose).join(', ')})`);
  }
  tx.outputs.forEach((o, i) => {
    const e = expected[i]!;
    const address = scriptToAddress(params, o.script);
    if (address !== e.address) fail(`output ${i} (${e.purpose}) pays ${address ?? 'a non-standard script'} instead of ${e.address}`);
    if (o.value !== e.amount) fail(`output ${i} (${e.purpose}) pays ${coinAmount(params, o.value)} instead of ${coinAmount(params, e.amount)}`);
  });
  const totalInput = claims.reduce((s, c) => s + c.amount, 0n);
  const totalOutput = tx.outputs.reduce((s, o) => s + o.value, 0n);
  if (totalInput - totalOutput !== minersFee) fail(`the miners' fee would be ${totalInput - totalOutput}, not the ${minersFee} asked for`);
  return { inputs, totalInput, totalOutput };
}
