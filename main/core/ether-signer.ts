// What an Ether account signs with: a Ledger (ledger/ether.ts) or a software key, behind one small
// interface. Every signer decodes the unsigned transaction from /ethereum/create/ or /erc20/create/
// (EIP-155 legacy RLP) and hashes it itself, and checks that the signature recovers to its own
// address before handing back (r, s, v): a wrong signature never reaches sign_and_send.
import * as ecc from 'tiny-secp256k1';
import { bytesToHex, hexToBytes } from '../../shared/coins/index.ts';
import { ethereumAddressOfPublicKey } from '../../shared/coins/ethereum-address.ts';
import { normaliseSignature, recoverSender, signingHash, signingPayload, type LegacyTx } from '../../shared/coins/ethereum-tx.ts';
import { CoordinatorError } from './errors.ts';

/** As sign_and_send takes them: r and s as 0x + 64 hex digits, v decimal (EIP-155: chainId*2+35/36). */
export interface EtherSignature {
  r: string;
  s: string;
  v: string;
}

export interface EtherSigner {
  /** The account's EIP-55 address. */
  address(): Promise<string>;
  /** Signs the hex RLP returned as `tx` by /ethereum/create/ or /erc20/create/ (0x optional). */
  sign(unsignedTxHex: string): Promise<EtherSignature>;
}

// ---- the unsigned transaction ----------------------------------------------------------------

function refuse(why: string): never {
  throw new CoordinatorError('bad_transaction', `the unsigned Ether transaction is malformed: ${why}`);
}

/** Canonical RLP only: a list of byte strings (no nesting), as a legacy transaction is. */
function rlpFlatList(bytes: Uint8Array): Uint8Array[] {
  const at = (i: number) => (i < bytes.length ? bytes[i]! : refuse('it ends early'));
  const length = (from: number, n: number) => {
    if (n > 4 || at(from) === 0) refuse('a length is not minimal');
    let v = 0;
    for (let i = 0; i < n; i++) v = v * 256 + at(from + i);
    if (v < 56) refuse('a length is not minimal');
    return v;
  };
  const head = at(0);
  if (head < 0xc0) refuse('it is not an RLP list');
  let pos: number;
  let end: number;
  if (head <= 0xf7) [pos, end] = [1, 1 + head - 0xc0];
  else [pos, end] = [1 + head - 0xf7, 1 + head - 0xf7 + length(1, head - 0xf7)];
  if (end !== bytes.length) refuse('its length does not match its RLP header');
  const items: Uint8Array[] = [];
  while (pos < end) {
    const b = at(pos);
    let start: number;
    let size: number;
    if (b < 0x80) [start, size] = [pos, 1];
    else if (b <= 0xb7) [start, size] = [pos + 1, b - 0x80];
    else if (b <= 0xbf) [start, size] = [pos + 1 + b - 0xb7, length(pos + 1, b - 0xb7)];
    else refuse('a field is a nested list');
    if (start + size > end) refuse('a field runs past the end');
    const item = bytes.slice(start, start + size);
    if (b === 0x81 && item[0]! < 0x80) refuse('a single byte is not encoded canonically');
    items.push(item);
    pos = start + size;
  }
  return items;
}

function integer(bytes: Uint8Array, name: string): bigint {
  if (bytes.length > 32) refuse(`${name} is longer than 32 bytes`);
  if (bytes.length > 0 && bytes[0] === 0) refuse(`${name} has leading zeros`);
  return bytes.length === 0 ? 0n : BigInt(`0x${bytesToHex(bytes)}`);
}

/** Decodes RLP([nonce, gasPrice, gasLimit, to, value, data, chainId, 0, 0]) and checks it re-encodes exactly. */
export function decodeUnsignedEtherTx(unsignedTxHex: string): LegacyTx {
  const hex = unsignedTxHex.trim().replace(/^0x/i, '');
  let raw: Uint8Array;
  try {
    raw = hexToBytes(hex);
  } catch {
    refuse('it is not hex');
  }
  const f = rlpFlatList(raw);
  if (f.length !== 9) refuse(`it has ${f.length} fields where an EIP-155 legacy transaction to sign has 9`);
  if (f[3]!.length !== 20) refuse('the recipient is not 20 bytes');
  if (f[7]!.length !== 0 || f[8]!.length !== 0) refuse('it is not an EIP-155 transaction awaiting its signature (r and s must be empty)');
  const tx: LegacyTx = {
    nonce: integer(f[0]!, 'the nonce'),
    gasPrice: integer(f[1]!, 'the gas price'),
    gasLimit: integer(f[2]!, 'the gas limit'),
    to: f[3]!,
    value: integer(f[4]!, 'the value'),
    data: f[5]!,
    chainId: integer(f[6]!, 'the chain id'),
  };
  if (tx.chainId === 0n) refuse('it has no chain id (EIP-155 replay protection is required)');
  if (bytesToHex(signingPayload(tx)) !== hex.toLowerCase()) refuse('it is not in canonical form');
  return tx;
}

// ---- signatures ------------------------------------------------------------------------------

/**
 * Checks a signature (as a device or a key produced it) over `tx` recovers to `address`, and puts
 * it in the form sign_and_send takes. `v` may be 27/28, 0/1 or EIP-155.
 */
export function checkedEtherSignature(tx: LegacyTx, address: string, sig: { r: string; s: string; v: string }): EtherSignature {
  let parsed;
  try {
    parsed = normaliseSignature(sig.r, sig.s, sig.v, tx.chainId);
  } catch (e) {
    throw new CoordinatorError('bad_signature', `the signature returned is unusable: ${(e as Error).message}`);
  }
  const signer = recoverSender(signingHash(tx), parsed);
  if (signer === null || signer.toLowerCase() !== address.toLowerCase()) {
    throw new CoordinatorError('bad_signature', `the signature returned does not come from ${address} (it recovers to ${signer ?? 'no key'}): nothing was sent`);
  }
  const word = (n: bigint) => `0x${n.toString(16).padStart(64, '0')}`;
  return { r: word(parsed.r), s: word(parsed.s), v: (tx.chainId * 2n + 35n + BigInt(parsed.recoveryId)).toString() };
}

/** A software key held in memory by the caller (32 bytes). */
export function softwareEtherSigner(privateKey: Uint8Array): EtherSigner {
  if (privateKey.length !== 32 || !ecc.isPrivate(privateKey)) throw new CoordinatorError('bad_key', 'the Ether private key is not a valid 32-byte secp256k1 key');
  const publicKey = ecc.pointFromScalar(privateKey, false);
  if (!publicKey) throw new CoordinatorError('bad_key', 'the Ether private key is not a valid secp256k1 key');
  const address = ethereumAddressOfPublicKey(publicKey);
  return {
    address: () => Promise.resolve(address),
    sign(unsignedTxHex) {
      const tx = decodeUnsignedEtherTx(unsignedTxHex);
      const { signature, recoveryId } = ecc.signRecoverable(signingHash(tx), privateKey);
      const r = bytesToHex(signature.subarray(0, 32));
      const s = bytesToHex(signature.subarray(32));
      return Promise.resolve(checkedEtherSignature(tx, address, { r, s, v: String(recoveryId & 1) }));
    },
  };
}
