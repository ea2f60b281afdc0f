// An ERC20 token's name, symbol and decimals, and the checks every EVM backend applies before the
// service repeats them: a wrong decimals value shifts every amount a treasurer reads by powers of
// ten, and a name or symbol is shown to people, so neither is passed on unchecked.
import type { Erc20Token } from '../../../shared/api/schemas.ts';
import { hexToBytes } from '../../../shared/coins/bytes.ts';
import { formatEthereumAddress, parseEthereumAddress } from '../../../shared/coins/ethereum-address.ts';
import { ApiError, UpstreamFailure } from '../../errors.ts';

export type TokenInfo = Erc20Token;

// ERC20's optional metadata getters (first four bytes of keccak256 of the signature).
export const NAME_CALL = '0x06fdde03';
export const SYMBOL_CALL = '0x95d89b41';
export const DECIMALS_CALL = '0x313ce567';

const MAX_NAME_CHARS = 100;
const MAX_SYMBOL_CHARS = 32;
const WORD = 32;

/** EIP-55 form of an address the caller already validated. */
export const eip55 = (address: string) => formatEthereumAddress(parseEthereumAddress(address, 'contract'));

/**
 * Text fit to show a person, or null: trimmed, NULs of the bytes32 form dropped, not empty, not too
 * long, and free of control, format (bidi overrides, zero-width), private-use and replacement
 * characters, which could make one token pass for another on screen.
 */
export function saneText(raw: string, maxChars: number): string | null {
  const text = raw.replace(/\0+$/u, '').trim();
  if (text.length === 0 || [...text].length > maxChars) return null;
  if (/[\p{Cc}\p{Cf}\p{Co}\p{Cs}\uFFFD]/u.test(text)) return null;
  return text;
}

export const saneName = (raw: string | null | undefined) => (raw ? saneText(raw, MAX_NAME_CHARS) : null);
export const saneSymbol = (raw: string | null | undefined) => (raw ? saneText(raw, MAX_SYMBOL_CHARS) : null);

function utf8(bytes: Uint8Array): string | null {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
}

function wordAt(bytes: Uint8Array, at: number): bigint {
  let v = 0n;
  for (let i = at; i < at + WORD; i++) v = (v << 8n) | BigInt(bytes[i]!);
  return v;
}

/**
 * What name() or symbol() answered, as text: an ABI-encoded string, or the bytes32 some early tokens
 * return (NUL-padded). null for no answer (a revert, "0x") or bytes that are neither form.
 */
export function decodeTextAnswer(hex: string | null): string | null {
  if (hex === null || !/^0x([0-9a-fA-F]{2})*$/.test(hex)) return null;
  const bytes = hexToBytes(hex.slice(2));
  if (bytes.length === WORD) {
    const end = bytes.indexOf(0);
    return utf8(bytes.subarray(0, end === -1 ? WORD : end));
  }
  if (bytes.length < 2 * WORD) return null;
  const offset = wordAt(bytes, 0);
  if (offset + BigInt(WORD) > BigInt(bytes.length)) return null;
  const start = Number(offset) + WORD;
  const length = wordAt(bytes, Number(offset));
  if (BigInt(start) + length > BigInt(bytes.length)) return null;
  return utf8(bytes.subarray(start, start + Number(length)));
}

/**
 * decimals() as a uint8. No answer (a revert or "0x") or one that is no uint8 is a 422: without
 * decimals the token's amounts cannot be read, and guessing (18 is common) could be off by 10^12.
 */
export function decodeDecimalsAnswer(contract: string, hex: string | null): number {
  const refuse = (why: string) =>
    new ApiError(422, `${contract} ${why}: without the token's own decimals its amounts cannot be read, so it is not a usable ERC20 token here`);
  if (hex === null) throw refuse('refused the call decimals() (it reverted)');
  if (!/^0x([0-9a-fA-F]{2})*$/.test(hex) || hex.length < 2 + 2 * WORD) throw refuse(`has no decimals() (it answered ${hex === '0x' ? 'nothing' : `${(hex.length - 2) / 2} bytes`})`);
  const value = wordAt(hexToBytes(hex.slice(2, 2 + 2 * WORD)), 0);
  if (value > 255n) throw refuse(`answered decimals() with ${value > 10n ** 12n ? 'a huge number' : value.toString()}, not a uint8 (0 to 255)`);
  return Number(value);
}

/** A metadata answer from an indexer (Blockbook), checked like the contract's own. */
export function checkedDecimals(contract: string, value: number, upstream: string): number {
  if (!Number.isInteger(value) || value < 0 || value > 255) {
    throw new UpstreamFailure(false, `${upstream} reported ${value} decimals for ${contract}, not a uint8 (0 to 255)`);
  }
  return value;
}
