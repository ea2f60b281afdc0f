// Files dropped in the wrong place are named by their content, with where they go.
import { describe, expect, it } from 'vitest';
import { misplacedFile, recogniseFile, type FileKind } from './file-kind.ts';
import { parseSetupFile } from './setup-file.ts';
import { readSigningRequest } from './signing-request.ts';
import sparrow from './fixtures/sparrow-p2wsh-2of3.txt?raw';
import descriptorPair from './fixtures/descriptor-sh-wsh-pair-2of3.txt?raw';
import caravan from './fixtures/caravan-p2wsh-2of3.json?raw';
import nunchuk from './fixtures/nunchuk-p2wsh-2of3.txt?raw';
import coldcard from './fixtures/coldcard-p2sh-p2wsh-2of3.txt?raw';
import specter from './fixtures/specter-p2wsh-2of3.json?raw';
import bsms from './fixtures/bsms-p2wsh-2of3.bsms?raw';
import bsmsKey from './fixtures/bsms-key-signer1.bsms?raw';
import bsmsEncrypted from './fixtures/bad/bsms-encrypted.dat?raw';
import descriptor from './fixtures/descriptor-2of3.txt?raw';

const signature = JSON.stringify({ format: 'countersign-signature', version: 1 });
const request = JSON.stringify({ format: 'countersign-signing-request', version: 1 });
const labels = '{"type":"addr","ref":"bc1q","label":"rent"}\n{"type":"tx","ref":"00","label":"March"}\n';
// What a browser's TextDecoder makes of a PNG: its signature bytes, then replacement characters.
const binary = '\ufffdPNG\r\n\u001a\n\u0000\u0000\u0000\rIHDR';

describe('recogniseFile', () => {
  it.each<[string, string, FileKind, RegExp]>([
    ['Sparrow', sparrow, 'wallet-setup', /Coldcard|descriptor/],
    ['descriptor pair', descriptorPair, 'wallet-setup', /output descriptor/],
    ['descriptor', descriptor, 'wallet-setup', /output descriptor/],
    ['Caravan', caravan, 'wallet-setup', /Caravan wallet file/],
    ['Nunchuk', nunchuk, 'wallet-setup', /Coldcard\/Nunchuk\/Electrum/],
    ['Coldcard', coldcard, 'wallet-setup', /Coldcard\/Nunchuk\/Electrum/],
    ['Specter', specter, 'wallet-setup', /Specter wallet file/],
    ['BSMS descriptor record', bsms, 'wallet-setup', /^a BSMS wallet set-up file \(descriptor record\)$/],
    ['BSMS key record', bsmsKey, 'bsms-key', /BSMS key record/],
    ['encrypted BSMS', bsmsEncrypted, 'wallet-setup', /encrypted BSMS record/],
    ['signature file', signature, 'signature', /signature file/],
    ['signing request', `\uFEFF${request}\n`, 'signing-request', /signing request/],
    ['PSBT', 'cHNidP8BAHECAAAAAQ', 'psbt', /PSBT/],
    ['BIP329 labels', labels, 'labels', /BIP329/],
    ['binary', binary, 'binary', /binary/],
    ['empty', ' \n', 'empty', /empty/],
    ['other JSON', '{"a":1}', 'json', /JSON/],
    ['cut-short JSON', '{"format": ', 'broken-json', /not valid JSON/],
    ['prose', 'Dear treasurer, please pay', 'text', /text file/],
  ])('%s', (_, text, kind, what) => {
    const file = recogniseFile(text);
    expect(file.kind).toBe(kind);
    expect(file.what).toMatch(what);
  });
});

describe('misplacedFile', () => {
  it('names the file and where it goes, and passes the kinds accepted', () => {
    expect(misplacedFile(recogniseFile(bsms), 'signature file', ['signature', 'json'])).toBe(
      'not a signature file: it is a BSMS wallet set-up file (descriptor record); import it under Wallets → New wallet → "Import set-up file"',
    );
    expect(misplacedFile(recogniseFile(request), 'signature file', ['signature', 'json'])).toMatch(/^not a signature file: it is a Countersign signing request; send it to a co-signer/);
    expect(misplacedFile(recogniseFile(signature), 'signature file', ['signature', 'json'])).toBeNull();
  });

  it("a co-signer's request import names a set-up file or a signature file, and never shows the JSON parser's message", () => {
    expect(() => readSigningRequest(bsms)).toThrow(/^not a signing-request file: it is a BSMS wallet set-up file \(descriptor record\); import it under Wallets → New wallet/);
    expect(() => readSigningRequest(signature)).toThrow(/^not a signing-request file: it is a Countersign signature file; import it on its payment's page/);
    expect(() => readSigningRequest('{"format": "countersign-signing-request", ')).toThrow(/^not a signing-request file: it is a file that is not valid JSON \(cut short, or edited by hand\); ask for the file again$/);
  });

  it('a set-up import refuses a signature file or a PSBT in words, and still reads set-up files', () => {
    expect(() => parseSetupFile(signature, 'any-multisig')).toThrow(/^not a wallet set-up file: it is a Countersign signature file; import it on its payment's page/);
    expect(() => parseSetupFile('cHNidP8BAHECAAAAAQ', 'any-multisig')).toThrow(/^not a wallet set-up file: it is a PSBT/);
    expect(() => parseSetupFile(binary, 'any-multisig')).toThrow(/^not a wallet set-up file: it is a binary file/);
    expect(parseSetupFile(bsms, 'any-multisig').kind).toBe('wallet');
  });
});
