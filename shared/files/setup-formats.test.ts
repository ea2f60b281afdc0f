// The set-up formats with script types and key order: each peer product's file (fixtures written
// in the shape Sparrow, Caravan/Unchained, Nunchuk, Coldcard, Specter and BSMS write), every
// writer round-tripped through its reader, and every descriptor the desk cannot spend refused by name.
import { BIP32Factory } from 'bip32';
import * as bitcoin from 'bitcoinjs-lib';
import * as ecc from 'tiny-secp256k1';
import { describe, expect, it } from 'vitest';
import { chainParams, derivePublicKey, MULTISIG_SCRIPT_TYPES, sha256 } from '../coins/index.ts';
import { deriveAddress } from '../coins/multisig-address.ts';
import { formatBsmsDescriptorRecord, parseBsmsDescriptorRecord } from './bsms.ts';
import { formatCaravan, parseCaravan } from './caravan.ts';
import { formatColdcard, parseColdcard } from './coldcard.ts';
import { withChecksum } from './descriptor-checksum.ts';
import { formatMultisigDescriptor, parseMultisigDescriptor } from './descriptor.ts';
import { parseDescriptorFile, parseSetupFile } from './setup-file.ts';
import type { SetupKey, WalletScript, WalletSetup } from './setup.ts';
import { formatSpecter, parseSpecter } from './specter.ts';
import f0 from './fixtures/sparrow-p2wsh-2of3.txt?raw';
import f1 from './fixtures/descriptor-sh-wsh-pair-2of3.txt?raw';
import f2 from './fixtures/caravan-p2wsh-2of3.json?raw';
import f3 from './fixtures/nunchuk-p2wsh-2of3.txt?raw';
import f4 from './fixtures/coldcard-p2sh-p2wsh-2of3.txt?raw';
import f5 from './fixtures/specter-p2wsh-2of3.json?raw';
import f6 from './fixtures/bsms-p2wsh-2of3.bsms?raw';
import f7 from './fixtures/descriptor-2of3.txt?raw';
import f8 from './fixtures/bsms-descriptor-2of3.bsms?raw';
import f9 from './fixtures/caravan-2of3.json?raw';
import f10 from './fixtures/coldcard-2of3.txt?raw';

const FIXTURES: Readonly<Record<string, string>> = {
  'sparrow-p2wsh-2of3.txt': f0,
  'descriptor-sh-wsh-pair-2of3.txt': f1,
  'caravan-p2wsh-2of3.json': f2,
  'nunchuk-p2wsh-2of3.txt': f3,
  'coldcard-p2sh-p2wsh-2of3.txt': f4,
  'specter-p2wsh-2of3.json': f5,
  'bsms-p2wsh-2of3.bsms': f6,
  'descriptor-2of3.txt': f7,
  'bsms-descriptor-2of3.bsms': f8,
  'caravan-2of3.json': f9,
  'coldcard-2of3.txt': f10,
};
const fixture = (name: string): string => {
  const text = FIXTURES[name];
  if (text === undefined) throw new Error(`no fixture ${name}`);
  return text;
};
const read = (text: string): WalletSetup => {
  const f = parseSetupFile(text, 'any-multisig');
  if (f.kind !== 'wallet') throw new Error('not a wallet file');
  return f.setup;
};

// The fixtures' wallet (fixtures/README.md): BIP129's three signers at m/48'/0'/0'/1'.
const KEYS: SetupKey[] = [
  ['793cc70b', 'xpub6ErVmcYYHmavsMgxEcTZyzN5sqth1ZyRpFNJC26ij1wYGC2SBKYrgt9yariSbn7HLRoZUvhUhmPfsRTPrdhhGFscpPZzmch6UTdmRP1aZUj'],
  ['b3118e52', 'xpub6Du5Jn6eYZE96ccmAc1ZTFPzdnzrvqfG4mpamDun2qZYKywoiQJMCbS3kWWMr6U3XW6s125RLsaPABWgv2yA749ieaMe67FxkTjMsbcxCch'],
  ['842bd2ed', 'xpub6Ex81KopPkEt9hJiWHabYy8LNsSR4A7sUQoFBk9dR8XxHrr4p9HrYWN3NCf5uwfopHnQkCG7FYnZMztKbtRtbh6tzZC4xtHPbmVVxRSN7ic'],
].map(([fingerprint, xpub], i) => ({ name: `Signer ${i + 1}`, fingerprint: fingerprint!, xpub: xpub!, derivationPath: "m/48'/0'/0'/1'" }));
const origins = (s: { keys: SetupKey[] }) => s.keys.map((k) => [k.fingerprint, k.derivationPath, k.xpub]);
const ORIGINS = origins({ keys: KEYS });
const btc = chainParams('bitcoin', 'mainnet');

