import { bech32, bech32m } from '@scure/base';
import { base58checkEncode, tryDecodeBase58Check } from './base58.ts';
import { bytesToHex, equalBytes } from './bytes.ts';
import { decodeCashAddr, encodeCashAddr, looksLikeCashAddr } from './cashaddr.ts';
import { allChainParams, describeChain } from './coin-table.ts';
import type { ChainParams, NetworkName, UtxoCoinName } from './coin-table.ts';
import { CoinError, quoted } from './errors.ts';
import { hash160 } from './hash.ts';
import { refusePrivateKey } from './keys.ts';
import { classifyOutputScript, p2pkhScript, p2shScript, witnessScript } from './script.ts';
import type { OutputScriptType } from './script.ts';

export type AddressType = OutputScriptType;

/** An address, as what it pays to: the hash (or witness program / taproot key) and its kind. */
export interface DecodedAddress {
  readonly type: AddressType;
  readonly hash: Uint8Array;
}

/** BIP350 limit on the length of a segwit address. */
const SEGWIT_ADDRESS_MAX = 90;
/** Largest redeem script P2SH can spend (consensus push limit). */
const MAX_REDEEM_SCRIPT = 520;

const WITNESS_VERSION: Record<'p2wpkh' | 'p2wsh' | 'p2tr', number> = { p2wpkh: 0, p2wsh: 0, p2tr: 1 };
const HASH_LENGTH: Record<AddressType, number> = { p2pkh: 20, p2sh: 20, p2wpkh: 20, p2wsh: 32, p2tr: 32 };

export function encodeAddress(params: ChainParams, address: DecodedAddress): string {
  const { type, hash } = address;
  if (hash.length !== HASH_LENGTH[type]) {
    throw new CoinError(`a ${type} address needs a ${HASH_LENGTH[type]}-byte hash, got ${hash.length}`);
  }
  // Bitcoin Cash shows CashAddr; its legacy form is still accepted on input.
  if (params.cashAddrPrefix !== undefined && (type === 'p2pkh' || type === 'p2sh')) return encodeCashAddr(params.cashAddrPrefix, type, hash);
  if (type === 'p2pkh') return base58checkEncode(params.p2pkhVersion, hash);
  if (type === 'p2sh') return base58checkEncode(params.p2shVersion, hash);
  const hrp = segwitHrp(params);
  if (hrp === undefined) {
    throw new CoinError(`${describeChain(params)} has no segwit (${type}) addresses`);
  }
  const version = WITNESS_VERSION[type];
  const words = [version, ...bech32.toWords(hash)];
  return version === 0 ? bech32.encode(hrp, words) : bech32m.encode(hrp, words);
}

/** The bech32 prefix of a network whose coin has segwit (its row's `segwit`), else undefined. */
function segwitHrp(params: ChainParams): string | undefined {
  return params.segwit ? params.bech32Hrp : undefined;
}

function owners(match: (p: ChainParams) => boolean, params: ChainParams): { coin: UtxoCoinName; network: NetworkName }[] {
  const all = allChainParams().filter((p) => match(p) && !(p.coin === params.coin && p.network === params.network));
  const sameCoin = all.filter((p) => p.coin === params.coin);
  return sameCoin.length > 0 ? sameCoin : all;
}

/** "bitcoin testnet/regtest", "testnet3, litecoin testnet/regtest": whose address this is. */
function describeOwners(list: { coin: UtxoCoinName; network: NetworkName }[]): string {
  const byCoin = new Map<UtxoCoinName, NetworkName[]>();
  for (const o of list) byCoin.set(o.coin, [...(byCoin.get(o.coin) ?? []), o.network]);
  const labels = [...byCoin].map(([coin, nets]) => (nets.includes('mainnet') ? coin : `${coin} ${nets.join('/')}`));
  return labels.join(', ');
}

function invalid(params: ChainParams, text: string, reason: string, field?: string): CoinError {
  const where = field === undefined ? '' : `${field}: `;
  return new CoinError(`${where}address ${quoted(text)} is not a valid ${describeChain(params)} address: ${reason}`, field);
}

function decodeSegwit(params: ChainParams, text: string, field?: string): DecodedAddress | null {
  if (text !== text.toLowerCase() && text !== text.toUpperCase()) return null;
  const v0 = bech32.decodeUnsafe(text, SEGWIT_ADDRESS_MAX);
  const v1 = v0 ? undefined : bech32m.decodeUnsafe(text, SEGWIT_ADDRESS_MAX);
  const decoded = v0 ?? v1;
  if (!decoded) return null;
  const prefix = decoded.prefix.toLowerCase();
  const hrp = segwitHrp(params);
  if (prefix !== hrp) {
    const others = owners((p) => segwitHrp(p) === prefix, params);
    if (others.length > 0) throw invalid(params, text, `it is a ${describeOwners(others)} segwit address`, field);
    // A well-formed bech32 string whose prefix no coin here uses: say so rather than a base58 error.
    const expected = hrp === undefined ? `${describeChain(params)} has no segwit addresses` : `${describeChain(params)} segwit addresses start with "${hrp}1"`;
    throw invalid(params, text, `its segwit prefix "${prefix}" belongs to no coin of this service (${expected})`, field);
  }
  const [version, ...rest] = decoded.words;
  const program = bech32.fromWordsUnsafe(rest);
  if (version === undefined || !program) throw invalid(params, text, 'the segwit data is malformed', field);
  if ((version === 0) !== (v0 !== undefined)) {
    throw invalid(params, text, `bad checksum (witness version ${version} must use ${version === 0 ? 'bech32' : 'bech32m'})`, field);
  }
  if (version === 0 && program.length === 20) return { type: 'p2wpkh', hash: program };
  if (version === 0 && program.length === 32) return { type: 'p2wsh', hash: program };
  if (version === 1 && program.length === 32) return { type: 'p2tr', hash: program };
  throw invalid(params, text, `witness version ${version} with a ${program.length}-byte program is not supported`, field);
}

