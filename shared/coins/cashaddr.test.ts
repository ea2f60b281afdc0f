import { describe, expect, it } from 'vitest';
import { base58checkDecode } from './base58.ts';
import { hexToBytes, bytesToHex } from './bytes.ts';
import { decodeCashAddr, encodeCashAddr, looksLikeCashAddr } from './cashaddr.ts';

describe('CashAddr', () => {
  // Known answer: the legacy <-> CashAddr conversion example of bitcoincashjs/bchaddrjs.
  it('the published conversion example: the same hash as legacy 1B9UNt...', () => {
    const legacyHash = base58checkDecode('1B9UNtBfkkpgt8kVbwLN9ktE62QKnMbDzR', 1).payload;
    expect(encodeCashAddr('bitcoincash', 'p2pkh', legacyHash)).toBe('bitcoincash:qph5kuz78czq00e3t85ugpgd7xmer5kr7c5f6jdpwk');
    const decoded = decodeCashAddr('bitcoincash:qph5kuz78czq00e3t85ugpgd7xmer5kr7c5f6jdpwk', 'bitcoincash');
    expect(decoded.ok && bytesToHex(decoded.hash)).toBe(bytesToHex(legacyHash));
  });

  it('the specification\'s examples (20-byte hash F5BF48B3...)', () => {
    const hash = hexToBytes('f5bf48b397dae70be82b3cca4793f8eb2b6cdac9');
    expect(encodeCashAddr('bitcoincash', 'p2pkh', hash)).toBe('bitcoincash:qr6m7j9njldwwzlg9v7v53unlr4jkmx6eylep8ekg2');
    expect(encodeCashAddr('bchtest', 'p2sh', hash)).toBe('bchtest:pr6m7j9njldwwzlg9v7v53unlr4jkmx6eyvwc0uz5t');
  });

  it('round-trips P2PKH and P2SH, with or without the prefix, in either case', () => {
    const hash = hexToBytes('00112233445566778899aabbccddeeff00112233');
    for (const type of ['p2pkh', 'p2sh'] as const) {
      const text = encodeCashAddr('bchreg', type, hash);
      for (const form of [text, text.split(':')[1]!, text.toUpperCase()]) {
        const d = decodeCashAddr(form, 'bchreg');
        expect(d).toMatchObject({ ok: true, prefix: 'bchreg', type });
        expect(d.ok && bytesToHex(d.hash)).toBe(bytesToHex(hash));
      }
    }
  });

  it('refuses a mistyped character, a wrong prefix and mixed case', () => {
    const good = 'bitcoincash:qph5kuz78czq00e3t85ugpgd7xmer5kr7c5f6jdpwk';
    expect(decodeCashAddr(good.replace('qph5', 'qph6'), 'bitcoincash')).toMatchObject({ ok: false, reason: expect.stringMatching(/checksum/) });
    expect(decodeCashAddr(good.replace('bitcoincash', 'bchtest'), 'bchtest')).toMatchObject({ ok: false });
    expect(decodeCashAddr('bitcoincash:qPh5kuz78czq00e3t85ugpgd7xmer5kr7c5f6jdpwk', 'bitcoincash')).toMatchObject({ ok: false, reason: expect.stringMatching(/mixed/) });
    expect(decodeCashAddr('bitcoincash:qph5kuz78czq00e3t85ugpgd7xmer5kr7c5f6jdpwb', 'bitcoincash')).toMatchObject({ ok: false, reason: expect.stringMatching(/alphabet/) });
    expect(looksLikeCashAddr(good)).toBe(true);
    expect(looksLikeCashAddr('1B9UNtBfkkpgt8kVbwLN9ktE62QKnMbDzR')).toBe(false);
  });
});
