/**
 * Miniscript vaults as files: output descriptors (BIP380/386/389) as Liana and Nunchuk write them,
 * wsh(<miniscript>) with keys [fingerprint/path]xpub/<a;b>/*, and BIP388 wallet policies (a
 * descriptor template with @i/** keys and the key information vector, as Ledger registers them).
 * Both read into one VaultPolicy (shared/coins/vault-policy.ts) and are written from it. Checksums
 * go through descriptor-checksum.ts, as for multisig descriptors. A miniscript that is not sane, or
 * not of a shape whose paths the desk can show, is refused with the reason.
 */
import { CoinError } from '../coins/errors.ts';
import { extendedKeyIdentity, repeatedExtendedKey } from '../coins/xpub.ts';
import { checkVault, type CheckedVault, type VaultKey, type VaultPolicy } from '../coins/vault-policy.ts';
import { checkDescriptorChecksum, withChecksum } from './descriptor-checksum.ts';
import { normalizeDerivationPath } from './derivation-path.ts';
import { FileFormatError } from './errors.ts';
import { keyNetworkOf, type KeyNetwork } from './setup.ts';

export interface ParsedVault {
  policy: VaultPolicy;
  checked: CheckedVault;
  keyNetwork: KeyNetwork;
  /** Whether the descriptor carried a checksum (it was then checked). */
  checksummed: boolean;
}

const refuse = (why: string): never => {
  throw new FileFormatError(`unsupported vault descriptor: ${why}`);
};

/** [origin]xpub/suffix, where the suffix runs to the next ',' or ')'. */
const KEY = /(\[[^\]]*\])?([1-9A-HJ-NP-Za-km-z]{100,112})((?:\/[^,()]*)?)/g;

