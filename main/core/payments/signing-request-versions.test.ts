// Both versions of the signing-request file, offline (docs/file-formats.md). The version 1 fixture
// was written by the desk's writer before version 2 (commit 46dc801) on litecoind -regtest: a 2-of-3
// P2SH wallet of alice, bob and carol spending three outputs, two of them of one transaction that
// the file therefore carries twice. It is still read and signed; the same request in version 2
// carries each previous transaction once, and a table that lies is refused in words.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as ecc from 'tiny-secp256k1';
import { describe, expect, it } from 'vitest';
import { bytesToHex, chainParams, decodeTx, hexToBytes, parseSignatureDer, txidHex } from '../../../shared/coins/index.ts';
import { deriveAddress } from '../../../shared/coins/multisig-address.ts';
import type { SignatureFileV1, SigningRequestV1, SigningRequestV2 } from '../../../shared/files/signing-files.ts';
import { testCosigner } from '../../../dev/desk-testing/keys.ts';
import { signRequest } from '../software-signer.ts';
import { openSigningRequest } from './signing-request.ts';

const params = chainParams('litecoin', 'regtest');
const [alice, bob, carol] = [testCosigner('alice'), testCosigner('bob'), testCosigner('carol')];
const V1_TEXT = readFileSync(join(import.meta.dirname, '../../../shared/files/fixtures/signing-request-v1.json'), 'utf8');
const v1 = (): SigningRequestV1 => JSON.parse(V1_TEXT) as SigningRequestV1;

/** The fixture's request as version 2: its previous transactions moved to the table, each once. */
function asVersion2(r: SigningRequestV1): SigningRequestV2 {
  const spends = decodeTx(hexToBytes(r.unsigned_tx), params).inputs.map((i) => bytesToHex(i.prevTxid));
  const inputs = r.inputs.map(({ previous_tx: _carried, ...inp }) => ({ ...inp, previous_txid: spends[inp.index]! }));
  const previous_transactions = Object.fromEntries(r.inputs.map((inp) => [spends[inp.index]!, inp.previous_tx!]));
  return { ...r, version: 2, inputs, previous_transactions };
}

/** Every signature of a signature file verifies for its key against the input's hash in the request. */
function verifies(request: { inputs: { hash: string }[] }, file: string): boolean {
  const sigs = (JSON.parse(file) as SignatureFileV1).signatures;
  return sigs.length === request.inputs.length && sigs.every((s) => ecc.verify(hexToBytes(request.inputs[s.input_index]!.hash), hexToBytes(s.public_key), parseSignatureDer(hexToBytes(s.signature))));
}

describe('a version 1 signing request (written before version 2)', () => {
  it('is the old shape: each input carries its previous transaction, one of them twice', () => {
    const r = v1();
    expect(r.version).toBe(1);
    expect(r.inputs).toHaveLength(3);
    expect(new Set(r.inputs.map((i) => i.previous_tx)).size).toBe(2);
    expect(r.wallet.cosigners.map((c) => c.xpub)).toEqual([alice, bob, carol].map((c) => c.xpub));
  });

  it('is still read and signed by co-signers, their signatures verifying', () => {
    const opened = openSigningRequest(V1_TEXT);
    expect(opened.verified.inputs).toHaveLength(3);
    expect(opened.outputs.find((o) => o.purpose === 'change')!.address).toBe(deriveAddress(params, 2, [alice, bob, carol].map((c) => c.xpub), true, 0).address);
    for (const c of [alice, bob]) {
      const signed = signRequest(V1_TEXT, { xprv: c.accountXprv });
      expect(signed.signer).toBe(c.name);
      expect(verifies(v1(), signed.file)).toBe(true);
    }
  });

  it('is still refused when an input amount is raised, or an input carries no previous transaction', () => {
    const inflated = v1();
    inflated.inputs[0]!.amount = (BigInt(inflated.inputs[0]!.amount) + 5_000_000n).toString();
    inflated.miners_fee = (BigInt(inflated.miners_fee) + 5_000_000n).toString();
    expect(() => openSigningRequest(JSON.stringify(inflated))).toThrow(/^the signing request [0-9a-f-]+ was altered or is inconsistent: input 0: output \d of [0-9a-f]{64} holds 0\.3 LTC \(regtest\), not the 0\.35 LTC \(regtest\) expected$/);
    const bare = v1();
    delete bare.inputs[1]!.previous_tx;
    expect(() => openSigningRequest(JSON.stringify(bare))).toThrow(/input 1 carries no previous transaction: on litecoin signatures do not commit to input amounts/);
  });
});

