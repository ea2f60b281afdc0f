/**
 * A signed multisig PSBT checked on its own terms, then finalized: what each input spends (read
 * from its entries: the previous transaction proves the amount, the scripts must hash to the
 * spent output), every signature verified against that input's digest (BIP143 with the amount
 * for the segwit types), and the signed transaction assembled by the money core
 * (assembleMultisigSpend). Refusals are PaymentCheckErrors whose code is the desk's refusal:
 * 'malformed' (the file cannot be used), 'tampered' (something does not hash or verify),
 * 'foreign' (a key that is not in the script), 'incomplete' (too few signatures to finalize).
 */
import { coinAmount } from '../coins/units.ts';
import {
  assembleMultisigSpend,
  bytesToHex,
  checkMultisigSignature,
  classifyOutputScript,
  decodeScript,
  equalBytes,
  hash160,
  parseMultisigRedeemScript,
  sha256,
  p2wshScript,
  requireScriptType,
  type ChainParams,
  type MultisigInputSpend,
  type MultisigScriptType,
} from '../coins/index.ts';
import { sighashTypeInDigest } from '../coins/coin-table.ts';
import type { BitcoinTx } from '../coins/tx.ts';
import { FileFormatError, PaymentCheckError } from './errors.ts';
import { INPUT, findEntry, outputOfRaw, type DecodedPsbt, type PsbtMap } from './psbt.ts';
import { decodeWitnessStack, psbtSignatures } from './psbt-multisig.ts';

/** A signature that verified for its input and key: DER without the hash type byte. */
export interface VerifiedPsbtSignature {
  inputIndex: number;
  publicKey: Uint8Array;
  signature: Uint8Array;
}

const refuse = (code: 'malformed' | 'tampered' | 'foreign' | 'incomplete', message: string): never => {
  throw new PaymentCheckError(code, message);
};

const P2WSH_PROGRAM_LENGTH = 34;
const isP2wshProgram = (s: Uint8Array) => s.length === P2WSH_PROGRAM_LENGTH && s[0] === 0x00 && s[1] === 0x20;

/** The hash type a coin's signatures carry, named: SIGHASH_ALL (0x01), or with the fork id bit (0x41). */
export function hashTypeName(hashType: number): string {
  const hex = `0x${hashType.toString(16).padStart(2, '0')}`;
  return hashType === 0x01 ? `SIGHASH_ALL (${hex})` : hashType === 0x41 ? `SIGHASH_ALL|FORKID (${hex})` : hex;
}

/**
 * An input's redeem and witness scripts: their own entries, or, once a signer finalized the input
 * (BIP174's finalizer drops those entries), the last item of its final scriptSig and witness.
 * Either way they are checked against the spent output below.
 */
function carriedScripts(map: PsbtMap, i: number): { redeem?: Uint8Array; witness?: Uint8Array } {
  const finalScript = findEntry(map, INPUT.FINAL_SCRIPTSIG)?.value;
  const finalWitness = findEntry(map, INPUT.FINAL_SCRIPTWITNESS)?.value;
  let redeem = findEntry(map, INPUT.REDEEM_SCRIPT)?.value;
  let witness = findEntry(map, INPUT.WITNESS_SCRIPT)?.value;
  if (!redeem && finalScript && finalScript.length > 0) {
    try {
      redeem = decodeScript(finalScript).at(-1)?.data;
    } catch {
      refuse('malformed', `input ${i}'s final script cannot be decoded`);
    }
  }
  if (!witness && finalWitness) witness = decodeWitnessStack(finalWitness, `input ${i}'s final witness`).at(-1);
  return { ...(redeem ? { redeem } : {}), ...(witness ? { witness } : {}) };
}

