import { bech32 } from '@scure/base';
import { payments } from 'bitcoinjs-lib';
import type { Network } from 'bitcoinjs-lib';
import { describe, expect, test } from 'vitest';
import {
  addressToScript,
  decodeAddress,
  encodeAddress,
  isValidAddress,
  p2pkhAddressOfPublicKey,
  p2shAddressOfRedeemScript,
  scriptToAddress,
} from './address.ts';
import { base58checkEncode } from './base58.ts';
import { bytesToHex, hexToBytes } from './bytes.ts';
import { chainParams } from './coin-table.ts';
import { CoinError } from './errors.ts';
import bip32 from './fixtures/bip32.json' with { type: 'json' };
import segwit from './fixtures/segwit-addresses.json' with { type: 'json' };
import { multisigRedeemScript, p2pkhScript, witnessScript } from './script.ts';
import { parseXpub } from './xpub.ts';

const BTC = chainParams('bitcoin', 'mainnet');
const BTC_TEST = chainParams('bitcoin', 'testnet');
const LTC = chainParams('litecoin', 'mainnet');
const LTC_REG = chainParams('litecoin', 'regtest');
const DASH = chainParams('dash', 'mainnet');

const G = hexToBytes('0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798');
const KEYS = (bip32.valid[0]?.chains ?? []).slice(0, 3).map((c) => parseXpub(BTC, c.xpub).publicKey);

// Oracle networks for bitcoinjs-lib, written from the coins' chainparams (only the fields used).
const bip32Versions = { public: 0x0488b21e, private: 0x0488ade4 };
const LITECOIN: Network = { messagePrefix: '', bech32: 'ltc', bip32: bip32Versions, pubKeyHash: 0x30, scriptHash: 0x32, wif: 0xb0 };
const LITECOIN_REGTEST: Network = { messagePrefix: '', bech32: 'rltc', bip32: bip32Versions, pubKeyHash: 0x6f, scriptHash: 0x3a, wif: 0xef };
const DASH_NET: Network = { messagePrefix: '', bech32: 'dash-none', bip32: bip32Versions, pubKeyHash: 0x4c, scriptHash: 0x10, wif: 0xcc };

function oracleP2pkh(network: Network, pubkey: Uint8Array): string {
  const a = payments.p2pkh({ pubkey, network }).address;
  if (a === undefined) throw new Error('oracle');
  return a;
}

function oracleMultisig(network: Network, m: number, pubkeys: Uint8Array[]): string {
  const a = payments.p2sh({ redeem: payments.p2ms({ m, pubkeys, network }), network }).address;
  if (a === undefined) throw new Error('oracle');
  return a;
}

describe('known addresses', () => {
  test('P2PKH of the generator point G on bitcoin', () => {
    expect(p2pkhAddressOfPublicKey(BTC, G)).toBe('1BgGZ9tcN4rm9KBzDn7KprQz87SZ26SAMH');
  });

  test('P2PKH on litecoin (L...) and dash (X...), checked against bitcoinjs-lib', () => {
    const ltc = p2pkhAddressOfPublicKey(LTC, G);
    const dash = p2pkhAddressOfPublicKey(DASH, G);
    expect(ltc).toBe(oracleP2pkh(LITECOIN, G));
    expect(dash).toBe(oracleP2pkh(DASH_NET, G));
    expect(ltc.startsWith('L')).toBe(true);
    expect(dash.startsWith('X')).toBe(true);
  });

  test('testnet3 and regtest P2PKH start with m or n', () => {
    expect(p2pkhAddressOfPublicKey(chainParams('testnet3', 'mainnet'), G)).toMatch(/^[mn]/);
    expect(p2pkhAddressOfPublicKey(LTC_REG, G)).toBe(oracleP2pkh(LITECOIN_REGTEST, G));
  });

  test('2-of-3 P2SH on litecoin mainnet (M...), keys in the order given, checked against bitcoinjs-lib', () => {
    const address = p2shAddressOfRedeemScript(LTC, multisigRedeemScript(2, KEYS));
    expect(address).toBe(oracleMultisig(LITECOIN, 2, KEYS));
    expect(address.startsWith('M')).toBe(true);
    const reordered = p2shAddressOfRedeemScript(LTC, multisigRedeemScript(2, [...KEYS].reverse()));
    expect(reordered).not.toBe(address);
  });

  test('2-of-3 P2SH on litecoin regtest (Q...) as litecoind -regtest shows it', () => {
    const address = p2shAddressOfRedeemScript(LTC_REG, multisigRedeemScript(2, KEYS));
    expect(address).toBe(oracleMultisig(LITECOIN_REGTEST, 2, KEYS));
    expect(address.startsWith('Q')).toBe(true);
  });

  test('segwit on litecoin (ltc1...), checked against bitcoinjs-lib', () => {
    const hash = payments.p2wpkh({ pubkey: G }).hash;
    if (!hash) throw new Error('oracle');
    expect(encodeAddress(LTC, { type: 'p2wpkh', hash })).toBe(payments.p2wpkh({ pubkey: G, network: LITECOIN }).address);
  });

  test('redeem scripts over 520 bytes are refused', () => {
    expect(() => p2shAddressOfRedeemScript(BTC, new Uint8Array(521))).toThrow(/at most 520/);
  });
});