describe('a version 2 signing request', () => {
  const v2 = () => asVersion2(v1());

  it('carries each previous transaction once, and is read and signed as version 1 was', () => {
    const r = v2();
    expect(Object.keys(r.previous_transactions)).toHaveLength(2);
    const text = JSON.stringify(r, null, 2);
    expect(text.length).toBeLessThan(V1_TEXT.length - r.inputs[0]!.previous_txid.length);
    const opened = openSigningRequest(text);
    expect(opened.verified.inputs.map((i) => bytesToHex(i.hash))).toEqual(openSigningRequest(V1_TEXT).verified.inputs.map((i) => bytesToHex(i.hash)));
    expect(verifies(r, signRequest(text, { xprv: carol.accountXprv }).file)).toBe(true);
  });

  it('is refused, in words, when its table of previous transactions lies', () => {
    const refused = (edit: (r: SigningRequestV2) => void): string => {
      const r = v2();
      edit(r);
      try {
        signRequest(JSON.stringify(r), { xprv: alice.accountXprv });
      } catch (err) {
        return (err as Error).message;
      }
      throw new Error('signed');
    };
    const [first, second] = Object.keys(v2().previous_transactions) as [string, string];
    // Bytes that are not the transaction the table names: another one under its txid.
    expect(refused((r) => (r.previous_transactions[first] = r.previous_transactions[second]!))).toMatch(
      new RegExp(`was altered or is inconsistent: the previous transaction listed as ${first} is another transaction \\(its bytes hash to ${second}\\)$`),
    );
    // One byte changed (an output's amount raised) no longer hashes to its txid.
    expect(refused((r) => (r.previous_transactions[first] = r.previous_transactions[first]!.replace(/^(.{100})(.)/, (_m, a: string, b: string) => a + (b === '0' ? '1' : '0'))))).toMatch(
      new RegExp(`the previous transaction listed as ${first} is another transaction \\(its bytes hash to [0-9a-f]{64}\\)$`),
    );
    // An input spending from a transaction the table does not carry.
    expect(refused((r) => delete r.previous_transactions[r.inputs[2]!.previous_txid])).toMatch(/input 2 spends from [0-9a-f]{64}, which is not among the request's previous transactions$/);
    // An input naming another transaction than the one it spends.
    expect(refused((r) => (r.inputs[0]!.previous_txid = r.inputs[2]!.previous_txid))).toMatch(/input 0 names previous transaction [0-9a-f]{64}, but the transaction's input 0 spends [0-9a-f]{64}$/);
    // An amount changed (the fee kept consistent): the previous transaction says otherwise.
    expect(
      refused((r) => {
        r.inputs[1]!.amount = (BigInt(r.inputs[1]!.amount) + 1_000_000n).toString();
        r.miners_fee = (BigInt(r.miners_fee) + 1_000_000n).toString();
      }),
    ).toMatch(/input 1: output \d of [0-9a-f]{64} holds 0\.4 LTC \(regtest\), not the 0\.41 LTC \(regtest\) expected$/);
    // A real transaction no input spends (padding, or another payment's): here the payment's own.
    const own = txidHex(decodeTx(hexToBytes(v1().unsigned_tx), params));
    expect(refused((r) => (r.previous_transactions[own] = r.unsigned_tx))).toMatch(new RegExp(`was altered or is inconsistent: it carries previous transaction ${own}, which no input spends$`));
  });

  it('is refused naming the versions read when it is of another version, or names none', () => {
    const three = { ...v2(), version: 3 };
    expect(() => openSigningRequest(JSON.stringify(three))).toThrow(/^malformed signing-request file: version: this desk reads signing requests of version 1 and 2, not 3: the file was written by a newer desk, or altered$/);
    const { version: _v, ...none } = v2();
    expect(() => openSigningRequest(JSON.stringify(none))).toThrow(/^malformed signing-request file: version: it names no version: this desk reads signing requests of version 1 and 2$/);
    // A version 2 file with a version 1 input (no table) is not version 2.
    expect(() => openSigningRequest(JSON.stringify({ ...v1(), version: 2 }))).toThrow(/^malformed signing-request file: inputs\[0\]\.previous_txid/);
  });
});
