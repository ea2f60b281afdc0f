// Wallet set-up files: each import format from a fixture written by hand from its specification
// (shared/files/fixtures), round-tripped where the desk exports it, and malformed files refused
// clearly. Pure: no service, no node.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatBsmsDescriptorRecord, parseBsmsKeyRecord } from '../../../shared/files/bsms.ts';
import { formatCaravan } from '../../../shared/files/caravan.ts';
import { formatColdcard } from '../../../shared/files/coldcard.ts';
import { formatMultisigDescriptor } from '../../../shared/files/descriptor.ts';
import { parseSetupFile } from '../../../shared/files/setup-file.ts';
import type { WalletSetup } from '../../../shared/files/setup.ts';
import { readWalletSetup } from './setup-files.ts';

const dir = join(import.meta.dirname, '../../../shared/files/fixtures');
const fixture = (name: string) => readFileSync(join(dir, name), 'utf8');
const wallet = (name: string): WalletSetup => {
  const f = parseSetupFile(fixture(name));
  if (f.kind !== 'wallet') throw new Error(`${name} is not a wallet file`);
  return f.setup;
};

// The wallet every fixture describes (fixtures/README.md).
const KEYS = [
  ['793cc70b', 'xpub6ErVmcYYHmavsMgxEcTZyzN5sqth1ZyRpFNJC26ij1wYGC2SBKYrgt9yariSbn7HLRoZUvhUhmPfsRTPrdhhGFscpPZzmch6UTdmRP1aZUj'],
  ['b3118e52', 'xpub6Du5Jn6eYZE96ccmAc1ZTFPzdnzrvqfG4mpamDun2qZYKywoiQJMCbS3kWWMr6U3XW6s125RLsaPABWgv2yA749ieaMe67FxkTjMsbcxCch'],
  ['842bd2ed', 'xpub6Ex81KopPkEt9hJiWHabYy8LNsSR4A7sUQoFBk9dR8XxHrr4p9HrYWN3NCf5uwfopHnQkCG7FYnZMztKbtRtbh6tzZC4xtHPbmVVxRSN7ic'],
].map(([fingerprint, xpub]) => ({ fingerprint: fingerprint!, xpub: xpub!, derivationPath: "m/48'/0'/0'/1'" }));
const FIRST_ADDRESS = '3GVgN79YddBYpbwtqxM6hE95vREKSoXtDC';
const keysOf = (s: WalletSetup) => s.keys.map((k) => ({ fingerprint: k.fingerprint, xpub: k.xpub, derivationPath: k.derivationPath }));
const bitcoin = { coin: 'bitcoin', network: 'mainnet' } as const;

describe('each import format reads its hand-written fixture', () => {
  it.each(['descriptor-2of3.txt', 'descriptor-pair-2of3.txt', 'bsms-descriptor-2of3.bsms', 'caravan-2of3.json', 'coldcard-2of3.txt'])('%s', (name) => {
    const s = wallet(name);
    expect(s.m).toBe(2);
    expect(keysOf(s)).toEqual(KEYS);
    expect(s.keyNetwork).toBe('mainnet');
    // Whatever the format, the desk gets the same wallet, with the same first address.
    const read = readWalletSetup([{ name, text: fixture(name) }], bitcoin);
    expect(read.wallet).toMatchObject({ coin: 'bitcoin', network: 'mainnet', m: 2 });
    expect(read.wallet.cosigners.map((c) => c.xpub)).toEqual(KEYS.map((k) => k.xpub));
  });

  it('names and chain where the format carries them', () => {
    expect(wallet('caravan-2of3.json')).toMatchObject({ format: 'caravan', name: 'Board treasury', chain: { coin: 'bitcoin', network: 'mainnet' } });
    expect(wallet('caravan-2of3.json').keys.map((k) => k.name)).toEqual(['Signer 1', 'Signer 2', 'Signer 3']);
    expect(wallet('coldcard-2of3.txt')).toMatchObject({ format: 'coldcard', name: 'Board treasury', chain: null });
    expect(wallet('bsms-descriptor-2of3.bsms')).toMatchObject({ format: 'bsms', firstAddress: FIRST_ADDRESS });
    expect(readWalletSetup([{ name: 'w.bsms', text: fixture('bsms-descriptor-2of3.bsms') }], bitcoin).notes).toContain(`first address ${FIRST_ADDRESS} matches the record`);
  });

  it('BIP129 key records: signatures verified, one co-signer each, in the order given', () => {
    const files = [1, 2, 3].map((i) => ({ name: `bsms-key-signer${i}.bsms`, text: fixture(`bsms-key-signer${i}.bsms`) }));
    for (const f of files) expect(parseBsmsKeyRecord(f.text).signed).toBe(true);
    const read = readWalletSetup(files, { ...bitcoin, m: 2, name: 'From key records' });
    expect(read.wallet.cosigners.map((c) => [c.name, c.fingerprint, c.derivationPath])).toEqual(KEYS.map((k, i) => [`Signer ${i + 1} key`, k.fingerprint, k.derivationPath]));
    expect(read.notes.every((n) => n.includes('signature verified'))).toBe(true);
    // The same keys as the descriptor record, so the same first address.
    expect(read.wallet.cosigners.map((c) => c.xpub)).toEqual(KEYS.map((k) => k.xpub));
  });
});

