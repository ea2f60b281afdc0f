// What every route needs: the coin's backend, its USD rate and the number formatting of SEMANTICS.md.
import type { ChainParams, CoinName } from '../../shared/coins/coin-table.ts';
import { isCoinName } from '../../shared/coins/coin-table.ts';
import { addressToScript } from '../../shared/coins/address.ts';
import { bytesToHex } from '../../shared/coins/bytes.ts';
import { Lru } from '../lru.ts';
import { isExactAsNumber, unitsToDecimal } from '../../shared/coins/units.ts';
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
export function parseAddressList(backend: Pick<UtxoBackend, 'params'>, list: string, field = 'addresses'): QueriedAddress[] {
  // One address, the common case (every balance poll), skips the split, the filter and the Map.
  if (!list.includes(',')) {
    const address = list.trim();
    if (address.length === 0) throw badRequest(`${field} is empty`);
    return [{ address, script: decodeRemembered(backend.params, address, field).script }];
  }
  const texts = list.split(',').map((a) => a.trim()).filter((a) => a.length > 0);
  if (texts.length === 0) throw badRequest(`${field} is empty`);
  if (texts.length > MAX_ADDRESSES) throw badRequest(`${field} lists ${texts.length} addresses; at most ${MAX_ADDRESSES} per request`);
  const byScript = new Map<string, QueriedAddress>();
  for (const address of texts) {
    const entry = decodeRemembered(backend.params, address, field);
    if (!byScript.has(entry.hex)) byScript.set(entry.hex, { address, script: entry.script });
  }
  return [...byScript.values()];
}

// Valid addresses are remembered with their script: decoding (two SHA-256 rounds, checks for
// private keys) was a tenth of a balance request's cost, and clients poll the same addresses.
// One cache per backend's parameters, so the key is the address as given, not a string built
// per lookup.
const DECODED_MAX = 20_000;
const decodedByChain = new WeakMap<ChainParams, Lru<string, { script: Uint8Array; hex: string }>>();

function decodeRemembered(params: ChainParams, address: string, field: string): { script: Uint8Array; hex: string } {
  let decoded = decodedByChain.get(params);
  if (!decoded) {
    decoded = new Lru(DECODED_MAX);
    decodedByChain.set(params, decoded);
  }
  let entry = decoded.get(address);
  if (!entry) {
    const script = addressToScript(params, address, field);
    entry = { script, hex: bytesToHex(script) };
    decoded.set(address, entry);
  }
  return entry;
}

/** Maps rows keyed by script back to the address the caller used for it. */
export function addressOfScript(queried: readonly QueriedAddress[]): (script: Uint8Array) => string {
  const map = new Map(queried.map((q) => [bytesToHex(q.script), q.address]));
  return (script) => map.get(bytesToHex(script)) ?? '';
}

// Powers of ten a double holds exactly (10^22 is the last).
const EXACT_POWERS_OF_TEN = [1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22];

/** Smallest units as the decimal number a person reads (exact digits, then one rounding). */
export function human(units: bigint, decimals: number): number {
  const divisor = EXACT_POWERS_OF_TEN[decimals];
  // Both operands exact as doubles: IEEE division rounds the exact quotient once, which is the
  // number the decimal text parses to, without building the text.
  if (divisor !== undefined && isExactAsNumber(units)) return Number(units) / divisor;
  return Number(unitsToDecimal(units, decimals));
}

export function usd(humanAmount: number, rate: number): number {
  return Math.round(humanAmount * rate * 100) / 100;
}
