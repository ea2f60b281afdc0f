// What the use cases are handed: each served coin's backend and the USD rate. The HTTP layer
// holds one and passes its parts to the use cases it calls.
import type { CoinName } from '../../shared/coins/coin-table.ts';
import { isCoinName } from '../../shared/coins/coin-table.ts';
import { quoted } from '../../shared/coins/errors.ts';
import type { ProvisionalGate, UtxoBackend } from '../chains/backend.ts';
import type { BlockTimes } from '../chains/block-times.ts';
import type { EvmChain } from '../chains/evm/evm-chain.ts';
import { notFound } from '../errors.ts';
import { ownerOf } from './watch-wallets.ts';

/** USD per whole coin from the shared price cache; 0 when unknown or the source fails (never throws). */
export type UsdRate = (coin: CoinName) => Promise<number>;

export interface ServiceContext {
  utxo: ReadonlyMap<CoinName, UtxoBackend>;
  evm?: EvmChain | null;
  usdRate: UsdRate;
  /** USD per whole coin on the UTC day of a unix time; null when unknown (never throws). Absent: no rates. */
  usdRateAt?: (coin: CoinName, at: number) => Promise<number | null>;
  /** Block times per coin, where its backend tells them (a node): GET /blocks/{coin}/height_at. */
  blockTimes?: ReadonlyMap<CoinName, BlockTimes>;
}

/** The backend of a coin named in a request; a 404 for a name that is no coin or not served here. */
export function utxoBackendFor(ctx: Pick<ServiceContext, 'utxo'>, coin: string): UtxoBackend {
  if (!isCoinName(coin)) throw notFound(`unknown coin ${quoted(coin)}: expected one of the API's coins (bitcoin, testnet3, litecoin, dash, ...)`);
  const backend = ctx.utxo.get(coin);
  if (!backend) throw notFound(`coin ${coin} is not served by this deployment`);
  const refused = backend.refusedChain?.();
  if (refused) throw refused; // its upstream follows another chain: nothing of it is served
  return backend;
}

/**
 * The coin's backend for an address query or a payment by the API key `apiKeyId` (null without
 * keys): in watch mode it answers only for the wallets that key registered (docs/api-decisions.md §11),
 * and for a wallet whose own scan is running only as `gate` lets it (503, or provisional). No gate:
 * nothing provisional is taken.
 */
export function utxoBackendAs(ctx: Pick<ServiceContext, 'utxo'>, coin: string, apiKeyId: string | null, gate?: ProvisionalGate | null): UtxoBackend {
  const backend = utxoBackendFor(ctx, coin);
  return backend.forOwner ? backend.forOwner(ownerOf(apiKeyId), gate ?? undefined) : backend;
}

export function evmBackendFor(ctx: Pick<ServiceContext, 'evm'>): EvmChain {
  if (!ctx.evm) throw notFound('coin ethereum is not served by this deployment');
  return ctx.evm;
}
