/**
 * Any wallet set-up file another wallet wrote, recognised by its shape: Caravan JSON, a BSMS key
 * or descriptor record, an output descriptor (one multipath line, or the receive and change
 * pair), or a Coldcard/Electrum multisig text file.
 */
import { parseBsmsDescriptorRecord, parseBsmsKeyRecord, type BsmsKeyRecord } from './bsms.ts';
import { parseCaravan } from './caravan.ts';
import { looksLikeColdcard, parseColdcard } from './coldcard.ts';
import { parseMultisigDescriptor } from './descriptor.ts';
import { FileFormatError } from './errors.ts';
import type { WalletSetup } from './setup.ts';

export type SetupFile = { kind: 'wallet'; setup: WalletSetup } | { kind: 'key'; record: BsmsKeyRecord };

/** A descriptor file: /<0;1>/* or /0/* on one line, or /0/* and /1/* on two. */
export function parseDescriptorFile(text: string): WalletSetup {
  const lines = text.split(/\r?\n/).map((l) => l.trim()).filter((l) => l !== '' && !l.startsWith('#') && !l.startsWith('//'));
  if (lines.length === 0 || lines.length > 2) throw new FileFormatError(`a descriptor file holds one descriptor (or the receive and change pair), this one has ${lines.length} lines`);
  const ds = lines.map((l) => parseMultisigDescriptor(l));
  const receive = ds.find((d) => d.branches === '/<0;1>/*' || d.branches === '/0/*');
  if (!receive) throw new FileFormatError('the descriptor does not describe receive addresses (/0/* or /<0;1>/*)');
  if (ds.length === 2) {
    const change = ds.find((d) => d.branches === '/1/*');
    const same = change && change.m === receive.m && change.keys.map((k) => k.xpub).join() === receive.keys.map((k) => k.xpub).join();
    if (!same || receive.branches !== '/0/*') throw new FileFormatError('the two descriptors are not the receive (/0/*) and change (/1/*) descriptors of the same keys');
  }
  return { format: 'descriptor', name: null, m: receive.m, keys: receive.keys, keyNetwork: receive.keyNetwork, chain: null, firstAddress: null };
}

export function parseSetupFile(text: string): SetupFile {
  const body = text.replace(/^\uFEFF/, '').trim();
  if (body.startsWith('{')) return { kind: 'wallet', setup: parseCaravan(body) };
  if (body.startsWith('BSMS') || /^[0-9a-fA-F]{64,}$/.test(body)) {
    const second = body.split(/\r?\n/)[1]?.trim() ?? '';
    return /^([0-9a-fA-F]{2})+$/.test(second) ? { kind: 'key', record: parseBsmsKeyRecord(body) } : { kind: 'wallet', setup: parseBsmsDescriptorRecord(body) };
  }
  if (/^[a-z_]+\(/m.test(body) && !looksLikeColdcard(body)) return { kind: 'wallet', setup: parseDescriptorFile(body) };
  if (looksLikeColdcard(body)) return { kind: 'wallet', setup: parseColdcard(body) };
  throw new FileFormatError('not a wallet set-up file this desk reads (a BSMS record, an sh(multi(...)) descriptor, a Caravan wallet JSON, or a Coldcard/Electrum multisig text file)');
}
