import { describe, expect, it } from 'vitest';
import { hexToBytes } from '../../shared/coins/index.ts';
import { CoordinatorError } from './errors.ts';
import { checkedEtherSignature, decodeUnsignedEtherTx, softwareEtherSigner } from './ether-signer.ts';

// EIP-155's own worked example (the EIP text): key 0x46..46, chain 1.
const EIP155_UNSIGNED = '0xec098504a817c800825208943535353535353535353535353535353535353535880de0b6b3a764000080018080';
const EIP155_KEY = hexToBytes('46'.repeat(32));
const EIP155_ADDRESS = '0x9d8A62f656a8d1615C1294fd71e9CFb3E4855A4F';
const EIP155_R = 18515461264373351373200002665853028612451056578545711640558177340181847433846n;
const EIP155_S = 46948507304638947509940763649030358759909902576025900602547168820602576006531n;

describe('decodeUnsignedEtherTx', () => {
  it('decodes the EIP-155 example', () => {
    const tx = decodeUnsignedEtherTx(EIP155_UNSIGNED);
    expect(tx).toMatchObject({ nonce: 9n, gasPrice: 20_000_000_000n, gasLimit: 21000n, value: 10n ** 18n, chainId: 1n });
    expect(tx.data.length).toBe(0);
  });

  it.each([
    ['not hex', 'zz', /not hex/],
    ['not a list', '0x80', /not an RLP list/],
    ['a truncated list', EIP155_UNSIGNED.slice(0, -2), /length does not match|ends early|runs past/],
    ['a transaction whose r and s are set', `${EIP155_UNSIGNED.slice(0, -4)}0101`, /r and s must be empty/],
    ['a missing chain id', '0xec098504a817c800825208943535353535353535353535353535353535353535880de0b6b3a764000080808080', /no chain id/],
    ['a short recipient', '0xeb098504a817c8008252089335353535353535353535353535353535353535880de0b6b3a764000080018080', /recipient/],
  ])('refuses %s', (_name, hex, why) => {
    expect(() => decodeUnsignedEtherTx(hex)).toThrow(CoordinatorError);
    expect(() => decodeUnsignedEtherTx(hex)).toThrow(why);
  });
});

describe('softwareEtherSigner', () => {
  it('reproduces the EIP-155 example signature', async () => {
    const signer = softwareEtherSigner(EIP155_KEY);
    expect(await signer.address()).toBe(EIP155_ADDRESS);
    const sig = await signer.sign(EIP155_UNSIGNED);
    expect(sig).toEqual({ r: `0x${EIP155_R.toString(16).padStart(64, '0')}`, s: `0x${EIP155_S.toString(16).padStart(64, '0')}`, v: '37' });
  });

  it('refuses a signature that recovers to another address', () => {
    const tx = decodeUnsignedEtherTx(EIP155_UNSIGNED);
    const other = '0x0000000000000000000000000000000000000001';
    expect(() => checkedEtherSignature(tx, other, { r: EIP155_R.toString(16), s: EIP155_S.toString(16), v: '37' })).toThrow(/does not come from/);
    // Same r, s with the other recovery id is someone else's key.
    expect(() => checkedEtherSignature(tx, EIP155_ADDRESS, { r: EIP155_R.toString(16), s: EIP155_S.toString(16), v: '38' })).toThrow(/does not come from/);
  });

  it('refuses a bad key', () => {
    expect(() => softwareEtherSigner(new Uint8Array(32))).toThrow(/not a valid/);
  });
});
