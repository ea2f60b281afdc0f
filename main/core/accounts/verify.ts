// Before anything is signed: the unsigned transaction the service built (endpoint 11 or 13) is
// decoded here and must pay exactly what was asked (recipient, amount, token call, chain), and its
// hash is recomputed here and must equal the service's hash_to_sign. Pure.
import { bytesToHex, equalBytes, hexToBytes } from '../../../shared/coins/bytes.ts';
import { formatEthereumAddress, parseEthereumAddress } from '../../../shared/coins/ethereum-address.ts';
import { erc20TransferData, signingHash, signingPayload, type LegacyTx } from '../../../shared/coins/ethereum-tx.ts';
import { CoordinatorError } from '../errors.ts';
import { decodeUnsignedEtherTx } from '../ether-signer.ts';
import type { TokenRow } from '../store/account-store.ts';
import { ETHER_DECIMALS, shown } from './units.ts';

export interface IntendedTransfer {
  chainId: bigint;
  /** EIP-55 recipient. */
  to: string;
  /** null for Ether. */
  token: TokenRow | null;
  /** wei, or the token's raw units. */
  amount: bigint;
  /** Set when the sender fixed them; otherwise the service chooses and the fee is shown. */
  gasPrice?: bigint;
  gasLimit?: bigint;
}

export interface VerifiedTransfer {
  tx: LegacyTx;
  unsignedTx: Uint8Array;
  hash: Uint8Array;
  /** gasLimit x gasPrice, in wei: the most the miners can take. */
  fee: bigint;
}

function refuse(why: string): never {
  throw new CoordinatorError('send_refused', `refusing the send: ${why}; nothing was signed`);
}

const ADDRESS = (bytes: Uint8Array) => formatEthereumAddress(bytes);

/** What an ERC20 transfer's call data pays, or null when it is not exactly transfer(address,uint256). */
export function decodeErc20Transfer(data: Uint8Array): { to: string; amount: bigint } | null {
  if (data.length !== 68 || bytesToHex(data.subarray(0, 4)) !== 'a9059cbb' || data.subarray(4, 16).some((b) => b !== 0)) return null;
  return { to: ADDRESS(data.subarray(16, 36)), amount: BigInt(`0x${bytesToHex(data.subarray(36))}`) };
}

export function verifyCreatedTransfer(intended: IntendedTransfer, created: { tx: string; hash_to_sign: string }): VerifiedTransfer {
  let tx: LegacyTx;
  try {
    tx = decodeUnsignedEtherTx(created.tx);
  } catch (err) {
    refuse(`the service's transaction cannot be decoded (${err instanceof Error ? err.message : String(err)})`);
  }
  const recipient = parseEthereumAddress(intended.to, 'to');
  if (tx.chainId !== intended.chainId) refuse(`the transaction is for chain ${tx.chainId}, but this account is on chain ${intended.chainId}`);
  const txTo = ADDRESS(tx.to);
  if (intended.token === null) {
    if (!equalBytes(tx.to, recipient)) refuse(`the transaction pays ${txTo}, not ${ADDRESS(recipient)} as asked`);
    if (tx.value !== intended.amount) {
      refuse(`the transaction sends ${shown(tx.value, ETHER_DECIMALS, 'ETH')}, not the ${shown(intended.amount, ETHER_DECIMALS, 'ETH')} asked`);
    }
    if (tx.data.length !== 0) refuse(`a plain Ether transfer carries no call data, but this one carries ${tx.data.length} bytes`);
  } else {
    const { symbol, decimals, contract } = intended.token;
    if (!equalBytes(tx.to, parseEthereumAddress(contract, 'contract'))) refuse(`the transaction calls ${txTo}, not the ${symbol} contract ${contract}`);
    if (tx.value !== 0n) refuse(`a token transfer sends no Ether, but this one also sends ${shown(tx.value, ETHER_DECIMALS, 'ETH')}`);
    const call = decodeErc20Transfer(tx.data);
    if (call === null) refuse(`the call to ${symbol} is not transfer(address,uint256)`);
    if (call.to.toLowerCase() !== ADDRESS(recipient).toLowerCase()) refuse(`the ${symbol} transfer pays ${call.to}, not ${ADDRESS(recipient)} as asked`);
    if (call.amount !== intended.amount) refuse(`the transfer moves ${shown(call.amount, decimals, symbol)}, not the ${shown(intended.amount, decimals, symbol)} asked`);
    // Belt and braces: byte-for-byte the call data this desk would write.
    if (!equalBytes(tx.data, erc20TransferData(recipient, intended.amount))) refuse(`the call data to ${symbol} is not the transfer asked`);
  }
  if (intended.gasPrice !== undefined && tx.gasPrice !== intended.gasPrice) refuse(`the gas price is ${tx.gasPrice} wei, not the ${intended.gasPrice} wei asked`);
  if (intended.gasLimit !== undefined && tx.gasLimit !== intended.gasLimit) refuse(`the gas limit is ${tx.gasLimit}, not the ${intended.gasLimit} asked`);
  const hash = signingHash(tx);
  const theirs = created.hash_to_sign.trim().toLowerCase().replace(/^0x/, '');
  if (theirs !== bytesToHex(hash)) refuse(`the service's hash to sign is 0x${theirs}, but the transaction it returned hashes to 0x${bytesToHex(hash)}`);
  const unsignedTx = signingPayload(tx);
  if (!equalBytes(unsignedTx, hexToBytes(created.tx.trim().replace(/^0x/i, '')))) refuse('the transaction is not in canonical form');
  return { tx, unsignedTx, hash, fee: tx.gasLimit * tx.gasPrice };
}