/**
 * Validates an address for one coin and network and says what it pays to. Errors name the
 * failure a treasurer can act on: a typo (checksum), or an address of another coin or network.
 */
export function decodeAddress(params: ChainParams, text: string, field?: string): DecodedAddress {
  refusePrivateKey(text, field);
  if (text.length === 0) throw invalid(params, text, 'it is empty', field);
  if (text.trim() !== text) throw invalid(params, text, 'it has leading or trailing whitespace', field);

  const cash = decodeCashAddrFor(params, text, field);
  if (cash) return cash;

  // bech32 strings contain "1" after the prefix and may contain characters base58 lacks (0, l).
  const segwit = decodeSegwit(params, text, field);
  if (segwit) return segwit;
  const hrp = segwitHrp(params);
  if (hrp !== undefined && text.toLowerCase().startsWith(`${hrp}1`)) {
    throw invalid(params, text, 'bad segwit checksum, mixed case or invalid characters (a character is mistyped or missing)', field);
  }

  const r = tryDecodeBase58Check(text);
  if (!r.ok) throw invalid(params, text, r.reason, field);
  const data = r.data;
  const vlen = params.p2pkhVersion.length;
  const version = data.subarray(0, vlen);
  if (data.length === vlen + 20) {
    const hash = data.slice(vlen);
    if (equalBytes(version, params.p2pkhVersion)) return { type: 'p2pkh', hash };
    if (params.p2shVersions.some((v) => equalBytes(v, version))) return { type: 'p2sh', hash };
  }
  const fits = (v: Uint8Array): boolean => data.length === v.length + 20 && equalBytes(data.subarray(0, v.length), v);
  const others = owners((p) => fits(p.p2pkhVersion) || p.p2shVersions.some(fits), params);
  if (others.length > 0) throw invalid(params, text, `it is a ${describeOwners(others)} address`, field);
  if (data.length !== vlen + 20) throw invalid(params, text, `wrong length (${data.length} bytes decoded)`, field);
  throw invalid(params, text, `unknown version 0x${bytesToHex(version)}`, field);
}

/** CashAddr on a coin that has it; on others, a clear "this is a Bitcoin Cash address". */
function decodeCashAddrFor(params: ChainParams, text: string, field?: string): DecodedAddress | null {
  const prefix = params.cashAddrPrefix;
  if (prefix !== undefined && (text.includes(':') || looksLikeCashAddr(text))) {
    const r = decodeCashAddr(text, prefix);
    if (r.ok && r.prefix === prefix) return { type: r.type, hash: r.hash };
    if (r.ok) {
      const others = owners((p) => p.cashAddrPrefix === r.prefix, params);
      throw invalid(params, text, others.length ? `it is a ${describeOwners(others)} address` : `unknown prefix "${r.prefix}"`, field);
    }
    if (text.includes(':')) throw invalid(params, text, r.reason, field);
    return null; // maybe a legacy address after all
  }
  if (prefix === undefined && looksLikeCashAddr(text)) {
    const others = owners((p) => p.cashAddrPrefix !== undefined && decodeCashAddr(text, p.cashAddrPrefix).ok, params);
    if (others.length > 0) throw invalid(params, text, `it is a ${describeOwners(others)} address`, field);
  }
  return null;
}

export function isValidAddress(params: ChainParams, text: string): boolean {
  try {
    decodeAddress(params, text);
    return true;
  } catch {
    return false;
  }
}

export function decodedAddressToScript(address: DecodedAddress): Uint8Array {
  switch (address.type) {
    case 'p2pkh':
      return p2pkhScript(address.hash);
    case 'p2sh':
      return p2shScript(address.hash);
    case 'p2wpkh':
    case 'p2wsh':
    case 'p2tr':
      return witnessScript(WITNESS_VERSION[address.type], address.hash);
  }
}

/** The scriptPubKey an address pays to. */
export function addressToScript(params: ChainParams, text: string, field?: string): Uint8Array {
  return decodedAddressToScript(decodeAddress(params, text, field));
}

/**
 * The address a scriptPubKey is shown as on this coin and network, rendered with the table's
 * own prefixes (never the node's); null for scripts without an address form here.
 */
export function scriptToAddress(params: ChainParams, script: Uint8Array): string | null {
  const c = classifyOutputScript(script);
  if (c.type === 'other') return null;
  // Segwit v0 (P2WPKH, P2WSH) as bech32 and v1 (taproot) as bech32m, where the coin has segwit.
  if (c.type !== 'p2pkh' && c.type !== 'p2sh' && segwitHrp(params) === undefined) return null;
  return encodeAddress(params, c);
}

export function p2pkhAddressOfPublicKey(params: ChainParams, pubkey: Uint8Array): string {
  if (pubkey.length !== 33) throw new CoinError(`a public key must be 33 bytes (compressed), got ${pubkey.length}`);
  return encodeAddress(params, { type: 'p2pkh', hash: hash160(pubkey) });
}

export function p2shAddressOfRedeemScript(params: ChainParams, redeemScript: Uint8Array): string {
  if (redeemScript.length > MAX_REDEEM_SCRIPT) {
    throw new CoinError(`redeem script is ${redeemScript.length} bytes; P2SH allows at most ${MAX_REDEEM_SCRIPT}`);
  }
  return encodeAddress(params, { type: 'p2sh', hash: hash160(redeemScript) });
}
