/**
 * BIP129 (Bitcoin Secure Multisig Setup) records, unencrypted form:
 *
 * key record (a signer's key)        descriptor record (the wallet)
 *   BSMS 1.0                           BSMS 1.0
 *   <TOKEN, hex; 00 = no encryption>   <descriptor, or template with /**>
 *   [fingerprint/path]xpub             <path restrictions: /0/*,/1/* or "No path restrictions">
 *   <description, up to 80 chars>      <the wallet's first address>
 *   <signature of the 4 lines above>
 *
 * The descriptor may be any multisig descriptor this desk reads (sh/wsh/sh(wsh), multi/sortedmulti).
 * The first address is checked against the one the descriptor gives, on the chain the address is
 * written for. Encrypted records (hex MAC || ciphertext, .dat files) need the session's TOKEN and are refused.
 */
import { addressToScript, allChainParams, describeChain, equalBytes, type ChainParams } from '../coins/index.ts';
import { deriveAddress } from '../coins/multisig-address.ts';
import { parseXpubLike } from './xpub-bytes.ts';
import { parseMultisigDescriptor, formatMultisigDescriptor, type MultisigDescriptor } from './descriptor.ts';
import { normalizeDerivationPath } from './derivation-path.ts';
import { FileFormatError } from './errors.ts';
import { verifyMessage } from './signed-message.ts';
import { keyNetworkOf, P2SH_GIVEN_ORDER, type SetupKey, type WalletScript, type WalletSetup } from './setup.ts';

export const BSMS_VERSION = 'BSMS 1.0';
const RESTRICTIONS = '/0/*,/1/*';

export interface BsmsKeyRecord {
  token: string;
  key: SetupKey;
  description: string;
  /** False when the record carries no signature line; a present signature is always verified. */
  signed: boolean;
}

const fail = (why: string): never => {
  throw new FileFormatError(`not a usable BSMS record: ${why}`);
};

function lines(text: string): string[] {
  const all = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  while (all.length > 0 && all[all.length - 1]!.trim() === '') all.pop();
  return all;
}

function checkVersion(all: string[]): void {
  const first = all[0]?.trim() ?? '';
  if (/^[0-9a-fA-F]{64,}$/.test(first) && all.length === 1) fail('it is encrypted (MAC and ciphertext in hex); decrypt it with the session TOKEN in the wallet that made it, or ask for the unencrypted record (TOKEN 00)');
  if (!first.startsWith('BSMS ')) fail('its first line is not "BSMS 1.0"');
  if (first !== BSMS_VERSION) fail(`version "${first.slice(5)}" is not supported (only 1.0)`);
}

