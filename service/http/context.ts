// What every route needs: the coin's backend, its USD rate and the number formatting of SEMANTICS.md.
import type { CoinName } from '../../shared/coins/coin-table.ts';
import { isCoinName } from '../../shared/coins/coin-table.ts';
import { addressToScript } from '../../shared/coins/address.ts';
import { bytesToHex } from '../../shared/coins/bytes.ts';
import { Lru } from '../lru.ts';
import { unitsToDecimal } from '../../shared/coins/units.ts';
import type { UtxoBackend } from '../chains/backend.ts';
import type { EvmChain } from '../chains/evm/evm-chain.ts';
import { badRequest, notFound } from './errors.ts';

export interface ServiceContext {
  utxo: ReadonlyMap<CoinName, UtxoBackend>;
  evm?: EvmChain | null;
  /** USD per whole coin from the shared price cache; 0 when unknown or the source fails (never throws). */
  usdRate(coin: CoinName): Promise<number>;
}

export const MAX_ADDRESSES = 200;

export function utxoBackendFor(ctx: ServiceContext, coin: string): UtxoBackend {
  if (!isCoinName(coin)) throw notFound(`unknown coin "${coin}": expected one of the API's coins (bitcoin, testnet3, litecoin, dash, ...)`);
  const backend = ctx.utxo.get(coin);
  if (!backend) throw notFound(`coin ${coin} is not served by this deployment`);
  return backend;
}

export function evmBackendFor(ctx: ServiceContext): EvmChain {
  if (!ctx.evm) throw notFound('coin ethereum is not served by this deployment');
  return ctx.evm;
}

export interface QueriedAddress {
  address: string;
  script: Uint8Array;
}

/**
 * Splits, trims, validates and de-duplicates a comma-separated address list, with the script each
 * pays to (the index is keyed by script; two renderings of one script count once).
 */
// Valid addresses are remembered with their script: decoding (two SHA-256 rounds, checks for
// private keys) was a tenth of a balance request's cost, and clients poll the same addresses.
const decoded = new Lru<string, { script: Uint8Array; hex: string }>(20_000);

export function parseAddressList(backend: UtxoBackend, list: string, field = 'addresses'): QueriedAddress[] {
  const texts = list.split(',').map((a) => a.trim()).filter((a) => a.length > 0);
  if (texts.length === 0) throw badRequest(`${field} is empty`);
  if (texts.length > MAX_ADDRESSES) throw badRequest(`${field} lists ${texts.length} addresses; at most ${MAX_ADDRESSES} per request`);
  const byScript = new Map<string, QueriedAddress>();
  const { coin, network } = backend.params;
  for (const address of texts) {
    const cacheKey = `${coin}/${network}/${address}`;
    let entry = decoded.get(cacheKey);
    if (!entry) {
      const script = addressToScript(backend.params, address, field);
      entry = { script, hex: bytesToHex(script) };
      decoded.set(cacheKey, entry);
    }
    if (!byScript.has(entry.hex)) byScript.set(entry.hex, { address, script: entry.script });
  }
  return [...byScript.values()];
}

/** Maps rows keyed by script back to the address the caller used for it. */
export function addressOfScript(queried: readonly QueriedAddress[]): (script: Uint8Array) => string {
  const map = new Map(queried.map((q) => [bytesToHex(q.script), q.address]));
  return (script) => map.get(bytesToHex(script)) ?? '';
}

/** Smallest units as the decimal number a person reads (exact digits, then one rounding). */
export function human(units: bigint, decimals: number): number {
  return Number(unitsToDecimal(units, decimals));
}

export function usd(humanAmount: number, rate: number): number {
  return Math.round(humanAmount * rate * 100) / 100;
}