function originOf(text: string | undefined, position: number): { fingerprint: string; derivationPath: string } {
  if (text === undefined) return { fingerprint: '00000000', derivationPath: 'm' };
  const m = /^\[([0-9a-fA-F]{8})((?:\/[0-9]+['hH]?)*)\]$/.exec(text);
  if (!m) return refuse(`key ${position}'s origin ${text} is not [8 hex digits/path]`);
  return { fingerprint: m[1]!.toLowerCase(), derivationPath: normalizeDerivationPath(`m${m[2]}`, `key ${position}'s origin path`) };
}

/** Checks the policy (sane, a shape with paths) and its keys (one network), in a file's words. */
function check(policy: VaultPolicy): { checked: CheckedVault; keyNetwork: KeyNetwork } {
  const networks = policy.keys.map((k, i) => keyNetworkOf(k.xpub, `key @${i}`));
  if (networks.some((n) => n !== networks[0])) refuse('the keys mix main and test network keys');
  const repeated = repeatedExtendedKey(policy.keys.map((k) => k.xpub));
  if (repeated !== null) {
    const [a, b] = repeated;
    const how = policy.keys[a]!.xpub.trim() === policy.keys[b]!.xpub.trim() ? 'the same key' : 'the same public key written in another encoding';
    refuse(`keys @${a} and @${b} are ${how}: one holder would sign in two places (BIP388 requires every key to be distinct; a key on two paths is one @i with other branches, @${a}/<2;3>/*)`);
  }
  try {
    return { checked: checkVault(policy), keyNetwork: networks[0]! };
  } catch (err) {
    if (err instanceof CoinError) throw new FileFormatError(err.message);
    throw err;
  }
}

/** Reads a wsh(<miniscript>) descriptor with multipath xpub keys (checksum optional, checked when present). */
export function parseVaultDescriptor(text: string): ParsedVault {
  const { descriptor, checksum } = checkDescriptorChecksum(text.trim());
  if (!/^wsh\(.*\)$/s.test(descriptor)) {
    if (/^sh\(wsh\(/.test(descriptor)) refuse('sh(wsh(...)) vaults are not read here: a vault is native P2WSH, wsh(...)');
    if (/^tr\(/.test(descriptor)) refuse('tr(...) is taproot, which this desk does not spend');
    refuse('a vault descriptor is wsh(<miniscript>)');
  }
  if (/^wsh\((sorted)?multi\(/.test(descriptor)) refuse('this is a plain multisig wallet (wsh(multi(...))): import it as a wallet, not a vault');
  const keys: VaultKey[] = [];
  let position = 0;
  const template = descriptor.replace(KEY, (_all, origin: string | undefined, xpub: string, suffix: string) => {
    position++;
    const o = originOf(origin, position);
    const branches = /^\/<(\d+);(\d+)>\/\*$/.exec(suffix);
    if (!branches) {
      if (/['hH]/.test(suffix)) refuse(`key ${position} derives hardened steps after the xpub ("${suffix}"), which needs the private key`);
      if (/^\/\d+\/\*$/.test(suffix)) refuse(`key ${position} ends in "${suffix}", one branch; a vault descriptor gives receive and change together, /<0;1>/*`);
      refuse(`key ${position} ends in "${suffix || '(nothing)'}"; a vault's keys end in /<receive;change>/*, as /<0;1>/* (extra steps before it are not read: BIP388 keys)`);
    }
    // One key on two paths is written twice (each with its own branches); the same key in another
    // encoding is refused, not merged: the file would then not be what a hardware wallet registers.
    let i = keys.findIndex((k) => k.xpub === xpub);
    const other = keys.findIndex((k) => k.xpub !== xpub && extendedKeyIdentity(k.xpub) !== null && extendedKeyIdentity(k.xpub) === extendedKeyIdentity(xpub));
    if (other >= 0) refuse(`key ${position} is the public key of an earlier key written in another encoding: one holder would sign in two places; each key of a vault belongs to a different holder`);
    if (i < 0) i = keys.push({ xpub, ...o }) - 1;
    else if (keys[i]!.fingerprint !== o.fingerprint || keys[i]!.derivationPath !== o.derivationPath) refuse(`key ${position} repeats an xpub with another origin`);
    const [a, b] = [branches![1]!, branches![2]!];
    return a === '0' && b === '1' ? `@${i}/**` : `@${i}/<${a};${b}>/*`;
  });
  if (/\b0[23][0-9a-fA-F]{64}\b/.test(template)) refuse('it holds a single public key; a vault derives its addresses from xpubs');
  if (template.includes('[')) refuse('a key with an origin [...] is not followed by an extended public key');
  if (keys.length === 0) refuse('it holds no xpub keys');
  const policy: VaultPolicy = { template, keys };
  return { policy, ...check(policy), checksummed: checksum !== null };
}

const keyInfo = (k: VaultKey): string => `[${k.fingerprint}${normalizeDerivationPath(k.derivationPath).slice(1)}]${k.xpub}`;

/** The vault's descriptor, keys written [fingerprint/path]xpub/<a;b>/*, with its checksum by default. */
export function formatVaultDescriptor(policy: VaultPolicy, checksum = true): string {
  const text = policy.template.replace(/@(\d+)\/(?:\*\*|<(\d+);(\d+)>\/\*)/g, (_all, i: string, a?: string, b?: string) => {
    const key = policy.keys[Number(i)];
    if (!key) throw new FileFormatError(`the template names @${i}, which the policy does not hold`);
    return `${keyInfo(key)}/<${a ?? '0'};${b ?? '1'}>/*`;
  });
  return checksum ? withChecksum(text) : text;
}

/** A BIP388 wallet policy as a JSON file: the fields a hardware wallet registers. */
export interface WalletPolicyFile {
  name: string;
  descriptor_template: string;
  keys_info: string[];
}

/** The policy's BIP388 fields: what the file holds and what a Ledger registers (main/core/ledger/policy.ts). */
export function walletPolicyOf(name: string, policy: VaultPolicy): WalletPolicyFile {
  return { name, descriptor_template: policy.template, keys_info: policy.keys.map(keyInfo) };
}

export function formatWalletPolicy(name: string, policy: VaultPolicy): string {
  return `${JSON.stringify(walletPolicyOf(name, policy), null, 2)}\n`;
}

/** Reads a BIP388 wallet policy file ({name, descriptor_template, keys_info}). */
export function parseWalletPolicy(text: string): ParsedVault & { name: string } {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return refuse('the wallet policy file is not JSON');
  }
  const o = raw as Partial<Record<keyof WalletPolicyFile, unknown>> | null;
  if (typeof o !== 'object' || o === null) return refuse('the wallet policy file is not a JSON object');
  if (typeof o.descriptor_template !== 'string') return refuse('the wallet policy has no descriptor_template');
  if (!Array.isArray(o.keys_info) || !o.keys_info.every((k): k is string => typeof k === 'string')) return refuse('the wallet policy\'s keys_info is not a list of keys');
  const name = typeof o.name === 'string' ? o.name : '';
  const keys = o.keys_info.map((k, i) => {
    const m = /^(\[[^\]]*\])?([1-9A-HJ-NP-Za-km-z]{100,112})$/.exec(k);
    if (!m) return refuse(`keys_info ${i} is not [fingerprint/path]xpub (a BIP388 key has no derivation after the xpub)`);
    return { xpub: m[2]!, ...originOf(m[1], i + 1) };
  });
  const template = o.descriptor_template.trim().replace(/(@\d+)\/<0;1>\/\*/g, '$1/**');
  if (template.includes('#')) refuse('a descriptor template has no checksum');
  if (/\[|pub[1-9A-HJ-NP-Za-km-z]{20}/.test(template)) refuse('the descriptor template holds keys; BIP388 writes @0/**, @1/**, ... and lists the keys in keys_info');
  const policy: VaultPolicy = { template, keys };
  return { name, policy, ...check(policy), checksummed: false };
}
