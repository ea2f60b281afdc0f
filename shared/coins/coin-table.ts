/**
 * The coin table resolved: the rows of coin-data.ts, and every per-coin list derived from them.
 * Code elsewhere reads a resolved ChainParams or a row's field and never branches on a coin's name
 * (lint says so), so a later coin is a new row in coin-data.ts.
 */
import {
  COIN_TABLE,
  NETWORK_NAMES,
  VERSION_GROUP_ID,
  type CoinName,
  type ChainIdentity,
  type CoinRow,
  type EvmCoinRow,
  type LedgerAppRow,
  type NetworkName,
  type NetworkUpgrade,
  type RawBlockFormat,
  type SighashAlgorithmName,
  type SpecialTxFormat,
  type TxFormat,
  type UtxoCoinName,
  type UtxoCoinRow,
} from './coin-data.ts';
import { CoinError } from './errors.ts';

export { NETWORK_NAMES, VERSION_GROUP_ID };
export type { ChainIdentity, CoinName, CoinRow, EvmCoinRow, LedgerAppRow, NetworkName, NetworkUpgrade, RawBlockFormat, SighashAlgorithmName, SpecialTxFormat, TxFormat, UtxoCoinName, UtxoCoinRow };
export type { UtxoLedgerAppRow } from './coin-data.ts';

type NonEmpty<T> = readonly [T, ...T[]];
const nonEmpty = <T>(list: readonly T[], what: string): NonEmpty<T> => {
  if (list.length === 0) throw new CoinError(`the coin table has no ${what}`);
  return list as NonEmpty<T>;
};

const rowOf = (coin: CoinName): CoinRow => COIN_TABLE[coin];
const utxoRowOf = (coin: UtxoCoinName): UtxoCoinRow => COIN_TABLE[coin] as UtxoCoinRow;

/** The API enumeration: every coin of the table, in its order. */
export const COIN_NAMES: NonEmpty<CoinName> = nonEmpty(Object.keys(COIN_TABLE) as CoinName[], 'coins');
/** The coins with transparent UTXOs (every coin but ethereum). */
export const UTXO_COIN_NAMES: NonEmpty<UtxoCoinName> = nonEmpty(COIN_NAMES.filter((c): c is UtxoCoinName => rowOf(c).family === 'utxo'), 'UTXO coins');
/** The coins of the EVM family (ethereum). */
export const EVM_COIN_NAMES: readonly CoinName[] = COIN_NAMES.filter((c) => rowOf(c).family === 'evm');
/** UTXO coins with a Ledger app the desk reads xpubs from and signs on. */
export const LEDGER_UTXO_COIN_NAMES: NonEmpty<UtxoCoinName> = nonEmpty(UTXO_COIN_NAMES.filter((c) => utxoRowOf(c).ledger !== null), 'Ledger coins');
/** Coins whose signatures PSBT (BIP174) describes. */
export const PSBT_COIN_NAMES: readonly UtxoCoinName[] = UTXO_COIN_NAMES.filter((c) => utxoRowOf(c).psbt);

/** The whole row of a coin (ticker, decimals, price id, Ledger app, capabilities). */
export function coinRow(coin: CoinName): CoinRow {
  const row = isCoinName(coin) ? rowOf(coin) : undefined;
  if (row === undefined) throw new CoinError(`coin "${String(coin)}" is not supported by this version of Countersign`);
  return row;
}

/** The row of a UTXO coin. */
export function utxoCoinRow(coin: UtxoCoinName): UtxoCoinRow {
  const row = coinRow(coin);
  if (row.family !== 'utxo') throw new CoinError(`${String(coin)} is not a UTXO coin: it has no Bitcoin-style chain parameters`);
  return row;
}

