import { describe, expect, it } from 'vitest';
import * as ecc from 'tiny-secp256k1';
import { bytesToHex, hexToBytes } from './bytes.ts';
import { CoinError } from './errors.ts';
import { ethereumAddressOfPublicKey, parseEthereumAddress } from './ethereum-address.ts';
import {
  erc20TransferData,
  gweiToWei,
  normaliseSignature,
  recoverSender,
  rlpEncode,
  serializeSigned,
  signingHash,
  signingPayload,
  tokenGweiToRaw,
  type LegacyTx,
} from './ethereum-tx.ts';

// EIP-155's worked example (ethereum/EIPs EIPS/eip-155.md, section Example).
const eip155: LegacyTx = {
  nonce: 9n,
  gasPrice: 20n * 10n ** 9n,
  gasLimit: 21000n,
  to: hexToBytes('35'.repeat(20)),
  value: 10n ** 18n,
  data: new Uint8Array(0),
  chainId: 1n,
};
const KEY = hexToBytes('46'.repeat(32));
const R = 18515461264373351373200002665853028612451056578545711640558177340181847433846n;
const S = 46948507304638947509940763649030358759909902576025900602547168820602576006531n;

describe('EIP-155 known answer', () => {
  it('reproduces the signing data and hash', () => {
    expect(bytesToHex(signingPayload(eip155))).toBe('ec098504a817c800825208943535353535353535353535353535353535353535880de0b6b3a764000080018080');
    expect(bytesToHex(signingHash(eip155))).toBe('daf5a779ae972f972197303d7b574746c7ef83eadac0f2791ad23db92e4c8e53');
  });

  it('signs to the published v, r, s and recovers the sender', () => {
    const hash = signingHash(eip155);
    const { signature, recoveryId } = ecc.signRecoverable(hash, KEY);
    expect(BigInt(`0x${bytesToHex(signature.subarray(0, 32))}`)).toBe(R);
    expect(BigInt(`0x${bytesToHex(signature.subarray(32))}`)).toBe(S);
    expect(1n * 2n + 35n + BigInt(recoveryId)).toBe(37n);
    const sender = ethereumAddressOfPublicKey(ecc.pointFromScalar(KEY, true)!);
    for (const v of ['37', '0x25', '27']) {
      expect(recoverSender(hash, normaliseSignature(R.toString(16), `0x${S.toString(16)}`, v, 1n))).toBe(sender);
    }
    // The published signed transaction.
    expect(bytesToHex(serializeSigned(eip155, { r: R, s: S, recoveryId: 0 }))).toBe(
      'f86c098504a817c800825208943535353535353535353535353535353535353535880de0b6b3a76400008025a028ef61340bd939bc2195fe537567866003e1a15d3c71ff63e1590620aa636276a067cbe9d8997f761aecb703304b3800ccf555c9f3dc64214b297fb1966a3b6d83',
    );
  });
});

describe('pieces', () => {
  it('encodes RLP lists and long strings', () => {
    expect(bytesToHex(rlpEncode([]))).toBe('c0');
    expect(bytesToHex(rlpEncode(new Uint8Array(0)))).toBe('80');
    expect(bytesToHex(rlpEncode(new Uint8Array(56)).subarray(0, 2))).toBe('b838');
  });

  it('builds ERC20 transfer data', () => {
    const data = erc20TransferData(hexToBytes('11'.repeat(20)), 258n);
    expect(bytesToHex(data)).toBe(`a9059cbb${'0'.repeat(24)}${'11'.repeat(20)}${'0'.repeat(60)}0102`);
  });

  it('converts amounts exactly', () => {
    expect(gweiToWei(3n)).toBe(3_000_000_000n);
    expect(tokenGweiToRaw(5n, 18)).toBe(5_000_000_000n);
    expect(tokenGweiToRaw(123n * 10n ** 40n, 18)).toBe(123n * 10n ** 49n);
    expect(tokenGweiToRaw(7_000n, 6)).toBe(7n);
    expect(() => tokenGweiToRaw(7_001n, 6)).toThrow(/multiple of 1000/);
  });

  it('refuses bad signatures and addresses', () => {
    expect(() => normaliseSignature('zz', '01', '27', 1n)).toThrow(CoinError);
    expect(() => normaliseSignature('01', '01', '99', 1n)).toThrow(/neither 27\/28 nor EIP-155/);
    expect(() => parseEthereumAddress('0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', 'to')).not.toThrow();
    expect(() => parseEthereumAddress('0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD', 'to')).toThrow(/field "to".*EIP-55/);
    expect(() => parseEthereumAddress('0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed', 'to')).not.toThrow();
    expect(() => parseEthereumAddress('0x5aae', 'from')).toThrow(/field "from"/);
  });
});