function scriptsOf(map: PsbtMap, i: number, spent: Uint8Array): { scriptType: MultisigScriptType; multisigScript: Uint8Array } {
  let carried;
  try {
    carried = carriedScripts(map, i);
  } catch (err) {
    if (err instanceof FileFormatError) return refuse('malformed', err.message);
    throw err;
  }
  const { redeem, witness } = carried;
  const out = classifyOutputScript(spent);
  if (out.type === 'p2wsh') {
    if (!witness) return refuse('malformed', `input ${i} spends a P2WSH output but carries no witness script (WITNESS_SCRIPT)`);
    if (!equalBytes(sha256(witness), out.hash)) return refuse('tampered', `input ${i}: its witness script does not hash to the P2WSH output it spends (${bytesToHex(spent)})`);
    return { scriptType: 'p2wsh', multisigScript: witness };
  }
  if (out.type !== 'p2sh') return refuse('malformed', `input ${i} spends a ${out.type} output (${bytesToHex(spent)}), not a P2SH, P2SH-P2WSH or P2WSH multisig`);
  if (!redeem) return refuse('malformed', `input ${i} spends a P2SH output but carries no redeem script (REDEEM_SCRIPT)`);
  if (!equalBytes(hash160(redeem), out.hash)) return refuse('tampered', `input ${i}: its redeem script does not hash to the P2SH output it spends (${bytesToHex(spent)})`);
  if (!witness && !isP2wshProgram(redeem)) return { scriptType: 'p2sh', multisigScript: redeem };
  if (!witness) return refuse('malformed', `input ${i} spends a P2SH-P2WSH output but carries no witness script (WITNESS_SCRIPT)`);
  if (!equalBytes(p2wshScript(witness), redeem)) {
    return refuse('tampered', `input ${i}: its witness script does not hash to the P2SH-P2WSH output it spends (its program is ${bytesToHex(redeem)})`);
  }
  return { scriptType: 'p2sh-p2wsh', multisigScript: witness };
}

/**
 * What each input of a PSBT spends, read from its own entries and checked: the previous
 * transaction (NON_WITNESS_UTXO, required for every input; decodePsbt has checked it hashes to
 * the input's txid and agrees with any WITNESS_UTXO) gives the amount and scriptPubKey; the
 * redeem / witness script must hash to that output and be an M-of-N multisig. With `expected`
 * (the desk's own spends, in input order) each must also be exactly the desk's.
 */
export function psbtMultisigSpends(params: ChainParams, psbt: DecodedPsbt, expected?: readonly MultisigInputSpend[]): MultisigInputSpend[] {
  if (expected && expected.length !== psbt.tx.inputs.length) {
    throw new PaymentCheckError('tampered', `the PSBT has ${psbt.tx.inputs.length} inputs, the payment ${expected.length}`);
  }
  return psbt.inputs.map((map, i) => {
    const vout = psbt.tx.inputs[i]!.vout;
    const full = findEntry(map, INPUT.NON_WITNESS_UTXO);
    if (!full) return refuse('malformed', `input ${i} carries no previous transaction (NON_WITNESS_UTXO): it proves the amount a signature commits to`);
    const spent = outputOfRaw(full.value, vout);
    if (!spent) return refuse('malformed', `input ${i}: its previous transaction has no output ${vout}`);
    const scripts = scriptsOf(map, i, spent.script);
    if (!parseMultisigRedeemScript(scripts.multisigScript)) return refuse('malformed', `input ${i}: its script is not a multisig script (OP_M <keys> OP_N OP_CHECKMULTISIG)`);
    try {
      requireScriptType(params, scripts.scriptType);
    } catch (err) {
      return refuse('malformed', `input ${i}: ${(err as Error).message}`);
    }
    const spend: MultisigInputSpend = { ...scripts, amount: spent.value, scriptPubKey: spent.script };
    const ours = expected?.[i];
    if (ours) {
      if (ours.scriptType !== spend.scriptType) refuse('tampered', `input ${i} is ${spend.scriptType} in the PSBT, ${ours.scriptType} in the payment`);
      if (!equalBytes(ours.multisigScript, spend.multisigScript)) refuse('tampered', `input ${i}: the PSBT's ${spend.scriptType === 'p2sh' ? 'redeem' : 'witness'} script is not the wallet's`);
      if (ours.amount !== spend.amount) refuse('tampered', `input ${i} spends ${coinAmount(params, spend.amount)} in the PSBT, ${coinAmount(params, ours.amount)} in the payment`);
      if (ours.scriptPubKey && !equalBytes(ours.scriptPubKey, spend.scriptPubKey!)) refuse('tampered', `input ${i} spends script ${bytesToHex(spend.scriptPubKey!)} in the PSBT, ${bytesToHex(ours.scriptPubKey)} in the payment`);
    }
    return spend;
  });
}

