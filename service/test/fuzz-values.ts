// Random and adversarial request values for the fuzz test (service/http/fuzz.regtest.test.ts):
// a seeded generator, so a failing request can be reproduced from the seed and its index.

/** mulberry32: small, fast, and the same sequence for the same seed on every machine. */
export class Random {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0;
  }
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(below: number): number {
    return Math.floor(this.next() * below);
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
}

const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const BECH32 = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
const HEX = '0123456789abcdef';

function run(random: Random, alphabet: string, length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += alphabet.charAt(random.int(alphabet.length));
  return out;
}

// Lengths around every limit the codecs have: base58check's 256, segwit's 90, CashAddr's body,
// @scure/base's 4,096, and far beyond.
const LENGTHS = [0, 1, 33, 34, 35, 42, 66, 90, 91, 111, 112, 255, 256, 257, 1000, 4095, 4096, 4097, 5000, 20_000];

/** Values no field should choke on, whatever it holds. */
export function adversarialString(random: Random): string {
  const length = random.pick(LENGTHS);
  switch (random.int(16)) {
    case 0:
      return run(random, BASE58, length);
    case 1:
      return `ltc1${run(random, BECH32, length)}`;
    case 2:
      return `rltc1${run(random, BECH32, length)}`;
    case 3:
      return `bchreg:${run(random, BECH32, length)}`;
    case 4:
      return `bitcoincash:${run(random, BECH32, length)}`;
    case 5:
      return `0x${run(random, HEX, length)}`;
    case 6:
      return `02${run(random, HEX, length)}`;
    case 7:
      return run(random, HEX, length);
    case 8:
      return random.pick(['xpub', 'tpub', 'Ltub', 'xprv', 'tprv']) + run(random, BASE58, length);
    case 9:
      return random.pick(UNICODE).repeat(Math.max(1, Math.min(length, 2000)));
    case 10:
      return random.pick(NUMBERISH);
    case 11:
      return random.pick(PRIVATE_KEYS);
    case 12:
      return 'a'.repeat(length);
    case 13:
      return random.pick(['', ' ', ',', ',,,', ' , ', '\t', '\n', '%', '%00', '..', '/', '?', '#', '&', '=', 'null', 'undefined', 'true', '[]', '{}']);
    case 14:
      return run(random, 'qpzry9x8gf2tvdw0s3jn54khce6mua7l1QPZRY', length);
    default:
      return Array.from({ length: Math.min(length, 3000) }, () => String.fromCodePoint(random.int(0x2ffff) + 1)).join('').replace(/[\uD800-\uDFFF]/g, 'x');
  }
}

const UNICODE = ['é', 'ⅼtc1', 'Ｌ', '٣', '𝟘', '🙂', '\u200b', '\u202e', '\u0301', 'ß', 'İ', '\ufeff', '\u0000', '\u00a0', '中文', 'ﷺ'];
const NUMBERISH = ['-1', '0', '1', '1.5', '-0', '1e3', '1e309', 'Infinity', 'NaN', '0x10', '+5', '99999999999999999999999999999', '18446744073709551616', '2100000000000001', '9007199254740993', '-9223372036854775809', ' 5', '5 ', '1_000', '١'];

/** Private keys where public keys or addresses belong: each must be refused by name, not echoed. */
export const PRIVATE_KEYS = [
  // WIF (mainnet, compressed) and regtest WIF
  'KwDiBf89QgGbjEhKnhXJuH7LrciVrZi3qYjgd9M7rFU73sVHnoWn',
  'cMahea7zqjxrtgAbB7LSGbcQUr1uX1ojuat9jZodMN87JcbXMTcA',
  // 32-byte hex secrets
  '0c28fca386c7a227600b2fe50b7cae11ec86d3bf1fbe471be89827e19d72aa1d',
  '0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318',
  // BIP32 test vector 1 master xprv
  'xprv9s21ZrQH143K3QTDL4LXw2F7HEK3wJUD2nW2nRk4stbPy6cq3jPPqjiChkVvvNKmPGJxWUtg6LNLbHh9cLgUrW8BhK8kDxW5fNLnUhsG3DM',
  // BIP39 test phrase
  'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about',
];

/** One of the good values, sometimes mutated: near-misses reach deeper than noise. */
export function mutated(random: Random, good: string): string {
  switch (random.int(9)) {
    case 0:
      return good;
    case 1:
      return good.slice(0, random.int(good.length + 1));
    case 2: {
      const i = random.int(Math.max(1, good.length));
      return good.slice(0, i) + random.pick([...BASE58, 'O', '0', 'I', 'l', 'é']) + good.slice(i + 1);
    }
    case 3:
      return good.toUpperCase();
    case 4:
      return good.repeat(random.pick([2, 50, 300]));
    case 5:
      return `${good},${good},${good}`;
    case 6:
      return ` ${good}\u200b`;
    case 7:
      return Array.from({ length: random.pick([2, 199, 200, 201, 400]) }, () => good).join(',');
    default:
      return `${good}${random.pick(UNICODE)}`;
  }
}

/** A JSON value of the wrong type (or the right one, oddly shaped). */
export function wrongType(random: Random, depth = 0): unknown {
  switch (random.int(depth > 2 ? 7 : 9)) {
    case 0:
      return null;
    case 1:
      return random.pick([true, false]);
    case 2:
      return random.pick([0, -1, 1.5, 1e308, -1e308, 2 ** 53 + 1, 15, 16, -0]);
    case 3:
      return adversarialString(random);
    case 4:
      return random.pick(NUMBERISH);
    case 5:
      return [];
    case 6:
      return {};
    case 7:
      return Array.from({ length: random.int(4) }, () => wrongType(random, depth + 1));
    default:
      return { [adversarialString(random).slice(0, 20)]: wrongType(random, depth + 1) };
  }
}