/** Reads a key record; its signature, when present, must verify for its key (BIP129 round 2). */
export function parseBsmsKeyRecord(text: string): BsmsKeyRecord {
  const all = lines(text);
  checkVersion(all);
  if (all.length < 4 || all.length > 5) fail(`a key record has 5 lines (4 without signature), this one has ${all.length}`);
  const [, token, keyLine, description, signature] = all.map((l) => l.trim()) as [string, string, string, string, string | undefined];
  if (!/^([0-9a-fA-F]{2})+$/.test(token)) fail(`its TOKEN "${token}" is not hex`);
  if (description.length > 80) fail('its description is longer than 80 characters');
  const m = /^\[([0-9a-fA-F]{8})((?:\/[0-9]+['hH]?)*)\](\S+)$/.exec(keyLine);
  if (!m) return fail('its third line is not [fingerprint/path]key');
  const xpub = m[3]!;
  if (/^(02|03)[0-9a-fA-F]{64}$/.test(xpub)) fail('it carries a single public key; this desk derives a wallet\'s addresses from xpubs');
  const name = description || `Key ${m[1]!.toLowerCase()}`;
  keyNetworkOf(xpub, `the key of "${name}"`);
  const key: SetupKey = { name, xpub, fingerprint: m[1]!.toLowerCase(), derivationPath: normalizeDerivationPath(`m${m[2]}`) };
  if (signature !== undefined && signature !== '') {
    const check = verifyMessage(all.slice(0, 4).join('\n'), signature, parseXpubLike(xpub).publicKey);
    if (!check.ok) fail(`its signature does not verify for its key (${check.why}): the record was altered or signed by another key`);
  }
  return { token: token.toLowerCase(), key, description, signed: signature !== undefined && signature !== '' };
}

/** Reads a descriptor record (a whole wallet). */
export function parseBsmsDescriptorRecord(text: string): WalletSetup {
  const all = lines(text);
  checkVersion(all);
  if (all.length !== 4) fail(`a descriptor record has 4 lines, this one has ${all.length}`);
  const [, descriptorLine, restrictions, firstAddress] = all.map((l) => l.trim()) as [string, string, string, string];
  const template = descriptorLine.includes('/**');
  if (template && restrictions !== RESTRICTIONS) {
    fail(`its path restrictions "${restrictions}" are not ${RESTRICTIONS}: this desk derives receive addresses at /0/* and change at /1/*`);
  }
  if (!template && restrictions !== 'No path restrictions' && restrictions !== RESTRICTIONS) fail(`its path restrictions line "${restrictions}" is not understood`);
  const d = parseMultisigDescriptor(descriptorLine, { template });
  if (!template && d.branches !== '/<0;1>/*' && d.branches !== '/0/*') fail('its descriptor does not describe the receive addresses (/0/* or /<0;1>/*)');
  checkFirstAddress(d, firstAddress);
  return { format: 'bsms', name: null, m: d.m, keys: d.keys, keyNetwork: d.keyNetwork, chain: null, firstAddress, scriptType: d.scriptType, sortKeys: d.sortKeys };
}

/** The first receive address of the descriptor on `params`, or null where its keys or script type do not fit. */
function firstAddressOn(params: ChainParams, d: MultisigDescriptor): string | null {
  try {
    return deriveAddress(params, d.m, d.keys.map((k) => k.xpub), false, 0, { scriptType: d.scriptType, sortKeys: d.sortKeys }).address;
  } catch {
    return null;
  }
}

/**
 * The record names no chain, but its address does: on one of the chains that read the address,
 * the descriptor's first address must be it. A record whose address no chain reads is refused.
 */
function checkFirstAddress(d: MultisigDescriptor, address: string): void {
  if (!/^[0-9A-Za-z]{25,90}$/.test(address)) fail(`its fourth line "${address.slice(0, 40)}" is not an address`);
  const readers = allChainParams().flatMap((params) => {
    try {
      return [{ params, script: addressToScript(params, address) }];
    } catch {
      return [];
    }
  });
  if (readers.length === 0) fail(`its fourth line "${address.slice(0, 40)}" is not an address of any chain this desk knows`);
  let ours: { chain: string; address: string } | null = null;
  for (const { params, script } of readers) {
    const derived = firstAddressOn(params, d);
    if (derived === null) continue;
    if (equalBytes(addressToScript(params, derived), script)) return;
    ours ??= { chain: describeChain(params), address: derived };
  }
  if (ours === null) fail(`its first address ${address} is for ${readers.map((r) => describeChain(r.params)).join(', ')}, where its keys make no ${d.scriptType} wallet`);
  fail(`the record's first address ${address} is not the first address ${ours!.address} its descriptor gives (on ${ours!.chain}): the record was altered, or belongs to another wallet`);
}

/** The descriptor record of a wallet: template with /**, restrictions /0/*,/1/*, first address. */
export function formatBsmsDescriptorRecord(m: number, keys: readonly SetupKey[], firstAddress: string, script: WalletScript = P2SH_GIVEN_ORDER): string {
  return [BSMS_VERSION, formatMultisigDescriptor(m, keys, '/**', false, script), RESTRICTIONS, firstAddress].join('\n') + '\n';
}

/** A key record line 3: [fingerprint/path]xpub (for tests and for co-signers' own records). */
export function bsmsKeyLine(key: Pick<SetupKey, 'fingerprint' | 'derivationPath' | 'xpub'>): string {
  return `[${key.fingerprint}${normalizeDerivationPath(key.derivationPath).slice(1)}]${key.xpub}`;
}