const bip32 = BIP32Factory(ecc);
const TEST_NET = { messagePrefix: '', bech32: 'tb', bip32: { public: 0x043587cf, private: 0x04358394 }, pubKeyHash: 0x6f, scriptHash: 0xc4, wif: 0xef };
const TPUB = bip32.fromSeed(Buffer.from(sha256(new TextEncoder().encode('setup formats tpub'))), TEST_NET).derivePath("m/48'/1'/0'/2'").neutered().toBase58();

describe("each peer product's file reads with its script type and key order", () => {
  it.each([
    ['sparrow-p2wsh-2of3.txt', 'descriptor', 'p2wsh'],
    ['descriptor-sh-wsh-pair-2of3.txt', 'descriptor', 'p2sh-p2wsh'],
    ['caravan-p2wsh-2of3.json', 'caravan', 'p2wsh'],
    ['nunchuk-p2wsh-2of3.txt', 'coldcard', 'p2wsh'],
    ['coldcard-p2sh-p2wsh-2of3.txt', 'coldcard', 'p2sh-p2wsh'],
    ['specter-p2wsh-2of3.json', 'specter', 'p2wsh'],
    ['bsms-p2wsh-2of3.bsms', 'bsms', 'p2wsh'],
  ] as const)('%s', (name, format, scriptType) => {
    const s = read(fixture(name));
    expect(s).toMatchObject({ format, m: 2, scriptType, sortKeys: true, keyNetwork: 'mainnet' });
    expect(origins(s)).toEqual(ORIGINS);
  });

  it('the older files read as before: P2SH, given order for descriptors, sorted for Caravan and Coldcard', () => {
    expect(read(fixture('descriptor-2of3.txt'))).toMatchObject({ scriptType: 'p2sh', sortKeys: false });
    expect(read(fixture('bsms-descriptor-2of3.bsms'))).toMatchObject({ scriptType: 'p2sh', sortKeys: false });
    expect(read(fixture('caravan-2of3.json'))).toMatchObject({ scriptType: 'p2sh', sortKeys: true });
    expect(read(fixture('coldcard-2of3.txt'))).toMatchObject({ scriptType: 'p2sh', sortKeys: true });
  });

  it('names and chain where the format carries them', () => {
    const specter = read(fixture('specter-p2wsh-2of3.json'));
    expect(specter.name).toBe('Board treasury');
    expect(specter.keys.map((k) => k.name)).toEqual(['Signer 1', 'Signer 2', 'Signer 3']);
    expect(read(fixture('caravan-p2wsh-2of3.json')).chain).toEqual({ coin: 'bitcoin', network: 'mainnet' });
    expect(read(fixture('nunchuk-p2wsh-2of3.txt')).name).toBe('Board treasury');
  });

  it("the BSMS record's first address is the one bitcoinjs-lib derives for wsh(sortedmulti) of these keys", () => {
    const pubkeys = KEYS.map((k) => Buffer.from(derivePublicKey(btc, k.xpub, '0/0'))).sort(Buffer.compare);
    const theirs = bitcoin.payments.p2wsh({ redeem: bitcoin.payments.p2ms({ m: 2, pubkeys }) }).address;
    expect(read(fixture('bsms-p2wsh-2of3.bsms')).firstAddress).toBe(theirs);
  });
});