/** Everything code needs to know about one coin on one network. */
export interface ChainParams {
  readonly coin: UtxoCoinName;
  readonly network: NetworkName;
  readonly decimals: number;
  readonly dustLimit: bigint;
  readonly bip44CoinType: number;
  readonly sighashAlgorithm: SighashAlgorithmName;
  /** The hash type byte appended to signatures (0x01, or 0x41 for the fork-id coins). */
  readonly hashType: number;
  /** Fork id of the forkid / legacy-forkid coins; see sighashTypeInDigest. */
  readonly forkId?: number;
  readonly txFormat: TxFormat;
  /** The version of the transactions the service builds (1; zcash 5, zclassic 4). */
  readonly txVersion: number;
  /** The chain's target block interval in seconds (its row's `blockSeconds`): 600 bitcoin, 150 litecoin. */
  readonly blockSeconds: number;
  /** Zcash family: the version group id of txFormat. */
  readonly versionGroupId?: number;
  /** Zcash family: the network upgrade from which txFormat is valid. */
  readonly txFormatSince?: string;
  /** Zcash family: network upgrades in activation order; empty for the others. */
  readonly networkUpgrades: readonly NetworkUpgrade[];
  readonly p2pkhVersion: Uint8Array;
  /** The version P2SH addresses are shown with. */
  readonly p2shVersion: Uint8Array;
  /** Every version accepted for P2SH on input, the shown one first. */
  readonly p2shVersions: readonly Uint8Array[];
  readonly wifVersion: number;
  /** Segwit is active on the coin's chain (its row's `segwit`): P2WSH and P2SH-P2WSH multisig, bech32 addresses. */
  readonly segwit: boolean;
  readonly bech32Hrp?: string;
  /** Bitcoin Cash: the CashAddr prefix ('bitcoincash', 'bchtest', 'bchreg'). */
  readonly cashAddrPrefix?: string;
  readonly xpubVersions: readonly number[];
  readonly xprvVersions: readonly number[];
  /** A special transaction format the chain's transactions may use (Dash DIP2). */
  readonly specialTx?: SpecialTxFormat;
  /** How the index reads the coin's blocks (coin-data.ts RawBlockFormat); absent: verbose JSON. */
  readonly rawBlocks?: RawBlockFormat;
  /** What a node of this coin and network says it follows (chain-identity.ts checks it). */
  readonly identity: ChainIdentity;
}

export function isCoinName(name: string): name is CoinName {
  return Object.hasOwn(COIN_TABLE, name);
}

/** True for every coin of the enumeration that uses transparent UTXOs (all but ethereum). */
export function isUtxoCoin(name: string): name is UtxoCoinName {
  return isCoinName(name) && rowOf(name).family === 'utxo';
}

/** True for the coins of the EVM family (ethereum): accounts, not UTXOs. */
export function isEvmCoin(name: string): boolean {
  return isCoinName(name) && rowOf(name).family === 'evm';
}

/** The UTXO coins whose rows this build carries: every UTXO coin of the table. */
export function implementedUtxoCoins(): UtxoCoinName[] {
  return [...UTXO_COIN_NAMES];
}

/** The resolved row of `coin` on `network`. Fresh byte arrays each call: callers may not share. */
export function chainParams(coin: CoinName, network: NetworkName): ChainParams {
  if (!isUtxoCoin(coin)) {
    throw new CoinError(`${String(coin)} is not a UTXO coin: it has no Bitcoin-style chain parameters`);
  }
  const coinRowOf = utxoRowOf(coin);
  const row = coinRowOf.chain;
  const net = row.networks[network];
  if (net === undefined) throw new CoinError(`unknown network "${String(network)}" (expected mainnet, testnet or regtest)`);
  const p2shVersions = [net.p2sh, ...(net.p2shAlsoAccepted ?? [])].map((v) => Uint8Array.from(v));
  return {
    coin,
    network,
    decimals: coinRowOf.decimals,
    dustLimit: row.dustLimit,
    bip44CoinType: row.bip44CoinType,
    sighashAlgorithm: row.sighash.algorithm,
    hashType: row.sighash.hashType,
    ...(row.sighash.forkId === undefined ? {} : { forkId: row.sighash.forkId }),
    txFormat: row.txFormat,
    txVersion: row.txVersion,
    blockSeconds: row.blockSeconds,
    ...(row.txFormat === 'bitcoin' ? {} : { versionGroupId: VERSION_GROUP_ID[row.txFormat] }),
    ...(row.txFormatSince === undefined ? {} : { txFormatSince: row.txFormatSince }),
    networkUpgrades: (net.upgrades ?? []).map((u) => ({ ...u })),
    p2pkhVersion: Uint8Array.from(net.p2pkh),
    p2shVersion: Uint8Array.from(net.p2sh),
    p2shVersions,
    wifVersion: net.wif,
    segwit: coinRowOf.segwit,
    ...(net.bech32Hrp === undefined ? {} : { bech32Hrp: net.bech32Hrp }),
    ...(net.cashAddrPrefix === undefined ? {} : { cashAddrPrefix: net.cashAddrPrefix }),
    xpubVersions: [...net.xpub],
    xprvVersions: [...net.xprv],
    ...(coinRowOf.specialTx === null ? {} : { specialTx: coinRowOf.specialTx }),
    ...(row.rawBlocks == null ? {} : { rawBlocks: row.rawBlocks }),
    identity: { chains: [...row.identity[network].chains], genesis: [...row.identity[network].genesis] },
  };
}

