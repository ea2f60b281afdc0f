// Legacy (type 0) Ethereum transactions with EIP-155 replay protection, as endpoints 11-14 build
// and sign them (docs/api-decisions.md "Ether and ERC20"): RLP, signing hash, ERC20 transfer data, amount
// units, (r, s, v) normalisation and sender recovery.
import { keccak_256 } from '@noble/hashes/sha3.js';
import * as ecc from 'tiny-secp256k1';
import { bytesToHex, concatBytes } from './bytes.ts';
import { CoinError, quoted } from './errors.ts';
import { formatEthereumAddress } from './ethereum-address.ts';

export interface LegacyTx {
  nonce: bigint;
  gasPrice: bigint;
  gasLimit: bigint;
  /** 20 bytes. */
  to: Uint8Array;
  value: bigint;
  data: Uint8Array;
  chainId: bigint;
}

export interface EthSignature {
  r: bigint;
  s: bigint;
  recoveryId: 0 | 1;
}

// ---- RLP -------------------------------------------------------------------------------------

type RlpItem = Uint8Array | readonly RlpItem[];

/** Big-endian bytes of a non-negative integer, no leading zeros (0 is the empty string). */
export function bigintToMinimalBytes(n: bigint): Uint8Array {
  if (n < 0n) throw new CoinError('RLP integers are non-negative');
  if (n === 0n) return new Uint8Array(0);
  let hex = n.toString(16);
  if (hex.length % 2) hex = `0${hex}`;
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

function rlpLength(length: number, offset: number): Uint8Array {
  if (length < 56) return Uint8Array.of(offset + length);
  const len = bigintToMinimalBytes(BigInt(length));
  return concatBytes(Uint8Array.of(offset + 55 + len.length), len);
}

export function rlpEncode(item: RlpItem): Uint8Array {
  if (item instanceof Uint8Array) {
    if (item.length === 1 && item[0]! < 0x80) return item;
    return concatBytes(rlpLength(item.length, 0x80), item);
  }
  const body = concatBytes(...item.map(rlpEncode));
  return concatBytes(rlpLength(body.length, 0xc0), body);
}

// ---- transaction -----------------------------------------------------------------------------

function fields(tx: LegacyTx): Uint8Array[] {
  if (tx.to.length !== 20) throw new CoinError('transaction recipient must be 20 bytes');
  return [bigintToMinimalBytes(tx.nonce), bigintToMinimalBytes(tx.gasPrice), bigintToMinimalBytes(tx.gasLimit), tx.to, bigintToMinimalBytes(tx.value), tx.data];
}

/** What is signed under EIP-155: RLP([nonce, gasPrice, gasLimit, to, value, data, chainId, 0, 0]). */
export function signingPayload(tx: LegacyTx): Uint8Array {
  return rlpEncode([...fields(tx), bigintToMinimalBytes(tx.chainId), new Uint8Array(0), new Uint8Array(0)]);
}

export function signingHash(tx: LegacyTx): Uint8Array {
  return keccak_256(signingPayload(tx));
}

/** The raw transaction to broadcast: RLP([..., v, r, s]) with v = chainId*2 + 35 + recoveryId. */
export function serializeSigned(tx: LegacyTx, sig: EthSignature): Uint8Array {
  const v = tx.chainId * 2n + 35n + BigInt(sig.recoveryId);
  return rlpEncode([...fields(tx), bigintToMinimalBytes(v), bigintToMinimalBytes(sig.r), bigintToMinimalBytes(sig.s)]);
}

/** Transaction id of a signed raw transaction. */
export function transactionHash(raw: Uint8Array): string {
  return `0x${bytesToHex(keccak_256(raw))}`;
}

// ---- ERC20 and units -------------------------------------------------------------------------

const TRANSFER_SELECTOR = Uint8Array.of(0xa9, 0x05, 0x9c, 0xbb);
const TWO_256 = 1n << 256n;

function word(n: bigint): Uint8Array {
  if (n < 0n || n >= TWO_256) throw new CoinError('value does not fit in 256 bits');
  const out = new Uint8Array(32);
  out.set(bigintToMinimalBytes(n), 32 - bigintToMinimalBytes(n).length);
  return out;
}

/** transfer(address,uint256) call data: a9059cbb || 32-byte recipient || 32-byte amount. */
export function erc20TransferData(recipient: Uint8Array, rawAmount: bigint): Uint8Array {
  const to = new Uint8Array(32);
  to.set(recipient, 12);
  return concatBytes(TRANSFER_SELECTOR, to, word(rawAmount));
}

export const GWEI = 1_000_000_000n;

/** Ether `amount` is in GWEI. */
export function gweiToWei(amount: bigint): bigint {
  return amount * GWEI;
}

/**
 * ERC20 `amount` is in "GWEI of the token": raw = amount x 10^(decimals - 9), exactly. With fewer
 * than 9 decimals the amount must be a multiple of 10^(9 - decimals).
 */
export function tokenGweiToRaw(amount: bigint, decimals: number, field = 'amount'): bigint {
  if (decimals >= 9) return amount * 10n ** BigInt(decimals - 9);
  const divisor = 10n ** BigInt(9 - decimals);
  if (amount % divisor !== 0n) {
    throw new CoinError(
      `field "${field}": ${amount} GWEI of a token with ${decimals} decimal places needs a fraction of its smallest unit; ` +
        `the amount must be a multiple of ${divisor}`,
      field,
    );
  }
  return amount / divisor;
}

// ---- signatures ------------------------------------------------------------------------------

const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

function hexScalar(text: string, field: string): bigint {
  const body = text.startsWith('0x') || text.startsWith('0X') ? text.slice(2) : text;
  if (!/^[0-9a-fA-F]{1,64}$/.test(body)) throw new CoinError(`field "${field}" must be hex of at most 32 bytes`, field);
  const n = BigInt(`0x${body}`);
  if (n === 0n || n >= SECP256K1_N) throw new CoinError(`field "${field}" is not a valid signature value`, field);
  return n;
}

/** r, s as hex (0x optional); v as 27/28 or EIP-155 (chainId*2 + 35/36), decimal or 0x-hex. */
export function normaliseSignature(r: string, s: string, v: string, chainId: bigint): EthSignature {
  const rn = hexScalar(r, 'r');
  const sn = hexScalar(s, 's');
  let vn: bigint;
  try {
    vn = BigInt(v.trim());
  } catch {
    throw new CoinError(`field "v": ${quoted(String(v))} is not a number`, 'v');
  }
  let recoveryId: bigint;
  if (vn === 27n || vn === 28n) recoveryId = vn - 27n;
  else if (vn === chainId * 2n + 35n || vn === chainId * 2n + 36n) recoveryId = vn - chainId * 2n - 35n;
  else if (vn === 0n || vn === 1n) recoveryId = vn;
  else throw new CoinError(`field "v": ${vn} is neither 27/28 nor EIP-155 for chain ${chainId} (${chainId * 2n + 35n}/${chainId * 2n + 36n})`, 'v');
  // Ethereum (EIP-2) accepts only low-s signatures.
  if (sn > SECP256K1_N / 2n) throw new CoinError('field "s": signature is not in low-s form (EIP-2); normalise s to n - s and flip v', 's');
  return { r: rn, s: sn, recoveryId: recoveryId === 0n ? 0 : 1 };
}

/** The EIP-55 address whose key made `sig` over `hash`, or null when nothing recovers. */
export function recoverSender(hash: Uint8Array, sig: EthSignature): string | null {
  const compact = concatBytes(word(sig.r), word(sig.s));
  let point: Uint8Array | null;
  try {
    point = ecc.recover(hash, compact, sig.recoveryId, false);
  } catch {
    return null;
  }
  if (!point) return null;
  return formatEthereumAddress(keccak_256(point.subarray(1)).subarray(12));
}