describe('decodeAddress', () => {
  test('round-trips P2PKH and P2SH; scripts match', () => {
    const hash = hexToBytes('751e76e8199196d454941c45d1b3a323f1433bd6');
    for (const params of [BTC, BTC_TEST, LTC, LTC_REG, DASH]) {
      for (const type of ['p2pkh', 'p2sh'] as const) {
        const text = encodeAddress(params, { type, hash });
        expect(decodeAddress(params, text)).toEqual({ type, hash });
      }
    }
    expect(bytesToHex(addressToScript(BTC, '1BgGZ9tcN4rm9KBzDn7KprQz87SZ26SAMH'))).toBe(bytesToHex(p2pkhScript(hash)));
  });

  test('litecoin also accepts legacy 3... P2SH; litecoin testnet/regtest accept 2...', () => {
    const redeem = multisigRedeemScript(2, KEYS);
    const three = p2shAddressOfRedeemScript(BTC, redeem);
    expect(three.startsWith('3')).toBe(true);
    const asLtc = decodeAddress(LTC, three);
    expect(asLtc.type).toBe('p2sh');
    expect(encodeAddress(LTC, asLtc)).toBe(p2shAddressOfRedeemScript(LTC, redeem));
    const two = p2shAddressOfRedeemScript(BTC_TEST, redeem);
    expect(decodeAddress(LTC_REG, two).type).toBe('p2sh');
    expect(decodeAddress(chainParams('litecoin', 'testnet'), two).type).toBe('p2sh');
  });

  test('an address of another coin says whose it is', () => {
    const btc = '1BgGZ9tcN4rm9KBzDn7KprQz87SZ26SAMH';
    expect(() => decodeAddress(LTC, btc, 'to')).toThrow(`to: address "${btc}" is not a valid litecoin address: it is a bitcoin, bitcoin_cash address`);
    expect(() => decodeAddress(DASH, btc)).toThrow(/it is a bitcoin, bitcoin_cash address/);
    const ltc = p2pkhAddressOfPublicKey(LTC, G);
    expect(() => decodeAddress(BTC, ltc)).toThrow(/not a valid bitcoin address: it is a litecoin address/);
    const dash = p2pkhAddressOfPublicKey(DASH, G);
    expect(() => decodeAddress(LTC, dash)).toThrow(/it is a dash address/);
  });

  test('an address of another network of the same coin names that network', () => {
    const testnet = p2pkhAddressOfPublicKey(BTC_TEST, G);
    expect(() => decodeAddress(BTC, testnet)).toThrow(/not a valid bitcoin address: it is a bitcoin testnet\/regtest address/);
    expect(() => decodeAddress(LTC, p2pkhAddressOfPublicKey(LTC_REG, G))).toThrow(/it is a litecoin testnet\/regtest address/);
    expect(() => decodeAddress(LTC_REG, p2pkhAddressOfPublicKey(LTC, G))).toThrow(/not a valid litecoin regtest address: it is a litecoin address/);
    expect(() => decodeAddress(BTC_TEST, 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4')).toThrow(/it is a bitcoin segwit address/);
    const ltc1 = encodeAddress(LTC, { type: 'p2wpkh', hash: hexToBytes('751e76e8199196d454941c45d1b3a323f1433bd6') });
    expect(() => decodeAddress(BTC, ltc1)).toThrow(/not a valid bitcoin address: it is a litecoin segwit address/);
  });

  test('typos and junk', () => {
    const typo = '1BgGZ9tcN4rm9KBzDn7KprQz87SZ26SAMJ';
    expect(() => decodeAddress(BTC, typo, 'to')).toThrow(`address "${typo}" is not a valid bitcoin address: bad checksum (a character is mistyped or missing)`);
    expect(() => decodeAddress(BTC, '1BgGZ9tcN4rm9KBzDn7KprQz87SZ26SAM0')).toThrow(/"0" at position 34 is not allowed/);
    expect(() => decodeAddress(BTC, ' 1BgGZ9tcN4rm9KBzDn7KprQz87SZ26SAMH')).toThrow(/whitespace/);
    expect(() => decodeAddress(BTC, '')).toThrow(/it is empty/);
    expect(() => decodeAddress(BTC, base58checkEncode(Uint8Array.of(0x00), new Uint8Array(21)))).toThrow(/wrong length/);
    expect(() => decodeAddress(BTC, base58checkEncode(Uint8Array.of(0x99), new Uint8Array(20)))).toThrow(/unknown version 0x99/);
    expect(() => decodeAddress(BTC, 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t5')).toThrow(/bad segwit checksum/);
    expect(isValidAddress(BTC, typo)).toBe(false);
  });

  test('errors carry the field name', () => {
    try {
      decodeAddress(LTC, '1BgGZ9tcN4rm9KBzDn7KprQz87SZ26SAMH', 'to');
      expect.unreachable();
    } catch (e) {
      expect((e as CoinError).field).toBe('to');
    }
  });

  test('a private key pasted as an address is refused without echoing it', () => {
    const wif = 'KwDiBf89QgGbjEhKnhXJuH7LrciVrZi3qYjgd9M7rFU73sVHnoWn';
    expect(() => decodeAddress(BTC, wif, 'to')).toThrow(/field "to" holds a private key \(WIF\)/);
    try {
      decodeAddress(BTC, wif, 'to');
    } catch (e) {
      expect((e as Error).message).not.toContain(wif);
    }
  });
});

describe('segwit addresses: BIP350 test vectors', () => {
  const paramsFor = (address: string) => (address.toLowerCase().startsWith('tb1') ? BTC_TEST : BTC);
  const supported = (script: string): boolean =>
    (script.startsWith('0014') && script.length === 44) || (script.startsWith('0020') && script.length === 68) || (script.startsWith('5120') && script.length === 68);

  test.each(segwit.valid.map((v) => [v.address, v.script]))('valid %s', (address, script) => {
    const params = paramsFor(address);
    if (supported(script)) {
      expect(bytesToHex(addressToScript(params, address))).toBe(script);
      expect(scriptToAddress(params, hexToBytes(script))).toBe(address.toLowerCase());
    } else {
      // Future witness versions: valid, but this desk does not pay to them.
      expect(() => addressToScript(params, address)).toThrow(/is not supported/);
      expect(scriptToAddress(params, hexToBytes(script))).toBeNull();
    }
  });

  test.each(segwit.invalid.map((v) => [v.reason, v.address]))('invalid (%s) %s', (_reason, address) => {
    expect(() => decodeAddress(paramsFor(address), address)).toThrow(CoinError);
  });
});

describe('scriptToAddress', () => {
  const h20 = hexToBytes('751e76e8199196d454941c45d1b3a323f1433bd6');

  test('renders with the coin and network prefixes, never the node`s', () => {
    expect(scriptToAddress(BTC, p2pkhScript(h20))).toBe('1BgGZ9tcN4rm9KBzDn7KprQz87SZ26SAMH');
    expect(scriptToAddress(LTC, p2pkhScript(h20))).toBe(p2pkhAddressOfPublicKey(LTC, G));
    expect(scriptToAddress(LTC_REG, witnessScript(0, h20))?.startsWith('rltc1q')).toBe(true);
    expect(scriptToAddress(chainParams('bitcoin', 'regtest'), witnessScript(0, h20))?.startsWith('bcrt1q')).toBe(true);
  });

  test('null for scripts without an address form on the network', () => {
    expect(scriptToAddress(DASH, witnessScript(0, h20))).toBeNull();
    expect(scriptToAddress(BTC, Uint8Array.of(0x6a))).toBeNull();
    expect(() => encodeAddress(DASH, { type: 'p2wpkh', hash: h20 })).toThrow(/dash has no segwit/);
  });
});

describe('Bitcoin Cash addresses', () => {
  const BCH = chainParams('bitcoin_cash', 'mainnet');
  const legacy = '1B9UNtBfkkpgt8kVbwLN9ktE62QKnMbDzR';
  const cash = 'bitcoincash:qph5kuz78czq00e3t85ugpgd7xmer5kr7c5f6jdpwk';

  test('CashAddr is shown; legacy and CashAddr (with or without prefix) are accepted', () => {
    const fromLegacy = decodeAddress(BCH, legacy);
    expect(encodeAddress(BCH, fromLegacy)).toBe(cash);
    expect(bytesToHex(decodeAddress(BCH, cash).hash)).toBe(bytesToHex(fromLegacy.hash));
    expect(bytesToHex(decodeAddress(BCH, cash.split(':')[1]!).hash)).toBe(bytesToHex(fromLegacy.hash));
    expect(scriptToAddress(BCH, addressToScript(BCH, legacy))).toBe(cash);
  });

  test('a CashAddr of another network or coin is refused, saying whose it is', () => {
    const reg = encodeAddress(chainParams('bitcoin_cash', 'regtest'), decodeAddress(BCH, legacy));
    expect(() => decodeAddress(BCH, reg, 'to')).toThrow(/to: .*it is a bitcoin_cash regtest address/);
    expect(() => decodeAddress(BTC, cash)).toThrow(/it is a bitcoin_cash address/);
    expect(() => decodeAddress(BCH, cash.replace('qph5', 'qph6'))).toThrow(/checksum/);
  });
});

describe('segwit addresses per coin row', () => {
  const h32 = new Uint8Array(32).fill(7);
  const ltcReg = chainParams('litecoin', 'regtest');

  test('P2WSH on the coin\'s own hrp, both ways; a prefix no coin uses is said in words', () => {
    const address = encodeAddress(ltcReg, { type: 'p2wsh', hash: h32 });
    expect(address.startsWith('rltc1q')).toBe(true);
    expect(bytesToHex(addressToScript(ltcReg, address))).toBe(`0020${bytesToHex(h32)}`);
    const foreign = bech32.encode('xyz', [0, ...bech32.toWords(h32)]);
    expect(() => decodeAddress(ltcReg, foreign)).toThrow(/its segwit prefix "xyz" belongs to no coin of this service \(litecoin regtest segwit addresses start with "rltc1"\)/);
    expect(() => decodeAddress(chainParams('dash', 'mainnet'), foreign)).toThrow(/dash has no segwit addresses/);
  });

  test('a coin without segwit reads no bech32 address and renders none', () => {
    const dash = chainParams('dash', 'mainnet');
    const btc = encodeAddress(chainParams('bitcoin', 'mainnet'), { type: 'p2wsh', hash: h32 });
    expect(() => decodeAddress(dash, btc)).toThrow(/it is a bitcoin segwit address/);
    expect(scriptToAddress(dash, witnessScript(0, h32))).toBeNull();
  });
});
