/**
 * A co-signer's key read by camera: UR hdkey and account types, in their deprecated names
 * (crypto-hdkey, crypto-account: BCR-2020-007, BCR-2020-015) and their 2023 successors (hdkey,
 * account-descriptor: BCR-2023-019, whose output descriptors are BCR-2023-010's text with @n
 * placeholders), and the text exports of Coldcard (its multisig key JSON), SeedSigner and others
 * ("[fingerprint/path]xpub", alone or inside a descriptor) and BSMS key records. Every key comes
 * out as xpub (or tpub) with its origin, for the same co-signer fields a typed key fills.
 */
import { CryptoHDKey, CryptoOutput, extend, MultiKey, type CryptoECKey, type DataItem } from '@keystonehq/bc-ur-registry';
import type { SignerDevice } from '../api/signer-devices.ts';
import { bytesToHex, encodeXpub } from '../coins/index.ts';
import { parseBsmsKeyRecord } from '../files/bsms.ts';
import { formatDerivationPath, HARDENED, normalizeDerivationPath } from '../files/derivation-path.ts';
import { FileFormatError } from '../files/errors.ts';
import { parseXpubLike } from '../files/xpub-bytes.ts';

export interface ScannedKey {
  xpub: string;
  /** Master key fingerprint, 8 lower-case hex digits. */
  fingerprint: string;
  /** Master key to xpub, "m/48'/1'/0'/2'". */
  derivationPath: string;
  /** The script the exporter meant the key for, when it says ("wsh", "sh(wsh)", "sh", "wpkh"...). */
  script?: string;
  /** The kind of signer whose export this is, when its form says (Coldcard's multisig key file). */
  device?: SignerDevice;
}

const XPUB_VERSION = { main: 0x0488b21e, test: 0x043587cf } as const;

