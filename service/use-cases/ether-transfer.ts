// Endpoints 11-14: Ether and ERC20 transfers signed by the caller as (r, s, v). Create remembers
// what it chose; sign-and-send rebuilds exactly that transaction, checks who signed, broadcasts.
import { bytesToHex, hexToBytes } from '../../shared/coins/bytes.ts';
import {
  erc20TransferData,
  gweiToWei,
  normaliseSignature,
  recoverSender,
  serializeSigned,
  signingHash,
  signingPayload,
  tokenGweiToRaw,
  transactionHash,
  type LegacyTx,
} from '../../shared/coins/ethereum-tx.ts';
import type { EvmChain, PendingCreate } from '../chains/evm/evm-chain.ts';
import { ApiError, badRequest } from '../errors.ts';
import { evmAddress } from './address-list.ts';

const ETHER_GAS_LIMIT = 21_000n;

interface Transfer {
  from: string;
  to: string;
  /** '' for Ether */
  token: string;
  /** as the caller gave it: GWEI (of the token) */
  amount: bigint;
  txTo: string;
  value: bigint;
  data: Uint8Array;
}

export type TransferRequest = { from: string; to: string; amount: bigint; gas_price?: bigint | undefined; gas_limit?: bigint | undefined; contract_id?: string; decimal_places?: number };

async function transferOf(backend: EvmChain, q: TransferRequest): Promise<Transfer> {
  const from = evmAddress(q.from, 'from');
  const to = evmAddress(q.to, 'to');
  if (q.contract_id === undefined) return { from, to, token: '', amount: q.amount, txTo: to, value: gweiToWei(q.amount), data: new Uint8Array(0) };
  const token = evmAddress(q.contract_id, 'contract_id');
  const raw = tokenGweiToRaw(q.amount, q.decimal_places ?? 18);
  await backend.requireContract(token);
  return { from, to, token, amount: q.amount, txTo: token, value: 0n, data: erc20TransferData(hexToBytes(to.slice(2)), raw) };
}

function legacyTx(t: Transfer, p: PendingCreate): LegacyTx {
  return { nonce: p.nonce, gasPrice: p.gasPrice, gasLimit: p.gasLimit, to: hexToBytes(t.txTo.slice(2)), value: t.value, data: t.data, chainId: p.chainId };
}

/** The unsigned transaction (its RLP signing payload) and the hash the sender signs. */
export interface TransferToSign {
  payload: Uint8Array;
  hash: Uint8Array;
}

/**
 * Chooses nonce, gas price and gas limit for an Ether or ERC20 transfer and remembers them, so
 * that sign-and-send rebuilds exactly the transaction whose hash is returned.
 */
export async function createTransfer(backend: EvmChain, q: TransferRequest): Promise<TransferToSign> {
  const t = await transferOf(backend, q);
  const [chainId, nonce, gasPrice] = await Promise.all([backend.chainId(), backend.pendingNonce(t.from), q.gas_price ?? backend.gasPrice()]);
  let gasLimit = q.gas_limit;
  if (gasLimit === undefined) {
    gasLimit = t.token === '' ? ETHER_GAS_LIMIT : await backend.estimateGas({ from: t.from, to: t.txTo, value: t.value, data: `0x${bytesToHex(t.data)}` }).catch((err: unknown) => {
      // The node estimates by running the transfer: a revert means it would fail (balance, paused).
      throw new ApiError(422, `the node cannot estimate gas for this transfer, it would fail: ${err instanceof Error ? err.message : String(err)}`);
    });
  }
  const pending: PendingCreate = { from: t.from, to: t.to, token: t.token, amount: t.amount, nonce, gasPrice, gasLimit, chainId };
  await backend.pendingCreates.savePending(pending);
  const tx = legacyTx(t, pending);
  return { payload: signingPayload(tx), hash: signingHash(tx) };
}

/**
 * Rebuilds the transfer create chose, checks that "from" signed its hash, broadcasts it and
 * forgets it. Resolves to the txid.
 */
export async function signAndSendTransfer(backend: EvmChain, q: TransferRequest & { r: string; s: string; v: string }): Promise<string> {
  const t = await transferOf(backend, q);
  const what = `${t.token === '' ? 'Ether' : `token ${t.token}`} transfer of ${t.amount} GWEI from ${t.from} to ${t.to}`;
  const pending = await backend.pendingCreates.pending(t);
  if (!pending) throw new ApiError(409, `nothing pending for this ${what}: call create first (or it was already sent)`);
  if ((q.gas_price !== undefined && q.gas_price !== pending.gasPrice) || (q.gas_limit !== undefined && q.gas_limit !== pending.gasLimit)) {
    throw new ApiError(409, `gas_price/gas_limit differ from what create chose (${pending.gasPrice} wei, ${pending.gasLimit} gas): call create again`);
  }
  const tx = legacyTx(t, pending);
  const hash = signingHash(tx);
  const sig = normaliseSignature(q.r, q.s, q.v, pending.chainId);
  const signer = recoverSender(hash, sig);
  if (signer === null) throw badRequest(`the signature (r, s, v) does not recover any key over hash 0x${bytesToHex(hash)}`);
  if (signer.toLowerCase() !== t.from) {
    throw badRequest(`the signature was made by ${signer}, not by "from" ${t.from}, or over another hash than 0x${bytesToHex(hash)}`);
  }
  const nonceNow = await backend.pendingNonce(t.from);
  if (nonceNow > pending.nonce) {
    await backend.pendingCreates.deletePending(t);
    throw new ApiError(409, `nonce ${pending.nonce} of ${t.from} was used by another transaction since create: call create again and sign the new hash`);
  }
  const raw = serializeSigned(tx, sig);
  const txid = (await backend.broadcast(raw)) || transactionHash(raw);
  await backend.pendingCreates.deletePending(t);
  return txid;
}
