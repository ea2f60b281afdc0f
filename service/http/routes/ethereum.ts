// Endpoints 11-14: Ether and ERC20 transfers signed by the caller as (r, s, v). Create remembers
// what it chose; sign_and_send rebuilds exactly that transaction, checks who signed, broadcasts.
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { Erc20CreateQuery, Erc20SendQuery, EthereumCreateQuery, EthereumSendQuery, EthereumToSign, SendStatus } from '../../../shared/api/schemas.ts';
import { bytesToHex, hexToBytes } from '../../../shared/coins/bytes.ts';
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
} from '../../../shared/coins/ethereum-tx.ts';
import type { EvmChain } from '../../chains/evm/evm-chain.ts';
import type { PendingCreate } from '../../store/evm-index.ts';
import { ApiError, badRequest } from '../errors.ts';
import { evmBackendFor, type ServiceContext } from '../context.ts';
import { evmAddress } from './evm-address.ts';

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

type CreateInput = { from: string; to: string; amount: bigint; gas_price?: bigint | undefined; gas_limit?: bigint | undefined; contract_id?: string; decimal_places?: number };

async function transferOf(backend: EvmChain, q: CreateInput): Promise<Transfer> {
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

async function create(backend: EvmChain, q: CreateInput) {
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
  return { tx: `0x${bytesToHex(signingPayload(tx))}`, hash_to_sign: `0x${bytesToHex(signingHash(tx))}` };
}

async function signAndSend(backend: EvmChain, q: CreateInput & { r: string; s: string; v: string }) {
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
  return { status_code: 200, message: txid };
}

export function ethereumRoutes(ctx: ServiceContext): FastifyPluginAsync {
  return async (fastify) => {
    const app = fastify.withTypeProvider<ZodTypeProvider>();
    app.post('/ethereum/create/', { schema: { querystring: EthereumCreateQuery, response: { 200: EthereumToSign } } }, async (req) => create(evmBackendFor(ctx), req.query));
    app.post('/ethereum/sign_and_send/', { schema: { querystring: EthereumSendQuery, response: { 200: SendStatus } } }, async (req) =>
      signAndSend(evmBackendFor(ctx), req.query),
    );
    app.post('/erc20/create/', { schema: { querystring: Erc20CreateQuery, response: { 200: EthereumToSign } } }, async (req) => create(evmBackendFor(ctx), req.query));
    app.post('/erc20/sign_and_send/', { schema: { querystring: Erc20SendQuery, response: { 200: SendStatus } } }, async (req) =>
      signAndSend(evmBackendFor(ctx), req.query),
    );
  };
}
