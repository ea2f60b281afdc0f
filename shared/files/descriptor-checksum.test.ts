// BIP380's checksum vectors, and BIP129's descriptor record (another implementation's output), as data.
import { describe, expect, it } from 'vitest';
import { checkDescriptorChecksum, descriptorChecksum, withChecksum } from './descriptor-checksum.ts';

describe('descriptor checksum (BIP380)', () => {
  it('computes the published checksums', () => {
    expect(descriptorChecksum('raw(deadbeef)')).toBe('89f8spxm');
    const bip129 = "wsh(sortedmulti(1,[59865f44/48'/0'/0'/2']026d15412460ba0d881c21837bb999233896085a9ed4e5445bd637c10e579768ba,[b7044ca6/48'/0'/0'/2']030baf0497ab406ff50cb48b4013abac8a0338758d2fd54cd934927afa57cc2062))";
    expect(withChecksum(bip129)).toBe(`${bip129}#rzx9dffd`);
  });

  it('accepts a valid checksum and a descriptor without one', () => {
    expect(checkDescriptorChecksum('raw(deadbeef)#89f8spxm')).toEqual({ descriptor: 'raw(deadbeef)', checksum: '89f8spxm' });
    expect(checkDescriptorChecksum('raw(deadbeef)')).toEqual({ descriptor: 'raw(deadbeef)', checksum: null });
  });

  it.each([
    ['missing checksum', 'raw(deadbeef)#', /is not 8 checksum characters/],
    ['too long', 'raw(deadbeef)#89f8spxmx', /is not 8 checksum characters/],
    ['too short', 'raw(deadbeef)#89f8spx', /is not 8 checksum characters/],
    ['error in payload', 'raw(deedbeef)#89f8spxm', /does not match the descriptor/],
    ['error in checksum', 'raw(deedbeef)##9f8spxm', /is not 8 checksum characters/],
    ['invalid character', 'raw(Ü)#00000000', /a character descriptors do not use/],
  ])('refuses BIP380 vector: %s', (_, text, message) => {
    expect(() => checkDescriptorChecksum(text)).toThrow(message);
  });
});
