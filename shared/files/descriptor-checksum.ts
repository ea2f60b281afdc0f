/**
 * The output descriptor checksum of BIP380: a BCH code over the descriptor's characters, written
 * as 8 characters after '#'. Implemented from the BIP's description; tested against its vectors.
 */
import { FileFormatError } from './errors.ts';

const INPUT_CHARSET = "0123456789()[],'/*abcdefgh@:$%{}IJKLMNOPQRSTUVWXYZ&+-.;<=>?!^_|~ijklmnopqrstuvwxyzABCDEFGH`#\"\\ ";
const CHECKSUM_CHARSET = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
const GENERATOR = [0xf5dee51989n, 0xa9fdca3312n, 0x1bab10e32dn, 0x3706b1677an, 0x644d626ffdn];

function polymod(symbols: readonly number[]): bigint {
  let chk = 1n;
  for (const value of symbols) {
    const top = chk >> 35n;
    chk = ((chk & 0x7ffffffffn) << 5n) ^ BigInt(value);
    for (let i = 0; i < 5; i++) if ((top >> BigInt(i)) & 1n) chk ^= GENERATOR[i]!;
  }
  return chk;
}

/** Each character becomes its position in its group of 32; every 3 characters add one symbol of their groups. */
function expand(s: string): number[] {
  const symbols: number[] = [];
  const groups: number[] = [];
  for (const c of s) {
    const v = INPUT_CHARSET.indexOf(c);
    if (v < 0) throw new FileFormatError(`the descriptor contains "${c}", a character descriptors do not use`);
    symbols.push(v & 31);
    groups.push(v >> 5);
    if (groups.length === 3) {
      symbols.push(groups[0]! * 9 + groups[1]! * 3 + groups[2]!);
      groups.length = 0;
    }
  }
  if (groups.length === 1) symbols.push(groups[0]!);
  if (groups.length === 2) symbols.push(groups[0]! * 3 + groups[1]!);
  return symbols;
}

/** The 8-character checksum of a descriptor (without '#'). */
export function descriptorChecksum(descriptor: string): string {
  const c = polymod([...expand(descriptor), 0, 0, 0, 0, 0, 0, 0, 0]) ^ 1n;
  let out = '';
  for (let i = 0; i < 8; i++) out += CHECKSUM_CHARSET[Number((c >> BigInt(5 * (7 - i))) & 31n)];
  return out;
}

export function withChecksum(descriptor: string): string {
  return `${descriptor}#${descriptorChecksum(descriptor)}`;
}

/**
 * Splits "desc#checksum" and checks the checksum when there is one (it is optional in BIP380).
 * A wrong, short or long checksum is refused: the descriptor was altered or mistyped. The words never
 * give the right checksum.
 */
export function checkDescriptorChecksum(text: string): { descriptor: string; checksum: string | null } {
  const at = text.indexOf('#');
  if (at < 0) {
    expand(text);
    return { descriptor: text, checksum: null };
  }
  const descriptor = text.slice(0, at);
  const checksum = text.slice(at + 1);
  if (!/^[qpzry9x8gf2tvdw0s3jn54khce6mua7l]{8}$/.test(checksum)) {
    throw new FileFormatError(`the descriptor checksum "${checksum}" is not 8 checksum characters`);
  }
  const symbols = [...expand(descriptor), ...[...checksum].map((c) => CHECKSUM_CHARSET.indexOf(c))];
  if (polymod(symbols) !== 1n) {
    // The right checksum is not told: a treasurer who pasted it would make an altered descriptor pass.
    throw new FileFormatError(
      `the descriptor checksum "${checksum}" does not match the descriptor: it was altered or mistyped (a character of the descriptor or of its checksum differs from what its wallet wrote); copy the descriptor again from that wallet, do not correct the checksum by hand`,
    );
  }
  return { descriptor, checksum };
}
