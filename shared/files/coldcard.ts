/**
 * The multisig set-up text file of Coldcard (also read by Electrum, Sparrow, Nunchuk):
 *
 *   # comment lines
 *   Name: Treasury
 *   Policy: 2 of 3
 *   Derivation: m/48'/0'/0'/1'     (applies to the keys below it; may repeat)
 *   Format: P2SH
 *
 *   0F056943: xpub6...
 *
 * Bitcoin-only. A file without a Derivation line leaves each key's path unknown ('m').
 */
import { normalizeDerivationPath } from './derivation-path.ts';
import { FileFormatError } from './errors.ts';
import { checkSetup, type SetupKey, type WalletSetup } from './setup.ts';

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
  if (format !== 'P2SH') fail(null, `its format ${format} is not P2SH (this desk makes P2SH multisig wallets; P2WSH and P2SH-P2WSH are segwit)`);
  const p = policy as { m: number; n: number } | null;
  if (!p) return fail(null, 'it has no "Policy: M of N" line');
  if (p.n !== keys.length) fail(null, `its policy says ${p.m} of ${p.n} but it lists ${keys.length} keys`);
  const keyNetwork = checkSetup(p.m, keys);
  return { format: 'coldcard', name, m: p.m, keys, keyNetwork, chain: null, firstAddress: null };
}

export function formatColdcard(name: string, m: number, keys: readonly SetupKey[]): string {
  const out = ['# Multisig set-up file written by Countersign', `Name: ${name.replace(/[^\x20-\x7e]/g, '').slice(0, 20)}`, `Policy: ${m} of ${keys.length}`, 'Format: P2SH', ''];
  let derivation = '';
  for (const k of keys) {
    const path = normalizeDerivationPath(k.derivationPath);
    if (path !== derivation) out.push(`Derivation: ${path}`);
    derivation = path;
    out.push(`${k.fingerprint.toUpperCase()}: ${k.xpub}`);
  }
  return out.join('\n') + '\n';
}