describe('every writer reads back to the same wallet', () => {
  const scripts: WalletScript[] = MULTISIG_SCRIPT_TYPES.flatMap((scriptType) => [true, false].map((sortKeys) => ({ scriptType, sortKeys })));
  const same = (s: WalletSetup, script: WalletScript) => {
    expect({ m: s.m, scriptType: s.scriptType, sortKeys: s.sortKeys }).toEqual({ m: 2, ...script });
    expect(origins(s)).toEqual(ORIGINS);
  };

  it.each(scripts)('descriptors, multipath and pair, %o', (script) => {
    same(read(formatMultisigDescriptor(2, KEYS, '/<0;1>/*', true, script)), script);
    same(parseDescriptorFile([formatMultisigDescriptor(2, KEYS, '/0/*', true, script), formatMultisigDescriptor(2, KEYS, '/1/*', false, script)].join('\n')), script);
  });

  it.each(scripts)('BSMS descriptor record with its first address, %o', (script) => {
    const first = deriveAddress(btc, 2, KEYS.map((k) => k.xpub), false, 0, script).address;
    const s = parseBsmsDescriptorRecord(formatBsmsDescriptorRecord(2, KEYS, first, script));
    same(s, script);
    expect(s.firstAddress).toBe(first);
  });

  it.each(scripts)('Specter wallet JSON, %o', (script) => {
    const s = parseSpecter(formatSpecter('Board treasury', 2, KEYS, script));
    same(s, script);
    expect(s.keys.map((k) => k.name)).toEqual(KEYS.map((k) => k.name));
  });

  it.each(MULTISIG_SCRIPT_TYPES)('Caravan and Coldcard (always sorted), %s', (scriptType) => {
    const script = { scriptType, sortKeys: true };
    const caravan = parseCaravan(formatCaravan('Board treasury', 'mainnet', 2, KEYS, script));
    same(caravan, script);
    expect(caravan.keys).toEqual(KEYS);
    same(parseColdcard(formatColdcard('Board treasury', 2, KEYS, script)), script);
  });

  it('Caravan and Coldcard refuse to write a wallet whose keys keep their order', () => {
    const given = { scriptType: 'p2wsh', sortKeys: false } as const;
    expect(() => formatCaravan('T', 'mainnet', 2, KEYS, given)).toThrow(/Caravan always sorts the keys \(BIP67\); a wallet whose keys keep their given order has other addresses there/);
    expect(() => formatColdcard('T', 2, KEYS, given)).toThrow(/Coldcard always sorts the keys \(BIP67\)/);
  });

  it("h and ' hardened markers read the same", () => {
    const text = formatMultisigDescriptor(2, KEYS, '/<0;1>/*', false, { scriptType: 'p2wsh', sortKeys: true });
    expect(origins(parseMultisigDescriptor(text.replaceAll("'", 'h')))).toEqual(ORIGINS);
  });
});

