// The QR codecs against the public vectors (BCR-2020-005/006/007/010/015, BCR-2023-010/019, the
// bc-ur "Wolf" fountain vectors, coinkite/BBQr test_data), round trips of real PSBTs at every
// density and in both codes with frames lost and repeated, and frames that are not ours refused.
import { BIP32Factory, type BIP32Interface } from 'bip32';
import { Transaction, networks, payments } from 'bitcoinjs-lib';
import * as ecc from 'tiny-secp256k1';
import { describe, expect, it } from 'vitest';
import { base64 } from '@scure/base';
import { UR, UREncoder } from '@ngraveio/bc-ur';
import xoshiro from '@ngraveio/bc-ur/dist/xoshiro.js';
import { CryptoHDKey, CryptoKeypath, CryptoOutput, PathComponent, CryptoCoinInfo, CryptoCoinInfoNetwork, CryptoCoinInfoType } from '@keystonehq/bc-ur-registry';
import { bytesToHex, chainParams, decodeTx, hexToBytes, multisigScripts, sha256 } from '../coins/index.ts';
import { compileVaultMiniscript, miniscriptWitnessScript } from '../coins/miniscript.ts';
import { formatMultisigDescriptor, parseMultisigDescriptor } from '../files/descriptor.ts';
import { decodePsbt, encodePsbt, withoutNonWitnessUtxos } from '../files/psbt.ts';
import { parseXpubLike } from '../files/xpub-bytes.ts';
import { multisigCryptoOutput } from './crypto-output.ts';
import { buildMultisigPsbt, type KeyDerivation } from '../files/psbt-multisig.ts';
import { assembleBbqr, bbqrFrames } from './bbqr.ts';
import { keyForScript, readQrFrames, type QrPayload } from './read.ts';
import { keysOfText } from './scanned-keys.ts';
import { preferredPsbtFormat, psbtFrames, registrationFrames } from './show.ts';
import { assembleUr, psbtUrFrames, textUrFrames, UR_FRAGMENT_BYTES, type QrDensity } from './ur.ts';

import vectors from './fixtures/bc-ur-vectors.json' with { type: 'json' };
import bbqrData from './fixtures/bbqr-test-data.json' with { type: 'json' };
import coldcardP2wsh from '../files/fixtures/coldcard-p2wsh.txt?raw';
import coldcard2of3 from '../files/fixtures/coldcard-2of3.txt?raw';
import descriptorWsh from '../files/fixtures/descriptor-wsh.txt?raw';

const testData = (name: string): Uint8Array => base64.decode((bbqrData.files as Record<string, string>)[name]!);
const V = vectors as {
  seed_single: { ur: string; cbor: string };
  psbt: { psbt: string; ur: string };
  hdkey: { ur: string; xprv?: string; tpub?: string; path?: string; parent_fingerprint?: string }[];
  crypto_output: { descriptor: string; ur: string }[];
  crypto_account: { ur: string; descriptors: string[] };
  account_descriptor: { ur: string };
  output_descriptor: { descriptor: string; tagged_cbor: string };
  wolf: { seed: string; message_length: number; fragment_length: number; parts: string[]; single_part: { message_length: number; ur: string }; raw_parts: string[] };
};

/** The bc-ur reference's test message: xoshiro256** seeded with SHA-256 of the seed text. */
// The CommonJS module's default export is the class (its typings say `export default`, which the ESM interop wraps).
const Xoshiro = ((xoshiro as unknown as { default?: typeof xoshiro }).default ?? xoshiro) as unknown as new (seed: Buffer) => { nextData: (n: number) => number[] };
const wolfMessage = (n: number, seed = 'Wolf') => Buffer.from(new Xoshiro(Buffer.from(seed)).nextData(n));
/** CBOR of a byte string of the message (the body of ur:bytes). */
const cborBytes = (m: Buffer) => Buffer.concat([Buffer.from(m.length < 24 ? [0x40 | m.length] : m.length < 256 ? [0x58, m.length] : [0x59, m.length >> 8, m.length & 0xff]), m]);
const done = (frames: readonly string[]): QrPayload => {
  const r = readQrFrames(frames);
  if (r.state !== 'done') throw new Error(`not done: ${JSON.stringify(r)}`);
  return r.payload;
};