/**
 * Every signature of the PSBT (PARTIAL_SIG entries, and those of inputs a signer finalized),
 * each checked against its input's digest recomputed from the PSBT's transaction and `spends`
 * (from psbtMultisigSpends): its hash type and any SIGHASH_TYPE must be the coin's (SIGHASH_ALL,
 * or ALL|FORKID), its key one of the script's, and it must verify. All or a refusal.
 */
export function verifyPsbtSignatures(params: ChainParams, psbt: DecodedPsbt, spends: readonly MultisigInputSpend[]): VerifiedPsbtSignature[] {
  let found;
  try {
    found = psbtSignatures(psbt, spends.map((s) => s.multisigScript));
  } catch (err) {
    if (err instanceof FileFormatError) return refuse('tampered', err.message);
    throw err;
  }
  const want = hashTypeName(params.hashType);
  for (const [i, type] of found.sighashTypes) {
    if (type !== params.hashType && type !== sighashTypeInDigest(params)) refuse('tampered', `input ${i} asks for signature hash type 0x${type.toString(16)}; only ${want} signatures are taken`);
  }
  const badType = [...found.partial, ...found.final].find((s) => s.hashType !== params.hashType);
  if (badType) refuse('tampered', `a signature of input ${badType.inputIndex} has hash type 0x${badType.hashType.toString(16)}, not ${want}`);

  const verify = (s: VerifiedPsbtSignature): string | undefined => {
    try {
      checkMultisigSignature(params, psbt.tx, spends[s.inputIndex]!, s);
      return undefined;
    } catch (err) {
      return (err as Error).message;
    }
  };
  const keysOf = (i: number) => parseMultisigRedeemScript(spends[i]!.multisigScript)?.pubkeys ?? [];
  const verified: VerifiedPsbtSignature[] = [];
  for (const s of found.partial) {
    const sig = { inputIndex: s.inputIndex, publicKey: s.publicKey, signature: s.signature };
    if (!keysOf(s.inputIndex).some((k) => equalBytes(k, s.publicKey))) {
      refuse('foreign', `input ${s.inputIndex}: key ${bytesToHex(s.publicKey)} is not one of the keys in its script`);
    }
    const problem = verify(sig);
    if (problem) refuse('tampered', problem);
    verified.push(sig);
  }
  // A finalized input names no keys: each signature must verify for one of the input's keys.
  for (const s of found.final) {
    const match = keysOf(s.inputIndex)
      .map((publicKey) => ({ inputIndex: s.inputIndex, publicKey, signature: s.signature }))
      .find((sig) => verify(sig) === undefined);
    if (!match) refuse('tampered', `a signature in input ${s.inputIndex}'s final ${spends[s.inputIndex]!.scriptType === 'p2sh' ? 'script' : 'witness'} verifies for none of its keys`);
    else verified.push(match);
  }
  return verified;
}

/**
 * The signed transaction of a PSBT holding M valid signatures per input: P2SH inputs get their
 * scriptSig, P2WSH / P2SH-P2WSH inputs their witness (and the nested program as scriptSig).
 * `expected`: the desk's own spends, as for psbtMultisigSpends.
 */
export function finalizeMultisigPsbt(params: ChainParams, psbt: DecodedPsbt, expected?: readonly MultisigInputSpend[]): BitcoinTx {
  const spends = psbtMultisigSpends(params, psbt, expected);
  const signatures = verifyPsbtSignatures(params, psbt, spends);
  try {
    return assembleMultisigSpend(params, psbt.tx, spends, signatures);
  } catch (err) {
    return refuse('incomplete', (err as Error).message);
  }
}