function u32(n: number): Uint8Array {
  return Uint8Array.of((n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff);
}

/** An hdkey (either generation: the fields are the same, only the tags of its parts differ) as a key. */
function hdkeyToKey(k: CryptoHDKey, masterFingerprint?: Uint8Array): ScannedKey {
  if (k.isPrivateKey()) throw new FileFormatError('the QR holds a private key: only extended public keys are read, and this one should be kept off any screen');
  const key = k.getKey();
  const chainCode = k.getChainCode();
  if (!key || key.length !== 33 || !chainCode || chainCode.length !== 32) throw new FileFormatError('the hdkey has no 33-byte public key and 32-byte chain code');
  const origin = k.getOrigin();
  const steps = (origin?.getComponents() ?? []).map((c) => {
    if (c.isWildcard()) throw new FileFormatError("the hdkey's origin has a wildcard step");
    return c.getIndex() + (c.isHardened() ? HARDENED : 0);
  });
  const fp = origin?.getSourceFingerprint() ?? masterFingerprint;
  if (!fp || fp.length !== 4) throw new FileFormatError("the hdkey does not say its master key's fingerprint: the desk needs it to ask this co-signer's device for signatures");
  const network = k.getUseInfo()?.getNetwork() === 1 ? 'test' : 'main';
  const parent = k.getParentFingerprint();
  const xpub = encodeXpub({
    version: XPUB_VERSION[network],
    depth: origin?.getDepth() ?? steps.length,
    parentFingerprint: parent ? new DataView(parent.buffer, parent.byteOffset).getUint32(0) : 0,
    index: steps.at(-1) ?? 0,
    chainCode: new Uint8Array(chainCode),
    publicKey: new Uint8Array(key),
  });
  return { xpub, fingerprint: bytesToHex(fp), derivationPath: formatDerivationPath(steps) };
}

/** The script of a deprecated crypto-output's expressions, outermost first ("sh(wsh(...))" -> "sh(wsh)"). */
function scriptOf(o: CryptoOutput): string {
  return nest(o.getScriptExpressions().map((e) => e.getExpression()).filter((e) => e !== 'cosigner'));
}

const nest = (names: readonly string[]): string => names.reduceRight((inner, outer) => (inner ? `${outer}(${inner})` : outer), '');

// The registry decodes only the tags it knows into tagged items; the 2023 ones are added here
// (hdkey, keypath, coin-info, output-descriptor, account-descriptor) and the script expressions
// of BCR-2020-010 it lacks (tr, cosigner), so every structure below arrives as tagged items.
extend.cbor.patchTags([40303, 40304, 40305, 40308, 40311, 409, 410]);
const decode = (cbor: Uint8Array): DataItem => extend.decodeToDataItem(Buffer.from(cbor));

/** BCR-2020-010 script expression tags (crypto-output), outermost first. */
const SCRIPT_TAGS: Readonly<Record<number, string>> = { 400: 'sh', 401: 'wsh', 402: 'pk', 403: 'pkh', 404: 'wpkh', 405: 'combo', 406: 'multi', 407: 'sortedmulti', 408: 'raw', 409: 'tr', 410: 'cosigner' };

/** A deprecated crypto-output of one key: its script expressions (cosigner left out) and its hdkey. */
function unwrap2020(item: DataItem): { names: string[]; key: CryptoHDKey | null } {
  const names: string[] = [];
  let at: unknown = item;
  while (at instanceof Object && 'getTag' in at && typeof at.getTag === 'function') {
    const d = at as DataItem;
    const tag = d.getTag();
    if (tag === 303 || tag === 40303) return { names, key: CryptoHDKey.fromDataItem(d) };
    if (tag === 308) {
      at = d.getData();
      continue;
    }
    const name = SCRIPT_TAGS[tag];
    if (name === undefined) return { names, key: null };
    if (name !== 'cosigner') names.push(name);
    at = d.getData();
  }
  return { names, key: null };
}
const mapOf = (item: DataItem | undefined, what: string): Record<number, unknown> => {
  const data: unknown = item?.getData();
  if (typeof data !== 'object' || data === null || Array.isArray(data)) throw new FileFormatError(`the ${what} is not a CBOR map`);
  return data as Record<number, unknown>;
};

/** A 2023 output-descriptor: its text (placeholders @n) and its keys as hdkeys. */
function outputDescriptor2023(item: DataItem): { source: string; keys: CryptoHDKey[]; raw: DataItem[] } {
  const map = mapOf(item, 'output descriptor');
  const source = map[1];
  const keys = map[2] ?? [];
  if (typeof source !== 'string' || !Array.isArray(keys)) throw new FileFormatError('the output descriptor has no text or no key list');
  return {
    source,
    raw: keys as DataItem[],
    keys: keys.map((k: DataItem) => {
      if (k.getTag() !== 40303 && k.getTag() !== 303) throw new FileFormatError('the output descriptor holds a key that is not an hdkey');
      return CryptoHDKey.fromDataItem(k);
    }),
  };
}

/** The script of a 2023 account's descriptor ("sh(wsh(cosigner(@0)))" -> "sh(wsh)"). */
const script2023 = (source: string): string => nest((source.match(/[a-z_]+(?=\()/g) ?? []).filter((e) => e !== 'cosigner'));

/** Keys of a UR read whole, by its type; `null` when the type holds no key. */
export function keysOfUr(type: string, cbor: Uint8Array): ScannedKey[] | null {
  switch (type) {
    case 'crypto-hdkey':
    case 'hdkey':
      return [hdkeyToKey(CryptoHDKey.fromDataItem(decode(cbor)))];
    case 'crypto-account': {
      const map = mapOf(decode(cbor), 'crypto-account');
      const fp = map[1];
      const outputs = map[2];
      if (typeof fp !== 'number' || !Array.isArray(outputs)) throw new FileFormatError('the crypto-account has no master fingerprint or no output descriptors');
      return outputs.flatMap((o: DataItem) => {
        const { names, key } = unwrap2020(o);
        return key ? [{ ...hdkeyToKey(key, u32(fp)), script: nest(names) }] : [];
      });
    }
    case 'account-descriptor': {
      const map = mapOf(decode(cbor), 'account descriptor');
      const fp = map[1];
      const outputs = map[2];
      if (typeof fp !== 'number' || !Array.isArray(outputs)) throw new FileFormatError('the account descriptor has no master fingerprint or no output descriptors');
      return outputs.flatMap((o: DataItem) => {
        const { source, keys } = outputDescriptor2023(o);
        return keys.map((k) => ({ ...hdkeyToKey(k, u32(fp)), script: script2023(source) }));
      });
    }
    case 'crypto-output': {
      const o = CryptoOutput.fromCBOR(Buffer.from(cbor));
      const k = o.getCryptoKey();
      return k instanceof CryptoHDKey ? [{ ...hdkeyToKey(k), script: scriptOf(o) }] : null;
    }
    default:
      return null;
  }
}

/**
 * An hdkey's children as descriptor text: steps, "*" for a wildcard (an empty array in 2023
 * keypaths), and "<0;1>" for a pair (BCR-2023-010 writes [0, false, 1, false]), which the
 * registry's own path text does not know.
 */
function childrenPath(k: DataItem): string {
  const raw = (k.getData() as Record<number, DataItem | undefined>)[7];
  const components: unknown = raw ? (raw.getData() as Record<number, unknown>)[1] : undefined;
  if (!Array.isArray(components)) return '';
  const out: string[] = [];
  for (let i = 0; i < components.length; i++) {
    const c: unknown = components[i];
    // A pair stands alone; a step or a wildcard is followed by its hardened flag.
    if (Array.isArray(c) && c.length === 4) {
      out.push(`<${String(c[0])}${c[1] === true ? "'" : ''};${String(c[2])}${c[3] === true ? "'" : ''}>`);
      continue;
    }
    const hard = components[++i] === true ? "'" : '';
    if (Array.isArray(c) && c.length === 0) out.push(`*${hard}`);
    else if (typeof c === 'number') out.push(`${c}${hard}`);
    else throw new FileFormatError("the hdkey's children path is not one this desk reads");
  }
  return out.join('/');
}

/**
 * A crypto-output's key as descriptor text: "[fingerprint/path]xpub/children" for an hdkey with its
 * origin (tpub when its use-info says testnet, where the registry's own text writes xpub and drops the
 * brackets), the registry's text otherwise (EC keys, hdkeys without an origin).
 */
function outputKeyText(k: CryptoHDKey | CryptoECKey): string {
  if (!(k instanceof CryptoHDKey) || !k.getOrigin()?.getSourceFingerprint()) return k.getOutputDescriptorContent();
  const key = hdkeyToKey(k);
  const children = k.getChildren()?.getPath();
  return `[${key.fingerprint}${key.derivationPath.slice(1)}]${key.xpub}${children ? `/${children}` : ''}`;
}

/** A BCR-2020-010 crypto-output as descriptor text: its script expressions around its key or keys. */
function output2020Text(o: CryptoOutput): string {
  const names = o.getScriptExpressions().map((e) => e.getExpression());
  const key = o.getCryptoKey();
  const inner = key instanceof MultiKey ? `${key.getThreshold()},${key.getKeys().map(outputKeyText).join(',')}` : outputKeyText(key);
  return names.reduceRight((text, name) => `${name}(${text})`, inner);
}

/** The descriptor text of a crypto-output or output-descriptor, keys written out. */
export function descriptorOfUr(type: string, cbor: Uint8Array): string | null {
  if (type === 'crypto-output') return output2020Text(CryptoOutput.fromCBOR(Buffer.from(cbor)));
  if (type !== 'output-descriptor') return null;
  const { source, keys, raw } = outputDescriptor2023(decode(cbor));
  return source.replace(/@(\d+)/g, (_, n: string) => {
    const k = keys[Number(n)];
    if (!k) throw new FileFormatError(`the output descriptor names key @${n} but holds ${keys.length}`);
    const key = hdkeyToKey(k);
    const children = childrenPath(raw[Number(n)]!);
    return `[${key.fingerprint}${key.derivationPath.slice(1)}]${key.xpub}${children ? `/${children}` : ''}`;
  });
}

const ORIGIN_KEY = /\[([0-9a-fA-F]{8})((?:\/[0-9]+['hH]?)*)\]([1-9A-HJ-NP-Za-km-z]{100,120})/g;

/** Coldcard's multisig key export: per script, its derivation and key (Sparrow and Caravan read the same file). */
function coldcardKeys(json: Record<string, unknown>): ScannedKey[] {
  const xfp = typeof json.xfp === 'string' && /^[0-9a-fA-F]{8}$/.test(json.xfp) ? json.xfp.toLowerCase() : null;
  if (!xfp) return [];
  const scripts: [string, string][] = [['p2wsh', 'wsh'], ['p2sh_p2wsh', 'sh(wsh)'], ['p2wsh_p2sh', 'sh(wsh)'], ['p2sh', 'sh']];
  return scripts.flatMap(([field, script]) => {
    const xpub = json[field];
    const deriv = json[`${field}_deriv`];
    if (typeof xpub !== 'string' || typeof deriv !== 'string') return [];
    return [{ xpub: xpubOrRefuse(xpub), fingerprint: xfp, derivationPath: normalizeDerivationPath(deriv), script, device: 'coldcard' as const }];
  });
}

/** A key read back as xpub/tpub: SLIP-132 forms (Zpub, Vpub...) carry the same 78 bytes under another version. */
function xpubOrRefuse(text: string): string {
  const { version, bytes } = parseXpubLike(text);
  const test = [0x043587cf, 0x024289ef, 0x02575483, 0x044a5262, 0x045f1cf6].includes(version);
  const view = new DataView(bytes.buffer, bytes.byteOffset);
  return encodeXpub({
    version: test ? XPUB_VERSION.test : XPUB_VERSION.main,
    depth: bytes[4]!,
    parentFingerprint: view.getUint32(5),
    index: view.getUint32(9),
    chainCode: bytes.slice(13, 45),
    publicKey: bytes.slice(45, 78),
  });
}

/** Keys in text read by camera: a BSMS key record, Coldcard's JSON export, or "[fingerprint/path]xpub" anywhere in it. */
export function keysOfText(text: string): ScannedKey[] {
  const trimmed = text.trim();
  if (trimmed.startsWith('BSMS ')) {
    const { key } = parseBsmsKeyRecord(trimmed);
    return [{ xpub: xpubOrRefuse(key.xpub), fingerprint: key.fingerprint, derivationPath: key.derivationPath }];
  }
  if (trimmed.startsWith('{')) {
    let json: unknown;
    try {
      json = JSON.parse(trimmed);
    } catch {
      throw new FileFormatError('the QR holds broken JSON');
    }
    if (typeof json === 'object' && json !== null) {
      const keys = coldcardKeys(json as Record<string, unknown>);
      if (keys.length > 0) return keys;
    }
  }
  return [...trimmed.matchAll(ORIGIN_KEY)].map((m) => ({
    xpub: xpubOrRefuse(m[3]!),
    fingerprint: m[1]!.toLowerCase(),
    derivationPath: normalizeDerivationPath(`m${m[2]!}`),
  }));
}
