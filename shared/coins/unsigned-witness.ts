// How an unsigned multisig transaction, as the service's create returns it, says what each input
// signs (docs/api-decisions.md, extensions). P2SH inputs hold the redeem script as their scriptSig,
// as the original API does. Segwit inputs hold the witness script as their only witness item, and
// their scriptSig is already the final one: empty (P2WSH) or the push of 0020<sha256(witnessScript)>
// (P2SH-P2WSH). So the type of every input is read from the transaction alone, without ambiguity.
import { equalBytes } from './bytes.ts';
import { CoinError } from './errors.ts';
import { p2wshScript } from './multisig-script.ts';
import type { MultisigScriptType, SegwitMultisigScriptType } from './multisig-script.ts';
import { parseMultisigRedeemScript, pushData } from './script.ts';
import type { TxInput } from './tx.ts';

/** The scriptSig and witness a segwit multisig input carries while unsigned. */
export function unsignedWitnessInput(scriptType: SegwitMultisigScriptType, witnessScript: Uint8Array): { scriptSig: Uint8Array; witness: Uint8Array[] } {
  return { scriptSig: scriptType === 'p2sh-p2wsh' ? pushData(p2wshScript(witnessScript)) : new Uint8Array(0), witness: [witnessScript] };
}

export interface UnsignedMultisigInput {
  scriptType: MultisigScriptType;
  /** The redeem script (p2sh) or the witness script (segwit types). */
  multisigScript: Uint8Array;
}

/** Whether an unsigned input carries a segwit placeholder (a witness). */
export function hasWitnessPlaceholder(input: Pick<TxInput, 'witness'>): boolean {
  return (input.witness?.length ?? 0) > 0;
}

/**
 * What an unsigned multisig input signs: its script type and multisig script. Null when the input
 * is not an unsigned multisig input in the create form (e.g. a P2PKH placeholder).
 */
export function readUnsignedMultisigInput(input: Pick<TxInput, 'scriptSig' | 'witness'>, inputIndex: number): UnsignedMultisigInput | null {
  if (!hasWitnessPlaceholder(input)) {
    return parseMultisigRedeemScript(input.scriptSig) ? { scriptType: 'p2sh', multisigScript: input.scriptSig } : null;
  }
  const witness = input.witness!;
  const script = witness[witness.length - 1]!;
  if (witness.length !== 1 || !parseMultisigRedeemScript(script)) {
    throw new CoinError(`input ${inputIndex}: an unsigned segwit input carries exactly one witness item, its multisig witness script`, 'tx');
  }
  if (input.scriptSig.length === 0) return { scriptType: 'p2wsh', multisigScript: script };
  if (equalBytes(input.scriptSig, pushData(p2wshScript(script)))) return { scriptType: 'p2sh-p2wsh', multisigScript: script };
  throw new CoinError(`input ${inputIndex}: its scriptSig is neither empty (P2WSH) nor the push of its witness script's P2WSH program (P2SH-P2WSH)`, 'tx');
}