describe('UR: the public vectors', () => {
  it('BCR-2020-005: a single-part UR decodes to its CBOR', () => {
    const a = assembleUr([V.seed_single.ur]);
    expect(a.state === 'done' && bytesToHex(a.ur.cbor)).toBe(V.seed_single.cbor);
    expect(a.state === 'done' && a.ur.type).toBe('seed');
  });

  it('BCR-2020-006: the crypto-psbt the desk writes is the vector, and both psbt and crypto-psbt read back', () => {
    const psbt = hexToBytes(V.psbt.psbt);
    const [frame] = psbtUrFrames(psbt, 'high');
    expect(frame).toBe(V.psbt.ur.replace('ur:psbt/', 'ur:crypto-psbt/').toUpperCase());
    for (const ur of [V.psbt.ur, frame!]) {
      const p = done([ur]);
      expect(p.kind === 'psbt' && bytesToHex(p.bytes)).toBe(V.psbt.psbt);
    }
  });

  it('Wolf: the fountain encoder writes the reference parts, and any 9 of them after a loss still decode', () => {
    const ur = new UR(cborBytes(wolfMessage(V.wolf.message_length)), 'bytes');
    const encoder = new UREncoder(ur, V.wolf.fragment_length, 0, 10);
    expect(Array.from({ length: 20 }, () => encoder.nextPart())).toEqual(V.wolf.parts);
    expect(UREncoder.encodeSinglePart(new UR(cborBytes(wolfMessage(V.wolf.single_part.message_length)), 'bytes'))).toBe(V.wolf.single_part.ur);
    // The stream goes on; without pure parts 1, 3 and 5, with repeats, the mixed parts make up what was lost.
    const stream = [...V.wolf.parts, ...Array.from({ length: 20 }, () => encoder.nextPart())];
    const lossy = stream.filter((_, i) => ![0, 2, 4].includes(i));
    const a = assembleUr([...lossy.slice(0, 4), ...lossy.slice(0, 4), ...lossy.slice(4)]);
    expect(a.state).toBe('done');
    expect(a.state === 'done' && Buffer.from(a.ur.cbor).equals(cborBytes(wolfMessage(256)))).toBe(true);
  });

  it('BCR-2020-007: ur:hdkey (2023 tags) and its crypto-hdkey form (deprecated tags) give the same key', () => {
    const v2 = V.hdkey[1]!;
    // The vector names no master fingerprint, which the desk needs: refused in words.
    expect(readQrFrames([v2.ur])).toMatchObject({ state: 'refused', message: expect.stringMatching(/does not say its master key's fingerprint/) });
    // The same key with a source fingerprint added to its origin (2023 tags kept).
    const a = assembleUr([v2.ur]);
    const cbor = bytesToHex(a.state === 'done' ? a.ur.cbor : new Uint8Array()).replace('d99d70a1018a182cf501f501f500f401f4', 'd99d70a2018a182cf501f501f500f401f4021ad34db33f');
    const p = done([UREncoder.encodeSinglePart(new UR(Buffer.from(hexToBytes(cbor)), 'hdkey'))]);
    expect(p.kind).toBe('keys');
    if (p.kind !== 'keys') return;
    expect(p.keys[0]).toMatchObject({ xpub: v2.tpub, derivationPath: "m/44'/1'/1'/0/1" });
    // The key as the Keystone registry writes crypto-hdkey (tags 303-305), with a source fingerprint.
    const k = new CryptoHDKey({
      isMaster: false,
      key: Buffer.from(hexToBytes('026fe2355745bb2db3630bbc80ef5d58951c963c841f54170ba6e5c12be7fc12a6')),
      chainCode: Buffer.from(hexToBytes('ced155c72456255881793514edc5bd9447e7f74abb88c6d6b6480fd016ee8c85')),
      useInfo: new CryptoCoinInfo(CryptoCoinInfoType.bitcoin, CryptoCoinInfoNetwork.testnet),
      origin: new CryptoKeypath([44, 1, 1].map((i) => new PathComponent({ index: i, hardened: true })).concat([0, 1].map((i) => new PathComponent({ index: i, hardened: false }))), Buffer.from('d34db33f', 'hex')),
      parentFingerprint: Buffer.from(v2.parent_fingerprint!, 'hex'),
    });
    const old = done([k.toUREncoder(1000).nextPart()]);
    expect(old.format).toBe('ur:crypto-hdkey');
    expect(old.kind === 'keys' && old.keys[0]).toEqual({ xpub: v2.tpub, fingerprint: 'd34db33f', derivationPath: "m/44'/1'/1'/0/1" });
  });

  it('BCR-2020-007: a private key (vector 1, a master xprv) is refused, never read', () => {
    const r = readQrFrames([V.hdkey[0]!.ur]);
    expect(r.state).toBe('refused');
    expect(r.state === 'refused' && r.message).toMatch(/no 33-byte public key|private key|fingerprint/);
  });

  it('BCR-2020-015 crypto-account and BCR-2023-019 account-descriptor: the same seven keys with their scripts', () => {
    const expected = V.crypto_account.descriptors.map((d) => keysOfText(d)[0]);
    for (const ur of [V.crypto_account.ur, V.account_descriptor.ur]) {
      const p = done([ur]);
      expect(p.kind).toBe('keys');
      if (p.kind !== 'keys') continue;
      expect(p.keys.map(({ xpub, fingerprint, derivationPath }) => ({ xpub, fingerprint, derivationPath }))).toEqual(expected);
      expect(p.keys.map((k) => k.script)).toEqual(['pkh', 'sh(wpkh)', 'wpkh', 'sh', 'sh(wsh)', 'wsh', 'tr']);
      // A desk wallet's script picks the one BIP48 key.
      expect(keyForScript(p, 'wsh')).toMatchObject({ derivationPath: "m/48'/0'/0'/2'" });
    }
  });

  it('BCR-2020-010 crypto-output: a multisig output reads as a registration with its keys written out', () => {
    const multi = V.crypto_output.find((o) => o.descriptor.startsWith('sh(multi('))!;
    const p = done([multi.ur]);
    expect(p).toEqual({ kind: 'registration', text: multi.descriptor, format: 'ur:crypto-output' });
    const single = V.crypto_output.find((o) => o.descriptor.startsWith('pkh(['))!;
    const k = done([single.ur]);
    expect(k.kind === 'keys' && k.keys[0]).toMatchObject({ fingerprint: 'd34db33f', derivationPath: "m/44'/0'/0'", script: 'pkh' });
  });

  it('BCR-2023-010 output-descriptor: the 2-of-3 with its @n placeholders reads as the descriptor', () => {
    const cbor = hexToBytes(V.output_descriptor.tagged_cbor).slice(3); // untagged: the UR names the type
    const ur = UREncoder.encodeSinglePart(new UR(Buffer.from(cbor), 'output-descriptor'));
    const p = done([ur]);
    expect(p.kind).toBe('registration');
    expect(p.kind === 'registration' && p.text).toBe(V.output_descriptor.descriptor.replace(/'/g, "'"));
  });
});

describe('BBQr: coinkite/BBQr test_data', () => {
  it('joins the real Coldcard scan (type U, zlib)', () => {
    const lines = bbqrData['real-scan.txt'].split('\n').filter((l) => l.trim());
    const p = done(lines);
    expect(p.format).toBe('BBQr U');
    expect(p.kind === 'text' && p.text).toContain('Zlib compressed');
    expect(p.kind === 'text' && p.text).toContain('PSBT');
  });

  it.each(['1in2out.psbt', '1in10out.psbt', '1in20out.psbt', '1in100out.psbt'])('%s splits and joins at both densities, shuffled and repeated', (name) => {
    const raw = testData(name);
    for (const density of ['high', 'low'] as QrDensity[]) {
      const frames = bbqrFrames(raw, 'P', density);
      const limit = density === 'high' ? 1990 : 1046;
      expect(frames.every((f) => f.length <= limit)).toBe(true);
      const p = done([...frames].reverse().concat(frames));
      expect(p.kind === 'psbt' && Buffer.from(p.bytes).equals(raw)).toBe(true);
    }
  });

  it.each(['devils-txn.txn', 'finalized-by-ckcc.txn', 'last.txn', 'nfc-result.txn'])('%s (a transaction) round-trips as type T', (name) => {
    const file = testData(name);
    const text = new TextDecoder('latin1').decode(file).trim();
    const raw = /^[0-9a-f]+$/i.test(text) ? hexToBytes(text) : file;
    const p = done(bbqrFrames(raw, 'T', 'low'));
    expect(p.kind === 'transaction' && bytesToHex(p.bytes)).toBe(bytesToHex(raw));
  });
});

// ---- real PSBTs of the desk's kinds --------------------------------------------------------------

const bip32 = BIP32Factory(ecc);
const params = chainParams('bitcoin', 'mainnet');
const HARD = 0x80000000;
const roots = ['a', 'b', 'c', 'd', 'e'].map((s) => bip32.fromSeed(sha256(new TextEncoder().encode(`qr codecs ${s}`))));
const ACCOUNT = [48 + HARD, HARD, HARD, 2 + HARD];
const keyAt = (r: BIP32Interface, i: number) => r.derivePath("m/48'/0'/0'/2'").derive(0).derive(i);
const derivations = (rs: BIP32Interface[], i: number): KeyDerivation[] => rs.map((r) => ({ publicKey: keyAt(r, i).publicKey, origin: { fingerprint: bytesToHex(r.fingerprint), path: [...ACCOUNT, 0, i] } }));

/** An M-of-N PSBT spending `inputs` outputs of one funding transaction: P2WSH, P2SH-P2WSH or a miniscript vault's recovery path. */
function realPsbt(kind: 'p2wsh' | 'p2sh-p2wsh' | 'vault', inputs: number): Uint8Array {
  const cosigners = kind === 'vault' ? roots : roots.slice(0, 3);
  const script = (i: number) => {
    if (kind !== 'vault') return multisigScripts(params, 2, cosigners.map((r) => keyAt(r, i).publicKey), { scriptType: kind });
    const compiled = compileVaultMiniscript('or_d(multi(2,A,B,C),and_v(v:multi(1,D,E),older(4320)))');
    const keys = Object.fromEntries(['A', 'B', 'C', 'D', 'E'].map((n, k) => [n, keyAt(cosigners[k]!, i).publicKey]));
    const witnessScript = miniscriptWitnessScript(compiled, keys);
    return { witnessScript, scriptPubKey: payments.p2wsh({ redeem: { output: witnessScript } }).output! };
  };
  const funding = new Transaction();
  funding.version = 2;
  funding.addInput(new Uint8Array(32).fill(7), 0);
  for (let i = 0; i < inputs; i++) funding.addOutput(script(i).scriptPubKey, 100_000n + BigInt(i));
  const payment = new Transaction();
  payment.version = 2;
  for (let i = 0; i < inputs; i++) payment.addInput(funding.getHash(), i, kind === 'vault' ? 4320 : 0xfffffffd);
  payment.addOutput(payments.p2wpkh({ pubkey: roots[4]!.publicKey }).output!, 50_000n * BigInt(inputs));
  payment.addOutput(script(99).scriptPubKey, 40_000n);
  const s = (i: number) => script(i) as { redeemScript?: Uint8Array; witnessScript?: Uint8Array };
  const ins = Array.from({ length: inputs }, (_, i) => ({
    prevTx: funding.toBuffer(),
    ...(s(i).redeemScript ? { redeemScript: s(i).redeemScript! } : {}),
    witnessScript: s(i).witnessScript!,
    derivations: derivations(cosigners, i),
  }));
  return encodePsbt(buildMultisigPsbt(decodeTx(payment.toBuffer()), ins, [{}, { witnessScript: s(99).witnessScript!, derivations: derivations(cosigners, 99) }]));
}

describe('real PSBTs through both codes at both densities', () => {
  const cases = [
    ['2-of-3 P2WSH, 3 inputs', realPsbt('p2wsh', 3)],
    ['2-of-3 P2SH-P2WSH, 2 inputs', realPsbt('p2sh-p2wsh', 2)],
    ['a vault recovery spend (miniscript, 5 keys)', realPsbt('vault', 2)],
  ] as const;
  for (const [what, psbt] of cases) {
    for (const density of ['high', 'low'] as QrDensity[]) {
      for (const format of ['ur', 'bbqr'] as const) {
        it(`${what}: ${format} at ${density} density, every frame a standard QR, rebuilt byte for byte`, () => {
          const frames = psbtFrames(psbt, format, density);
          if (format === 'ur') {
            const fragment = UR_FRAGMENT_BYTES[density];
            expect(frames.length).toBeGreaterThanOrEqual(Math.ceil(psbt.length / fragment));
            expect(frames.every((f) => /^UR:CRYPTO-PSBT\/(\d+-\d+\/)?[A-Z]+$/.test(f))).toBe(true);
          } else {
            expect(frames.every((f) => /^B\$ZP|^B\$2P/.test(f))).toBe(true);
          }
          const p = done(frames);
          expect(p.kind === 'psbt' && bytesToHex(p.bytes)).toBe(bytesToHex(psbt));
        });
      }
    }
  }

  it('UR: frames lost (every third) and repeated still finish, from the fountain parts', () => {
    const psbt = realPsbt('p2wsh', 3);
    const frames = psbtFrames(psbt, 'ur', 'low');
    const lossy = frames.filter((_, i) => i % 3 !== 1);
    const p = done([...lossy.slice(0, 5), ...lossy.slice(0, 5), ...lossy]);
    expect(p.kind === 'psbt' && bytesToHex(p.bytes)).toBe(bytesToHex(psbt));
  });

  it('a segwit PSBT shown without its previous transactions is much shorter and keeps its witness UTXOs', () => {
    const psbt = realPsbt('p2wsh', 3);
    const short = withoutNonWitnessUtxos(decodePsbt(psbt))!;
    expect(encodePsbt(short).length).toBeLessThan(psbt.length * 0.8);
    expect(decodePsbt(encodePsbt(short)).inputs.every((m) => m.some((e) => e.type === 0x01) && !m.some((e) => e.type === 0x00))).toBe(true);
  });

  it('the format follows the co-signers: BBQr where every one is a Coldcard, UR otherwise', () => {
    expect(preferredPsbtFormat(['coldcard', 'coldcard'])).toBe('bbqr');
    expect(preferredPsbtFormat(['coldcard', 'keystone'])).toBe('ur');
    expect(preferredPsbtFormat([])).toBe('ur');
  });
});

describe('registrations', () => {
  const coldcardText = coldcardP2wsh;
  const descriptor = descriptorWsh.trim();

  it('Keystone, Passport and Jade get ur:bytes, Coldcard BBQr U, SeedSigner and Krux the descriptor: each reads back as the same registration', () => {
    for (const device of ['keystone', 'passport', 'jade', 'coldcard', 'seedsigner', 'krux'] as const) {
      for (const density of ['high', 'low'] as QrDensity[]) {
        const r = registrationFrames({ kind: 'multisig', coldcardText, descriptor }, device, density);
        expect(r.ok).toBe(true);
        if (!r.ok) continue;
        const p = done(r.frames);
        expect(p.kind).toBe('registration');
        expect(p.kind === 'registration' && p.text).toBe(['seedsigner', 'krux'].includes(device) ? descriptor : coldcardText.trim());
      }
    }
  });

  it('SeedSigner and Krux may instead get ur:crypto-output: it reads back, through the desk and the registry alike, as the same wallet on 0/*', () => {
    for (const script of ['p2wsh', 'p2sh-p2wsh', 'p2sh'] as const) {
      for (const sortKeys of [true, false]) {
        const keys = ['alice', 'bob', 'carol'].map((n) => {
          const account = bip32.fromSeed(sha256(new TextEncoder().encode(`crypto-output ${n}`)), networks.testnet).derivePath("m/48'/1'/0'/2'");
          const fingerprint = bytesToHex(bip32.fromSeed(sha256(new TextEncoder().encode(`crypto-output ${n}`)), networks.testnet).fingerprint);
          return { xpub: account.neutered().toBase58(), fingerprint, derivationPath: "m/48'/1'/0'/2'" };
        });
        const text = formatMultisigDescriptor(2, keys, '/<0;1>/*', true, { scriptType: script, sortKeys });
        for (const density of ['high', 'low'] as QrDensity[]) {
          const r = registrationFrames({ kind: 'multisig', coldcardText: '', descriptor: text }, 'seedsigner', density, 'crypto-output');
          expect(r.ok && r.format).toBe('ur:crypto-output');
          const p = done(r.ok ? r.frames : []);
          expect(p.kind === 'registration' && p.format).toBe('ur:crypto-output');
          // The desk's reader gives the descriptor back: the same keys, origins, threshold and script, on the receive branch.
          const back = parseMultisigDescriptor(p.kind === 'registration' ? p.text : '');
          const sent = parseMultisigDescriptor(text);
          expect({ ...back, branches: '/<0;1>/*', checksummed: false }).toEqual({ ...sent, checksummed: false });
          expect(back.branches).toBe('/0/*');
        }
        // The registry's decoder, as an oracle: the same expressions, threshold and key material.
        const o = CryptoOutput.fromCBOR(Buffer.from(multisigCryptoOutput(text)));
        expect(o.getScriptExpressions().map((e) => e.getExpression())).toEqual([...{ p2wsh: ['wsh'], 'p2sh-p2wsh': ['sh', 'wsh'], p2sh: ['sh'] }[script], sortKeys ? 'sortedmulti' : 'multi']);
        const multi = o.getMultiKey();
        expect(multi.getThreshold()).toBe(2);
        expect(multi.getKeys().map((k) => [bytesToHex((k as CryptoHDKey).getOrigin().getSourceFingerprint()), (k as CryptoHDKey).getOrigin().getPath(), bytesToHex((k as CryptoHDKey).getKey())])).toEqual(
          keys.map((k) => [k.fingerprint, "48'/1'/0'/2'", bytesToHex(parseXpubLike(k.xpub).publicKey)]),
        );
      }
    }
    // Text stays the default; a miniscript vault is never written as crypto-output (it has no such form).
    expect(registrationFrames({ kind: 'multisig', coldcardText, descriptor }, 'krux', 'high')).toMatchObject({ ok: true, format: 'descriptor as text' });
    expect(registrationFrames({ kind: 'miniscript', descriptor: 'wsh(or_d(...))' }, 'krux', 'high', 'crypto-output')).toMatchObject({ ok: true, format: 'descriptor as text' });
  });

  it('a vault is refused in words by devices that register multisig only', () => {
    const r = registrationFrames({ kind: 'miniscript', descriptor: 'wsh(or_d(...))' }, 'keystone', 'high');
    expect(r).toMatchObject({ ok: false, refusal: expect.stringMatching(/Keystone registers M-of-N multisig wallets only/) });
    expect(registrationFrames({ kind: 'miniscript', descriptor: 'wsh(or_d(...))' }, 'coldcard', 'high').ok).toBe(true);
  });
});

describe('keys as text', () => {
  it('"[fingerprint/path]xpub" (SeedSigner, Sparrow), with h or \' steps', () => {
    const xpub = 'xpub6EC9f7mLFJQoRQ6qiTvWQeeYsgtki6fBzSUgWgUtAujEMtAfJSAn3AVS4KrLHRV2hNX77YwNkg4azUzuSwhNGtcq4r2J8bLGMDkrQYHvoed';
    const p = done([`[37B5EED4/48h/0h/0h/2h]${xpub}`]);
    // A plain key says no device: none is preset.
    expect(p).toEqual({ kind: 'keys', keys: [{ xpub, fingerprint: '37b5eed4', derivationPath: "m/48'/0'/0'/2'" }], format: 'text' });
  });

  it("Coldcard's multisig key export (JSON, as BBQr J): the key for the wallet's script is taken", () => {
    const xpub = 'xpub6EC9f7mLFJQoRQ6qiTvWQeeYsgtki6fBzSUgWgUtAujEMtAfJSAn3AVS4KrLHRV2hNX77YwNkg4azUzuSwhNGtcq4r2J8bLGMDkrQYHvoed';
    const other = 'xpub6EC9f7mLFJQoPaqDJ72Zbv67JWzmpXvCYQSecER9GzkYy5eWLsVLbHnxoAZ8NnnsrjhMLduJo9dG6fNQkmMFL3Qedj2kf5bEy5tptHPApNf';
    const json = JSON.stringify({ xfp: '37B5EED4', account: '0', p2wsh_deriv: "m/48'/0'/0'/2'", p2wsh: xpub, p2sh_p2wsh_deriv: "m/48'/0'/0'/1'", p2sh_p2wsh: other });
    const p = done(bbqrFrames(new TextEncoder().encode(json), 'J', 'high'));
    // Its form names the device: the co-signer's is preset to Coldcard (the treasurer may change it).
    expect(keyForScript(p, 'wsh')).toMatchObject({ xpub, derivationPath: "m/48'/0'/0'/2'", device: 'coldcard' });
    expect(keyForScript(p, 'sh(wsh)')).toMatchObject({ xpub: other });
    expect(keyForScript(p, null)).toMatch(/choose the wallet's script type/);
  });
});

describe('frames that are not ours are refused in words, and nothing is taken from them', () => {
  const ours = realPsbt('p2wsh', 3);
  const theirs = realPsbt('p2sh-p2wsh', 2);

  it("another PSBT's UR frames in the middle of ours are skipped and said; ours still finishes whole", () => {
    const mine = psbtFrames(ours, 'ur', 'low');
    const other = psbtFrames(theirs, 'ur', 'low');
    const r = readQrFrames([mine[0]!, other[0]!, other[1]!, ...mine.slice(1)]);
    expect(r.state).toBe('done');
    expect(r.state === 'done' && r.payload.kind === 'psbt' && bytesToHex(r.payload.bytes)).toBe(bytesToHex(ours));
    expect(r.skipped).toEqual([expect.stringMatching(/frame 2 belongs to another sequence/), expect.stringMatching(/frame 3 belongs to another sequence/)]);
  });

  it("another file's BBQr parts are skipped by their header", () => {
    const mine = psbtFrames(ours, 'bbqr', 'low');
    const other = bbqrFrames(new TextEncoder().encode('x'.repeat(5000)), 'U', 'low');
    const a = assembleBbqr([mine[0]!, other[0]!]);
    expect(a.skipped).toEqual([expect.stringMatching(/frame 2 belongs to another file/)]);
  });

  it("another wallet's registration, read where a key is expected, is named as what it is", () => {
    const r = registrationFrames({ kind: 'multisig', coldcardText: coldcard2of3, descriptor: '' }, 'keystone', 'high');
    const p = done(r.ok ? r.frames : []);
    expect(keyForScript(p, 'wsh')).toMatch(/^the QR holds a wallet's registration .* \(ur:bytes\), not a co-signer's key$/);
  });

  it('garbage: a UR of a type the desk does not read, a seed, a broken checksum, plain words', () => {
    expect(readQrFrames(['ur:crypto-seed/oyadgdstaslplabghydrpfmkbggufgludprfgmamdpwmox'])).toMatchObject({ state: 'refused', message: expect.stringMatching(/secret key material/) });
    expect(readQrFrames([V.psbt.ur.slice(0, -2) + 'zz'])).toMatchObject({ state: 'reading', skipped: [expect.stringMatching(/bytewords do not check/)] });
    expect(readQrFrames(['hello world'])).toMatchObject({ state: 'done', payload: { kind: 'text' } });
    expect(readQrFrames(['B$ZP0100garbage'])).toMatchObject({ state: 'refused', message: expect.stringMatching(/do not assemble/) });
  });

  it('a truncated sequence never finishes: it says how many frames it has of how many', () => {
    const frames = psbtFrames(ours, 'ur', 'low');
    const pure = Math.ceil(ours.length / UR_FRAGMENT_BYTES.low);
    const r = readQrFrames(frames.slice(0, pure - 2));
    expect(r).toMatchObject({ state: 'reading', format: 'ur:crypto-psbt', received: pure - 2, expected: expect.any(Number) });
    const b = psbtFrames(ours, 'bbqr', 'low');
    if (b.length > 1) expect(readQrFrames(b.slice(1))).toMatchObject({ state: 'reading', received: b.length - 1, expected: b.length });
  });

  it('ur:bytes of text that is no PSBT is text, and a PSBT sent as ur:bytes is a PSBT', () => {
    expect(done(textUrFrames('just a note', 'high'))).toMatchObject({ kind: 'text', text: 'just a note' });
  });
});
