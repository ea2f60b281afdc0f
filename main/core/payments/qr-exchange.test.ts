// What the camera path hands on: a PSBT as the base64 text of a PSBT file (for the one import of
// PSBT files), a key as co-signer fields, anything else refused naming what it is.
import { describe, expect, it } from 'vitest';
import { hexToBytes } from '../../../shared/coins/index.ts';
import { bbqrFrames } from '../../../shared/qr/bbqr.ts';
import { psbtUrFrames, textUrFrames } from '../../../shared/qr/ur.ts';
import { readScan } from './qr-exchange.ts';

const PSBT = '70736274ff01009a020000000258e87a21b56daf0c23be8e7070456c336f7cbaa5c8757924f545887bb2abdd750000000000ffffffff838d0427d0ec650a68aa46bb0b098aea4422c071b2ca78352a077959d07cea1d0100000000ffffffff0270aaf00800000000160014d85c2b71d0060b09c9886aeb815e50991dda124d00e1f5050000000016001400aea9a2e5f0f876a588df5546e8742d1d87008f000000000000000000';
const XPUB = 'xpub6EC9f7mLFJQoRQ6qiTvWQeeYsgtki6fBzSUgWgUtAujEMtAfJSAn3AVS4KrLHRV2hNX77YwNkg4azUzuSwhNGtcq4r2J8bLGMDkrQYHvoed';

describe('readScan', () => {
  it('a PSBT read whole is the base64 a PSBT file holds, named by its code', () => {
    const r = readScan(psbtUrFrames(hexToBytes(PSBT), 'low'), 'psbt', null);
    expect(r).toEqual({ state: 'psbt', name: 'camera (ur:crypto-psbt)', text: Buffer.from(PSBT, 'hex').toString('base64'), note: null });
  });

  it('a PSBT where a key is expected, a key or a transaction where a PSBT is expected: refused naming what they are', () => {
    expect(readScan(psbtUrFrames(hexToBytes(PSBT), 'high'), 'key', 'wsh')).toEqual({ state: 'refused', message: "the QR holds a PSBT (ur:crypto-psbt), not a co-signer's key" });
    expect(readScan([`[37b5eed4/48h/0h/0h/2h]${XPUB}`], 'psbt', null)).toEqual({ state: 'refused', message: "the QR holds a co-signer's key (text), not a signed PSBT" });
    expect(readScan(bbqrFrames(hexToBytes('0200000000'), 'T', 'high'), 'psbt', null)).toMatchObject({ state: 'refused', message: expect.stringMatching(/a finalized transaction \(BBQr T\): ask the signer to show its signed PSBT/) });
    expect(readScan(textUrFrames('hello', 'high'), 'psbt', null)).toEqual({ state: 'refused', message: 'the QR holds text the desk does not recognise (ur:bytes), not a signed PSBT' });
  });

  it('a key with its origin becomes the co-signer fields', () => {
    expect(readScan([`[37B5EED4/48'/0'/0'/2']${XPUB}`], 'key', 'wsh')).toEqual({ state: 'key', key: { xpub: XPUB, fingerprint: '37b5eed4', derivationPath: "m/48'/0'/0'/2'" }, format: 'text' });
  });

  it('part of a sequence is progress, with the frames skipped said', () => {
    const frames = psbtUrFrames(hexToBytes(PSBT), 'low');
    const r = readScan([frames[0]!, 'garbage'], 'psbt', null);
    expect(r).toMatchObject({ state: 'reading', format: 'ur:crypto-psbt', received: 1, note: expect.stringMatching(/1 frame skipped: frame 2: it is not a UR frame/) });
  });
});
