// Address lists as requests give them (comma-separated text) read into what the backends take:
// scripts for the UTXO coins, lower-case 0x hex for ethereum. Invalid or too many is a 400.
import type { ChainParams } from '../../shared/coins/coin-table.ts';
import { addressToScript } from '../../shared/coins/address.ts';
import { bytesToHex } from '../../shared/coins/bytes.ts';
import { parseEthereumAddress } from '../../shared/coins/ethereum-address.ts';
import { Lru } from '../lru.ts';
import type { UtxoBackend } from '../chains/backend.ts';
import { badRequest } from '../errors.ts';

export const MAX_ADDRESSES = 200;

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

export interface QueriedEvmAddress {
  address: string;
  lower: string;
}

/** Lower-case 0x hex of a validated address (the index and the node take this form). */
export function evmAddress(text: string, field: string): string {
  return `0x${bytesToHex(parseEthereumAddress(text, field))}`;
}

export function parseEvmAddressList(list: string, field = 'addresses'): QueriedEvmAddress[] {
  const texts = list.split(',').map((a) => a.trim()).filter((a) => a.length > 0);
  if (texts.length === 0) throw badRequest(`${field} is empty`);
  if (texts.length > MAX_ADDRESSES) throw badRequest(`${field} lists ${texts.length} addresses; at most ${MAX_ADDRESSES} per request`);
  const byLower = new Map<string, QueriedEvmAddress>();
  for (const address of texts) {
    const lower = evmAddress(address, field);
    if (!byLower.has(lower)) byLower.set(lower, { address, lower });
  }
  return [...byLower.values()];
}
