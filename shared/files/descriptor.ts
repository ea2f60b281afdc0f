/**
 * Multisig output descriptors (BIP380/383/389): sh(multi), sh(sortedmulti), wsh(multi),
 * wsh(sortedmulti), sh(wsh(multi)), sh(wsh(sortedmulti)), keys as [fingerprint/path]xpub followed
 * by /<0;1>/* (receive and change), /0/* or /1/*, or BSMS's template form /**. Everything else a
 * descriptor can say (taproot, miniscript, single keys, addresses, raw scripts, hardened steps
 * after the xpub, other multipaths) is refused, naming what it is.
 */
import type { MultisigScriptType } from '../coins/index.ts';
import { withChecksum, checkDescriptorChecksum } from './descriptor-checksum.ts';
import { normalizeDerivationPath } from './derivation-path.ts';
import { FileFormatError } from './errors.ts';
import { checkSetup, P2SH_GIVEN_ORDER, type KeyNetwork, type SetupKey, type WalletScript } from './setup.ts';

/** How the keys' children are written after each xpub. */
export type DescriptorBranches = '/<0;1>/*' | '/0/*' | '/1/*' | '/**';

export interface MultisigDescriptor extends WalletScript {
  m: number;
  keys: SetupKey[];
  branches: DescriptorBranches;
  keyNetwork: KeyNetwork;
  /** Whether the text carried a checksum (it was then checked). */
  checksummed: boolean;
}

/** Why a top-level expression other than sh/wsh is no multisig wallet. */
const NOT_MULTISIG: Readonly<Record<string, string>> = {
  tr: 'tr(...) is taproot, which this desk does not spend',
  wpkh: 'wpkh(...) is a single-key segwit script, not a multisig wallet',
  pkh: 'pkh(...) is a single-key script, not a multisig wallet',
  pk: 'pk(...) is a single-key script, not a multisig wallet',
  combo: 'combo(...) is a single key in several script forms, not a multisig wallet',
  addr: 'addr(...) names one address, not a wallet',
  raw: 'raw(...) is one script, not a wallet',
  rawtr: 'rawtr(...) is a taproot output key, which this desk does not spend',
};

const refuse = (why: string): never => {
  throw new FileFormatError(`unsupported descriptor: ${why}`);
};

/** "name(args)" -> [name, args], or null. */
function call(text: string): [string, string] | null {
  const m = /^([a-z_]+)\((.*)\)$/s.exec(text);
  return m ? [m[1]!, m[2]!] : null;
}

/** The script type and the multi/sortedmulti expression inside sh(...), wsh(...) or sh(wsh(...)). */
function unwrap(descriptor: string): { scriptType: MultisigScriptType; kind: string; args: string } {
  const top = call(descriptor);
  if (!top) return refuse(`"${descriptor.slice(0, 30)}..." is not a descriptor`);
  const [outer, inner] = top;
  if (outer !== 'sh' && outer !== 'wsh') return refuse(NOT_MULTISIG[outer] ?? `${outer}(...) is an unknown script type`);
  let body = call(inner);
  if (!body) return refuse(`${outer}(...) does not hold a script expression`);
  let scriptType: MultisigScriptType = outer === 'sh' ? 'p2sh' : 'p2wsh';
  let where = outer;
  if (outer === 'sh' && body[0] === 'wsh') {
    scriptType = 'p2sh-p2wsh';
    where = 'sh(wsh';
    body = call(body[1]);
    if (!body) return refuse('sh(wsh(...)) does not hold a script expression');
  }
  const [kind, args] = body;
  const written = `${where}(${kind}(...))${where === 'sh(wsh' ? ')' : ''}`;
  if (kind === 'multi' || kind === 'sortedmulti') return { scriptType, kind, args };
  if (scriptType === 'p2sh' && (kind === 'wpkh' || kind === 'pkh' || kind === 'pk')) return refuse(`${written} is a single-key script, not a multisig wallet`);
  if (kind === 'multi_a' || kind === 'sortedmulti_a') return refuse(`${written}: ${kind} is taproot-only, which this desk does not spend`);
  if (scriptType !== 'p2sh') return refuse(`${written} is miniscript (a spending policy other than M of N keys); this desk spends multi(...) and sortedmulti(...) only`);
  return refuse(`${written} is not a multisig script; this desk spends sh(multi(...)) and sh(sortedmulti(...))`);
}

const HARDENED_STEP = /\/[0-9*]+['hH]/;

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
  const branches = m[3] ?? '';
  if (HARDENED_STEP.test(branches)) {
    refuse(`key ${position} derives hardened steps after the xpub ("${branches}"), which needs the private key; a watch-only wallet derives /0/* and /1/* unhardened`);
  }
  const multipath = /<([^>]*)>/.exec(branches);
  if (multipath && multipath[1] !== '0;1') {
    refuse(`key ${position}'s multipath <${multipath[1]}> is not <0;1>: this desk reads one receive (0) and one change (1) branch`);
  }
  return { key: { name: `Key ${position} (${fingerprint})`, xpub: m[2]!, fingerprint, derivationPath }, branches };
}

/** Parses one multisig descriptor (checksum optional, checked when present). */
export function parseMultisigDescriptor(text: string, options: { template?: boolean } = {}): MultisigDescriptor {
  const { descriptor, checksum } = checkDescriptorChecksum(text.trim());
  const { scriptType, kind, args } = unwrap(descriptor);
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
  return { m, keys, branches: branches as DescriptorBranches, keyNetwork, checksummed: checksum !== null, scriptType, sortKeys: kind === 'sortedmulti' };
}

/** The descriptor's script expression around `inner`: sh(...), wsh(...) or sh(wsh(...)). */
function wrap(scriptType: MultisigScriptType, inner: string): string {
  if (scriptType === 'p2sh') return `sh(${inner})`;
  if (scriptType === 'p2wsh') return `wsh(${inner})`;
  return `sh(wsh(${inner}))`;
}

/**
 * The wallet's descriptor, keys in the order given (sortedmulti sorts them itself). Without a
 * script, sh(multi(...)): this desk's wallets before script types.
 */
export function formatMultisigDescriptor(
  m: number,
  keys: readonly Pick<SetupKey, 'xpub' | 'fingerprint' | 'derivationPath'>[],
  branches: DescriptorBranches,
  checksum = true,
  script: WalletScript = P2SH_GIVEN_ORDER,
): string {
  const keyText = keys.map((k) => `[${k.fingerprint}${normalizeDerivationPath(k.derivationPath).slice(1)}]${k.xpub}${branches}`);
  const text = wrap(script.scriptType, `${script.sortKeys ? 'sortedmulti' : 'multi'}(${m},${keyText.join(',')})`);
  return checksum ? withChecksum(text) : text;
}