describe('descriptors the desk cannot spend are refused, naming what they are', () => {
  const [a, b, c] = KEYS.map((k) => `[${k.fingerprint}/48h/0h/0h/2h]${k.xpub}/<0;1>/*`) as [string, string, string];
  const refusals: Array<[string, string, RegExp]> = [
    ['taproot', `tr(${a},multi_a(2,${b},${c}))`, /tr\(\.\.\.\) is taproot, which this desk does not spend/],
    ['miniscript and_v', `wsh(and_v(v:pk(${a}),pk(${b})))`, /wsh\(and_v\(\.\.\.\)\) is miniscript/],
    ['miniscript thresh', `wsh(thresh(2,pk(${a}),s:pk(${b}),s:pk(${c})))`, /wsh\(thresh\(\.\.\.\)\) is miniscript/],
    ['nested miniscript', `sh(wsh(or_d(pk(${a}),pk(${b}))))`, /sh\(wsh\(or_d\(\.\.\.\)\)\) is miniscript/],
    ['wpkh', `wpkh(${a})`, /wpkh\(\.\.\.\) is a single-key segwit script, not a multisig wallet/],
    ['pkh', `pkh(${a})`, /pkh\(\.\.\.\) is a single-key script, not a multisig wallet/],
    ['sh(wpkh)', `sh(wpkh(${a}))`, /sh\(wpkh\(\.\.\.\)\) is a single-key script/],
    ['combo', `combo(${a})`, /combo\(\.\.\.\) is a single key in several script forms/],
    ['addr', 'addr(bc1qejvzgpfdnnzv0qeflhdaan55w9dlc303phnpd0mezlrfqfw3yyjsgp3hqg)', /addr\(\.\.\.\) names one address, not a wallet/],
    ['raw', 'raw(deadbeef)', /raw\(\.\.\.\) is one script, not a wallet/],
    ['threshold above the keys', `wsh(sortedmulti(3,${a},${b}))`, /the policy 3 of 2 is impossible.*the threshold 3 is larger than the 2 keys/],
    ['mixed networks', `wsh(sortedmulti(2,${a},[00000000/48h/1h/0h/2h]${TPUB}/<0;1>/*))`, /the keys mix networks: key 1 .* is a mainnet key, key 2 .* is not/],
    ['three-way multipath', `wsh(sortedmulti(2,${a.replace('<0;1>', '<0;1;2>')},${b}))`, /key 1's multipath <0;1;2> is not <0;1>: this desk reads one receive \(0\) and one change \(1\) branch/],
    ['multipath of other branches', `wsh(sortedmulti(2,${a.replace('<0;1>', '<2;3>')},${b}))`, /multipath <2;3> is not <0;1>/],
    ['hardened after the xpub', `wsh(sortedmulti(2,${a.replace('/<0;1>/*', "/0'/*")},${b}))`, /key 1 derives hardened steps after the xpub \("\/0'\/\*"\), which needs the private key/],
    ['hardened wildcard', `wsh(sortedmulti(2,${a.replace('/<0;1>/*', '/0/*h')},${b}))`, /key 1 derives hardened steps after the xpub/],
  ];

  it.each(refusals)('%s', (_, text, message) => {
    expect(() => parseSetupFile(text, 'any-multisig')).toThrow(message);
    expect(() => parseSetupFile(withChecksum(text), 'any-multisig')).toThrow(message);
  });

  it('a bad checksum is called wrong, and the right one is not handed over', () => {
    const good = withChecksum(`wsh(sortedmulti(2,${a},${b}))`);
    const bad = `${good.slice(0, -8)}qqqqqqqq`;
    expect(() => parseSetupFile(bad, 'any-multisig')).toThrow(/checksum "qqqqqqqq" does not match the descriptor: it was altered or mistyped .*copy the descriptor again from that wallet, do not correct the checksum by hand/);
    expect(() => parseSetupFile(bad, 'any-multisig')).not.toThrow(good.slice(-8));
  });

  it("a BSMS record whose first address is not the descriptor's is refused, naming both", () => {
    const script = { scriptType: 'p2wsh', sortKeys: true } as const;
    const ours = deriveAddress(btc, 2, KEYS.map((k) => k.xpub), false, 0, script).address;
    const other = deriveAddress(btc, 2, KEYS.map((k) => k.xpub), false, 1, script).address;
    expect(() => parseBsmsDescriptorRecord(formatBsmsDescriptorRecord(2, KEYS, other, script))).toThrow(
      `the record's first address ${other} is not the first address ${ours} its descriptor gives (on bitcoin): the record was altered, or belongs to another wallet`,
    );
    // The given-order wallet's first address is not the sorted wallet's.
    const given = deriveAddress(btc, 2, KEYS.map((k) => k.xpub), false, 0, { scriptType: 'p2wsh', sortKeys: false }).address;
    expect(() => parseBsmsDescriptorRecord(formatBsmsDescriptorRecord(2, KEYS, given, script))).toThrow(/is not the first address/);
    expect(() => parseBsmsDescriptorRecord(formatBsmsDescriptorRecord(2, KEYS, 'notanaddress0000000000000000', script))).toThrow(/is not an address of any chain this desk knows/);
  });

  it('Caravan and Coldcard files of another address type are refused by name', () => {
    expect(() => parseCaravan(fixture('caravan-p2wsh-2of3.json').replace('"P2WSH"', '"P2TR"'))).toThrow(/its address type "P2TR" is not P2SH, P2SH-P2WSH or P2WSH/);
    expect(() => parseColdcard(fixture('nunchuk-p2wsh-2of3.txt').replace('Format: P2WSH', 'Format: P2TR'))).toThrow(/its format "P2TR" is not P2SH, P2SH-P2WSH or P2WSH/);
  });

  it('Specter: devices that do not match the keys are refused', () => {
    const json = JSON.parse(fixture('specter-p2wsh-2of3.json')) as { devices: unknown[] };
    json.devices.pop();
    expect(() => parseSpecter(JSON.stringify(json))).toThrow(/it lists 2 devices for the descriptor's 3 keys/);
  });
});

describe("the 'p2sh-multi' reach (the desk until its wallets carry a script type) refuses what it cannot hold", () => {
  it.each([
    ['sparrow-p2wsh-2of3.txt', /wsh\(\.\.\.\) is native segwit \(P2WSH\); this desk makes P2SH multisig wallets until its wallets carry a script type/],
    ['descriptor-sh-wsh-pair-2of3.txt', /sh\(wsh\(\.\.\.\)\) is nested segwit \(P2SH-P2WSH\)/],
    ['caravan-p2wsh-2of3.json', /its address type P2WSH is not P2SH/],
    ['coldcard-p2sh-p2wsh-2of3.txt', /its format P2SH-P2WSH is not P2SH/],
    ['specter-p2wsh-2of3.json', /wsh\(\.\.\.\) is native segwit/],
    ['bsms-p2wsh-2of3.bsms', /wsh\(\.\.\.\) is native segwit/],
  ])('%s', (name, message) => {
    expect(() => parseSetupFile(fixture(name))).toThrow(message);
    expect(() => parseSetupFile(fixture(name), 'any-multisig')).not.toThrow();
  });

  it('a P2SH sortedmulti descriptor is refused there, read with any-multisig', () => {
    const text = formatMultisigDescriptor(2, KEYS, '/<0;1>/*', true, { scriptType: 'p2sh', sortKeys: true });
    expect(() => parseSetupFile(text)).toThrow(/sortedmulti sorts the keys \(BIP67\)/);
    expect(read(text)).toMatchObject({ scriptType: 'p2sh', sortKeys: true });
  });
});
