// The scripts around a wallet's multisig script as its script type spends it: what the output pays
// to, the P2SH redeem script (the multisig itself, or the 0020 program of nested segwit), and the
// witness script of the segwit types. The store keeps only the multisig script (AddressRow).
import { hash160, p2shScript } from '../../../shared/coins/index.ts';
import { isSegwitScriptType, p2wshScript, type MultisigScriptType } from '../../../shared/coins/multisig-script.ts';

export interface SpendScripts {
  scriptType: MultisigScriptType;
  scriptPubKey: Uint8Array;
  /** p2sh: the multisig script; p2sh-p2wsh: 0020<sha256(witnessScript)>; p2wsh: none. */
  redeemScript?: Uint8Array;
  /** Segwit types: the multisig script. */
  witnessScript?: Uint8Array;
}

export function spendScripts(scriptType: MultisigScriptType, multisigScript: Uint8Array): SpendScripts {
  if (!isSegwitScriptType(scriptType)) return { scriptType, scriptPubKey: p2shScript(hash160(multisigScript)), redeemScript: multisigScript };
  const program = p2wshScript(multisigScript);
  if (scriptType === 'p2wsh') return { scriptType, scriptPubKey: program, witnessScript: multisigScript };
  return { scriptType, scriptPubKey: p2shScript(hash160(program)), redeemScript: program, witnessScript: multisigScript };
}
