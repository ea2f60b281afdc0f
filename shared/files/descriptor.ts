/**
 * The P2SH multisig output descriptor: sh(multi(M,[fp/path]xpub/<0;1>/*,...)) (BIP380/383/389),
 * or the receive-only form with /0/*, or BSMS's template form with /**. Keys keep their order:
 * sortedmulti (BIP67 sorting) is refused, since this desk never sorts keys (docs/api-decisions.md).
 */
import { withChecksum, checkDescriptorChecksum } from './descriptor-checksum.ts';
import { normalizeDerivationPath } from './derivation-path.ts';
import { FileFormatError } from './errors.ts';
import { checkSetup, type KeyNetwork, type SetupKey } from './setup.ts';

/** How the keys' children are written after each xpub. */
export type DescriptorBranches = '/<0;1>/*' | '/0/*' | '/1/*' | '/**';

export interface MultisigDescriptor {
  m: number;
  keys: SetupKey[];
  branches: DescriptorBranches;
  keyNetwork: KeyNetwork;
  /** Whether the text carried a checksum (it was then checked). */
  checksummed: boolean;
}

const SCRIPT_TYPES: Readonly<Record<string, string>> = {
  wsh: 'wsh(...) is native segwit (P2WSH)',
  tr: 'tr(...) is taproot',
  wpkh: 'wpkh(...) is a single-key segwit script',
  pkh: 'pkh(...) is a single-key script',
  pk: 'pk(...) is a single-key script',
  combo: 'combo(...) is a single-key script',
  addr: 'addr(...) names one address, not a wallet',
  raw: 'raw(...) is one script, not a wallet',
};

const refuse = (why: string): never => {
  throw new FileFormatError(`unsupported descriptor: ${why}`);
};

/** "name(args)" -> [name, args], or null. */
function call(text: string): [string, string] | null {
  const m = /^([a-z_]+)\((.*)\)$/s.exec(text);
  return m ? [m[1]!, m[2]!] : null;
}

function parseKey(text: string, position: number): { key: SetupKey; branches: string } {
  const m = /^(?:\[([^\]]*)\])?([1-9A-HJ-NP-Za-km-z]+)(\/.*)?$/.exec(text);
  if (!m) {
    if (/^(02|03|04)[0-9a-fA-F]{64}/.test(text.replace(/^\[[^\]]*\]/, ''))) refuse(`key ${position} is a single public key; this desk derives a wallet's addresses from xpubs`);
    return refuse(`key ${position} "${text.slice(0, 20)}..." is not [fingerprint/path]xpub/...`);
  }
  let fingerprint = '00000000';
  let derivationPath = 'm';
  if (m[1] !== undefined) {
    const origin = /^([0-9a-fA-F]{8})((?:\/[0-9]+['hH]?)*)$/.exec(m[1]);
    if (!origin) refuse(`key ${position}'s origin [${m[1]}] is not [8 hex digits/path]`);
    fingerprint = origin![1]!.toLowerCase();
    derivationPath = normalizeDerivationPath(`m${origin![2]}`, `key ${position}'s origin path`);
  }
  return { key: { name: `Key ${position} (${fingerprint})`, xpub: m[2]!, fingerprint, derivationPath }, branches: m[3] ?? '' };
}

/** Parses one sh(multi(...)) descriptor (checksum optional, checked when present). */
export function parseMultisigDescriptor(text: string, options: { template?: boolean } = {}): MultisigDescriptor {
  const { descriptor, checksum } = checkDescriptorChecksum(text.trim());
  const top = call(descriptor);
  if (!top) return refuse(`"${descriptor.slice(0, 30)}..." is not a descriptor`);
  const [outer, inner] = top;
  if (outer !== 'sh') return refuse(`${SCRIPT_TYPES[outer] ?? `${outer}(...) is an unknown script type`}; this desk makes P2SH multisig wallets, sh(multi(...))`);
  const script = call(inner);
  if (!script) return refuse('sh(...) does not hold a script expression');
  const [kind, args] = script;
  if (kind === 'sortedmulti') return refuse('sortedmulti sorts the keys (BIP67), and this desk keeps keys in the wallet\'s order (a different address set); use multi(...) with the keys in the wallet\'s order');
  if (kind === 'wsh') return refuse('sh(wsh(...)) is nested segwit (P2SH-P2WSH); this desk makes P2SH multisig wallets, sh(multi(...))');
  if (kind !== 'multi') return refuse(`sh(${kind}(...)) is not a multisig script; this desk makes sh(multi(...)) wallets`);
  const [mText, ...keyTexts] = args.split(',');
  if (!/^[0-9]{1,2}$/.test(mText ?? '')) refuse(`the threshold "${mText}" is not a number`);
  const parsed = keyTexts.map((k, i) => parseKey(k.trim(), i + 1));
  const branches = parsed[0]?.branches ?? '';
  const allowed: string[] = options.template ? ['/**'] : ['/<0;1>/*', '/0/*', '/1/*'];
  if (!allowed.includes(branches)) {
    return refuse(`the keys end in "${branches || '(nothing)'}"; this desk derives receive addresses at /0/* and change at /1/* (${options.template ? 'a BSMS template writes /**' : 'write /<0;1>/* or /0/*'})`);
  }
  parsed.forEach((p, i) => {
    if (p.branches !== branches) refuse(`key ${i + 1} ends in "${p.branches}" where key 1 ends in "${branches}"`);
  });
  const keys = parsed.map((p) => p.key);
  const m = Number(mText);
  const keyNetwork = checkSetup(m, keys);
  return { m, keys, branches: branches as DescriptorBranches, keyNetwork, checksummed: checksum !== null };
}

/** sh(multi(M,[fp/path]xpub<branches>,...)), keys in the order given. */
export function formatMultisigDescriptor(m: number, keys: readonly Pick<SetupKey, 'xpub' | 'fingerprint' | 'derivationPath'>[], branches: DescriptorBranches, checksum = true): string {
  const keyText = keys.map((k) => `[${k.fingerprint}${normalizeDerivationPath(k.derivationPath).slice(1)}]${k.xpub}${branches}`);
  const text = `sh(multi(${m},${keyText.join(',')}))`;
  return checksum ? withChecksum(text) : text;
}
