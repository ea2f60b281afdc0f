/**
 * The multisig set-up text file of Coldcard (also read by Electrum, Sparrow, Nunchuk):
 *
 *   # comment lines
 *   Name: Treasury
 *   Policy: 2 of 3
 *   Derivation: m/48'/0'/0'/1'     (applies to the keys below it; may repeat)
 *   Format: P2WSH                  (P2SH, P2SH-P2WSH or P2WSH; P2WSH-P2SH is an alias)
 *
 *   0F056943: xpub6...
 *
 * Coldcard and the wallets that share the file (Nunchuk, Sparrow, Electrum) always sort the keys
 * (BIP67). Bitcoin-only. A file without a Derivation line leaves each key's path unknown ('m').
 */
import { normalizeDerivationPath } from './derivation-path.ts';
import { FileFormatError } from './errors.ts';
import type { MultisigScriptType } from '../coins/index.ts';
import { checkSetup, SCRIPT_TYPE_LABEL, type SetupKey, type WalletScript, type WalletSetup } from './setup.ts';

const FORMATS: Readonly<Record<string, MultisigScriptType>> = { P2SH: 'p2sh', 'P2SH-P2WSH': 'p2sh-p2wsh', 'P2WSH-P2SH': 'p2sh-p2wsh', P2WSH: 'p2wsh' };

const fail = (line: number | null, why: string): never => {
  throw new FileFormatError(`not a usable multisig set-up file: ${line === null ? '' : `line ${line}: `}${why}`);
};

export function looksLikeColdcard(text: string): boolean {
  return /^\s*(Policy|Name|Format|Derivation)\s*:/im.test(text) && /^\s*[0-9a-fA-F]{8}\s*:\s*\S+/m.test(text);
}

export function parseColdcard(text: string): WalletSetup {
  let name: string | null = null;
  let policy: { m: number; n: number } | null = null;
  let format = 'P2SH';
  let derivation = 'm';
  const keys: SetupKey[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim();
    const at = i + 1;
    if (line === '' || line.startsWith('#')) return;
    const kv = /^([^:]+):\s*(.*)$/.exec(line);
    if (!kv) fail(at, `"${line.slice(0, 30)}" is neither "Label: value" nor "XFP: xpub"`);
    const label = kv![1]!.trim();
    const value = kv![2]!.trim();
    if (/^[0-9a-fA-F]{8}$/.test(label)) {
      keys.push({ name: `Key ${keys.length + 1} (${label.toUpperCase()})`, xpub: value, fingerprint: label.toLowerCase(), derivationPath: derivation });
      return;
    }
    switch (label.toLowerCase()) {
      case 'name':
        name = value;
        break;
      case 'policy': {
        const p = /^([0-9]{1,2})\s*(?:of|\/)\s*([0-9]{1,2})$/i.exec(value);
        if (!p) fail(at, `the policy "${value}" is not "M of N"`);
        policy = { m: Number(p![1]), n: Number(p![2]) };
        break;
      }
      case 'derivation':
        derivation = normalizeDerivationPath(value, `line ${at}: the derivation`);
        break;
      case 'format':
        format = value.toUpperCase();
        break;
      default:
        // Other labels exist in newer files; they do not change the wallet's addresses.
        break;
    }
  });
  const scriptType = FORMATS[format];
  if (!scriptType) return fail(null, `its format "${format}" is not P2SH, P2SH-P2WSH or P2WSH`);
  const p = policy as { m: number; n: number } | null;
  if (!p) return fail(null, 'it has no "Policy: M of N" line');
  if (p.n !== keys.length) fail(null, `its policy says ${p.m} of ${p.n} but it lists ${keys.length} keys`);
  const keyNetwork = checkSetup(p.m, keys);
  return { format: 'coldcard', name, m: p.m, keys, keyNetwork, chain: null, firstAddress: null, scriptType, sortKeys: true };
}

/** Coldcard sorts keys, so a wallet whose keys keep their order cannot be written (the device would show other addresses). */
export function formatColdcard(name: string, m: number, keys: readonly SetupKey[], script: WalletScript = { scriptType: 'p2sh', sortKeys: true }): string {
  if (!script.sortKeys) throw new FileFormatError('Coldcard always sorts the keys (BIP67); a wallet whose keys keep their given order has other addresses there: export it as a descriptor or a BSMS record');
  const out = ['# Multisig set-up file written by Countersign', `Name: ${name.replace(/[^\x20-\x7e]/g, '').slice(0, 20)}`, `Policy: ${m} of ${keys.length}`, `Format: ${SCRIPT_TYPE_LABEL[script.scriptType]}`, ''];
  let derivation = '';
  for (const k of keys) {
    const path = normalizeDerivationPath(k.derivationPath);
    if (path !== derivation) out.push(`Derivation: ${path}`);
    derivation = path;
    out.push(`${k.fingerprint.toUpperCase()}: ${k.xpub}`);
  }
  return out.join('\n') + '\n';
}