describe('segwit and sorted set-up files read into wallets of their script type and key order', () => {
  // Once refused (the desk made P2SH wallets with keys as given only), now wallets like any other.
  it.each([
    ['descriptor-sortedmulti.txt', 'p2sh', true, 2, 3],
    ['descriptor-wsh.txt', 'p2wsh', false, 2, 2],
    ['caravan-p2wsh.json', 'p2wsh', true, 1, 1],
    ['coldcard-p2wsh.txt', 'p2wsh', true, 2, 3],
  ] as const)('%s: %s, sorted %s, %i of %i', (name, scriptType, sortKeys, m, n) => {
    const read = readWalletSetup([{ name, text: fixture(name) }], bitcoin);
    expect(read.wallet).toMatchObject({ coin: 'bitcoin', network: 'mainnet', m, scriptType, sortKeys });
    expect(read.wallet.cosigners.map((c) => c.xpub)).toEqual(KEYS.slice(0, n).map((k) => k.xpub));
    expect(read.notes[0]).toContain(`${name}: `);
  });

  it("a BSMS record of a P2WSH wallet: its first address checked in the wallet's type and order", () => {
    const text = fixture('bsms-p2wsh-2of3.bsms');
    const read = readWalletSetup([{ name: 'vault.bsms', text }], bitcoin);
    expect(read.wallet).toMatchObject({ scriptType: 'p2wsh', sortKeys: true, m: 2 });
    const first = text.split('\n')[3]!;
    expect(first).toMatch(/^bc1q/);
    expect(read.notes).toContain(`first address ${first} matches the record`);
    expect(read.notes[0]).toContain('P2WSH, keys sorted (BIP67)');
    // The same keys' P2SH first address in a record that says wsh(...): another wallet, refused.
    expect(() => readWalletSetup([{ name: 'mixed.bsms', text: text.replace(first, FIRST_ADDRESS) }], bitcoin)).toThrow(/mixed\.bsms: .*first address 3GVg.* is not the first address bc1q.* its descriptor gives/);
  });

  it('taproot and miniscript descriptors are refused naming what they are; a segwit file on a coin without segwit too', () => {
    const key = `[${KEYS[0]!.fingerprint}/48'/0'/0'/2']${KEYS[0]!.xpub}/<0;1>/*`;
    expect(() => readWalletSetup([{ name: 'tr.txt', text: `tr(${KEYS[1]!.xpub}/<0;1>/*)` }], bitcoin)).toThrow(/tr\.txt: unsupported descriptor: tr\(\.\.\.\) is taproot/);
    expect(() => readWalletSetup([{ name: 'ms.txt', text: `wsh(and_v(v:pk(${key}),older(144)))` }], bitcoin)).toThrow(/ms\.txt: .*is miniscript/);
    expect(() => readWalletSetup([{ name: 'vault.bsms', text: fixture('bsms-p2wsh-2of3.bsms') }], { coin: 'dash', network: 'mainnet' })).toThrow(/P2WSH wallet/);
  });
});