/** Every implemented (coin, network), resolved: for reverse look-ups in error messages. */
export function allChainParams(): ChainParams[] {
  return implementedUtxoCoins().flatMap((coin) => NETWORK_NAMES.map((network) => chainParams(coin, network)));
}

/** "litecoin", "litecoin testnet": how a treasurer names a (coin, network). */
export function describeChain(params: Pick<ChainParams, 'coin' | 'network'>): string {
  return params.network === 'mainnet' ? params.coin : `${params.coin} ${params.network}`;
}

/**
 * The 32-bit hash type a digest commits to: the appended byte, with the fork id in bits 8..31
 * for the fork-id coins (bitcoin_cash 0x00000041, bitcoin_gold 0x00004F41, bitcoin_private
 * 0x00002A41). A signature made for another fork id hashes differently: that is the replay
 * protection.
 */
export function sighashTypeInDigest(params: Pick<ChainParams, 'hashType' | 'forkId'>): number {
  return params.forkId === undefined ? params.hashType : ((params.forkId << 8) | params.hashType) >>> 0;
}

/**
 * The network upgrade in force for a block at `height` (zcashd's CurrentEpoch). A transaction is
 * valid only in blocks of its upgrade, so pass the height of the block it should enter: the tip
 * height + 1.
 */
export function activeNetworkUpgrade(params: Pick<ChainParams, 'coin' | 'network' | 'networkUpgrades'>, height: number): NetworkUpgrade {
  if (params.networkUpgrades.length === 0) {
    throw new CoinError(`${describeChain(params)} has no network upgrades: its transactions carry no consensus branch id`);
  }
  if (!Number.isInteger(height) || height < 0) throw new CoinError(`block height must be a non-negative integer, got ${height}`);
  let active: NetworkUpgrade | undefined;
  for (const upgrade of params.networkUpgrades) if (height >= upgrade.activationHeight) active = upgrade;
  if (active === undefined) {
    throw new CoinError(`${describeChain(params)} at height ${height} is before its first network upgrade: no transaction of this service is valid there`);
  }
  return active;
}

/** The consensus branch id of the upgrade in force at `height` (see activeNetworkUpgrade). */
export function consensusBranchId(params: Pick<ChainParams, 'coin' | 'network' | 'networkUpgrades'>, height: number): number {
  return activeNetworkUpgrade(params, height).branchId;
}

/** The branch id of the network's newest upgrade: what a chain past all its upgrades uses. */
export function latestConsensusBranchId(params: Pick<ChainParams, 'coin' | 'network' | 'networkUpgrades'>): number {
  const last = params.networkUpgrades[params.networkUpgrades.length - 1];
  if (last === undefined) {
    throw new CoinError(`${describeChain(params)} has no network upgrades: its transactions carry no consensus branch id`);
  }
  return last.branchId;
}

/** Every WIF version byte in the table, plus the well-known ones of coins not implemented yet. */
export function knownWifVersions(): Set<number> {
  const set = new Set<number>([0x80, 0xef]);
  for (const coin of UTXO_COIN_NAMES) {
    for (const net of Object.values(utxoRowOf(coin).chain.networks)) set.add(net.wif);
  }
  return set;
}

/** Every extended private key version in the table. */
export function knownXprvVersions(): Set<number> {
  const set = new Set<number>();
  for (const coin of UTXO_COIN_NAMES) {
    for (const net of Object.values(utxoRowOf(coin).chain.networks)) for (const v of net.xprv) set.add(v);
  }
  return set;
}