describe('round trips through the formats the desk exports', () => {
  const named = KEYS.map((k, i) => ({ ...k, name: `Signer ${i + 1}` }));
  it('descriptor (multipath, with checksum) reads back to the same keys and equals the fixture', () => {
    const text = formatMultisigDescriptor(2, named, '/<0;1>/*');
    expect(text).toBe(fixture('descriptor-2of3.txt').trim());
    const parsed = parseSetupFile(text);
    expect(parsed.kind === 'wallet' && keysOf(parsed.setup)).toEqual(KEYS);
  });
  it('BSMS descriptor record equals the fixture', () => {
    expect(formatBsmsDescriptorRecord(2, named, FIRST_ADDRESS)).toBe(fixture('bsms-descriptor-2of3.bsms'));
  });
  it('Caravan and Coldcard read back to the same wallet', () => {
    const caravan = parseSetupFile(formatCaravan('Board treasury', 'mainnet', 2, named));
    expect(caravan.kind === 'wallet' && { name: caravan.setup.name, m: caravan.setup.m, keys: caravan.setup.keys }).toEqual({ name: 'Board treasury', m: 2, keys: named });
    expect(JSON.parse(formatCaravan('Board treasury', 'mainnet', 2, named))).toEqual({ ...JSON.parse(fixture('caravan-2of3.json')) });
    const coldcard = parseSetupFile(formatColdcard('Board treasury', 2, named));
    expect(coldcard.kind === 'wallet' && keysOf(coldcard.setup)).toEqual(KEYS);
  });
});

describe('malformed files are refused, saying why', () => {
  const refusals: Record<string, RegExp> = {
    'descriptor-bad-checksum.txt': /checksum "c3s7d8zw" does not match the descriptor: it was altered or mistyped/,
    'descriptor-xprv.txt': /key 1 \(Key 1 \(3442193e\)\) is an extended private key \(xprv\.\.\.\): a set-up file must carry public keys only/,
    'descriptor-mixed-networks.txt': /the keys mix networks: key 1 .* is a mainnet key, key 2 .* is not/,
    'descriptor-m-above-n.txt': /the policy 3 of 2 is impossible/,
    'bsms-key-altered.bsms': /its signature does not verify for its key \(it was made by another key\): the record was altered/,
    'bsms-key-other-signer.bsms': /its signature does not verify for its key/,
    'bsms-descriptor-restrictions.bsms': /path restrictions "\/0\/\*,\/1\/\*,\/2\/\*" are not \/0\/\*,\/1\/\*/,
    'bsms-version-2.bsms': /version "2.0" is not supported \(only 1.0\)/,
    'bsms-encrypted.dat': /it is encrypted .* ask for the unencrypted record/,
    'caravan-wrong-count.json': /its quorum says 3 signers but it lists 2 keys/,
    'caravan-network-mismatch.json': /the file says testnet but its keys are mainnet keys/,
    'coldcard-wrong-policy.txt': /its policy says 2 of 4 but it lists 3 keys/,
    'coldcard-xprv.txt': /is an extended private key .* public keys only/,
  };

  it('has a refusal for every bad fixture', () => {
    expect(readdirSync(join(dir, 'bad')).sort()).toEqual(Object.keys(refusals).sort());
  });

  it.each(Object.entries(refusals))('%s', (name, message) => {
    expect(() => parseSetupFile(fixture(`bad/${name}`))).toThrow(message);
    // Through the desk: the same reason, naming the file.
    expect(() => readWalletSetup([{ name, text: fixture(`bad/${name}`) }], bitcoin)).toThrow(new RegExp(`${name.replace('.', '\\.')}: `));
  });

  it('refuses what is no set-up file at all, and a record for another chain', () => {
    expect(() => parseSetupFile('hello')).toThrow(/not a wallet set-up file this desk reads/);
    expect(() => readWalletSetup([{ name: 'w.bsms', text: fixture('bsms-descriptor-2of3.bsms') }], { coin: 'testnet3', network: 'mainnet' })).toThrow(/is not a valid testnet3 xpub/);
    expect(() => readWalletSetup([{ name: 'w.bsms', text: fixture('bsms-descriptor-2of3.bsms') }], { coin: 'dash', network: 'mainnet' })).toThrow(/first address 3GVg.* is not the first address 7.* these keys give on dash mainnet/);
  });
});
