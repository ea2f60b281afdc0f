/**
 * The coin table: every per-coin constant lives here, as data. Code elsewhere reads a resolved
 * ChainParams and never branches on a coin's name, so a later coin is a new row (plus, for a new
 * address format or signature hash, a new module registered by name).
 *
 * Sources: each coin's chainparams.cpp (Bitcoin Core, Litecoin Core, Dash Core, Bitcoin Cash Node,
 * BTCGPU, BitcoinPrivate, zcashd and Zebra, Zclassic), consensus/upgrades.cpp for the Zcash-family
 * branch ids, and docs/api-decisions.md.
 */
import { CoinError } from './errors.ts';

/** The API enumeration: fixed, whatever this build implements. */
export const COIN_NAMES = [
  'bitcoin',
  'testnet3',
  'litecoin',
  'bitcoin_cash',
  'bitcoin_gold',
  'dash',
  'zcash',
  'zclassic',
  'bitcoin_private',
  'ethereum',
] as const;
export type CoinName = (typeof COIN_NAMES)[number];

export type UtxoCoinName = Exclude<CoinName, 'ethereum'>;

/** A deployment runs a coin against one of these (docs/api-decisions.md: a backend setting, not a coin). */
export const NETWORK_NAMES = ['mainnet', 'testnet', 'regtest'] as const;
export type NetworkName = (typeof NETWORK_NAMES)[number];

/**
 * Signature-hash algorithms, by name; sighash/index.ts maps each name to its module.
 * - legacy: Bitcoin's original digest (double SHA-256 of a modified transaction copy).
 * - forkid: the BIP143-style digest with the input amount, hash type (forkId << 8) | type.
 * - legacy-forkid: the legacy digest, but with the 32-bit (forkId << 8) | type hashed in.
 * - zip243: Zcash Sapling-era v4 digest (BLAKE2b, personalised with the branch id).
 * - zip244: Zcash NU5 v5 digest (BLAKE2b tree, commits to every input's amount and script).
 */
export type SighashAlgorithmName = 'legacy' | 'forkid' | 'legacy-forkid' | 'zip243' | 'zip244';

/**
 * Transaction serializations. 'zcash-v4' is Sapling's overwintered v4 (version group 0x892F2085);
 * 'zcash-v5' is NU5's v5 (ZIP-225: version group 0x26A7270A, consensus branch id in the header).
 */
export type TxFormat = 'bitcoin' | 'zcash-v4' | 'zcash-v5';

/** The version group id each overwintered format carries (ZIP-202, ZIP-225). */
export const VERSION_GROUP_ID: Readonly<Record<Exclude<TxFormat, 'bitcoin'>, number>> = {
  'zcash-v4': 0x892f2085,
  'zcash-v5': 0x26a7270a,
};

/** A Zcash-family network upgrade: from `activationHeight` on, transactions carry `branchId`. */
export interface NetworkUpgrade {
  readonly name: string;
  readonly activationHeight: number;
  readonly branchId: number;
}

/** One network of one coin, as stored in the table. */
interface NetworkRow {
  /** base58 version of P2PKH addresses (1 or 2 bytes). */
  readonly p2pkh: readonly number[];
  /** base58 version P2SH addresses are shown with. */
  readonly p2sh: readonly number[];
  /** Further P2SH versions accepted on input (e.g. litecoin's legacy "3" addresses). */
  readonly p2shAlsoAccepted?: readonly (readonly number[])[];
  /** WIF version byte: recognises private keys pasted where they do not belong. */
  readonly wif: number;
  /** Segwit human-readable part, when the network has bech32 addresses. */
  readonly bech32Hrp?: string;
  /** CashAddr prefix (Bitcoin Cash): the form addresses are shown in. */
  readonly cashAddrPrefix?: string;
  /** Accepted extended public key versions; the first is the one shown. */
  readonly xpub: readonly number[];
  /** Extended private key versions: recognised only to refuse them. */
  readonly xprv: readonly number[];
  /** Zcash family: network upgrades in activation order (branch ids by height). */
  readonly upgrades?: readonly NetworkUpgrade[];
}

interface SighashRow {
  readonly algorithm: SighashAlgorithmName;
  /** The byte appended to signatures. */
  readonly hashType: number;
  /** forkid / legacy-forkid: shifted into bits 8..31 of the hash type the digest commits to. */
  readonly forkId?: number;
}

interface UtxoCoinRow {
  readonly decimals: number;
  readonly dustLimit: bigint;
  readonly bip44CoinType: number;
  readonly sighash: SighashRow;
  readonly txFormat: TxFormat;
  readonly txVersion: number;
  /** Zcash family: the upgrade from which `txFormat` is valid (earlier heights cannot use it). */
  readonly txFormatSince?: string;
  readonly networks: Readonly<Record<NetworkName, NetworkRow>>;
}

const XPUB = 0x0488b21e;
const XPRV = 0x0488ade4;
const TPUB = 0x043587cf;
const TPRV = 0x04358394;

const BITCOIN_TESTNET: NetworkRow = { p2pkh: [0x6f], p2sh: [0xc4], wif: 0xef, bech32Hrp: 'tb', xpub: [TPUB], xprv: [TPRV] };
const BITCOIN_REGTEST: NetworkRow = { ...BITCOIN_TESTNET, bech32Hrp: 'bcrt' };

const LITECOIN_TEST: Omit<NetworkRow, 'bech32Hrp'> = {
  p2pkh: [0x6f],
  p2sh: [0x3a],
  p2shAlsoAccepted: [[0xc4]],
  wif: 0xef,
  xpub: [TPUB],
  xprv: [TPRV],
};

const DASH_TEST: NetworkRow = {
  p2pkh: [0x8c],
  p2sh: [0x13],
  wif: 0xef,
  xpub: [TPUB],
  xprv: [TPRV],
};

/** Test networks of the forks of Bitcoin keep Bitcoin's testnet versions. */
const FORK_TEST: NetworkRow = { p2pkh: [0x6f], p2sh: [0xc4], wif: 0xef, xpub: [TPUB], xprv: [TPRV] };

/** Zcash and Zclassic share their t-address versions: tm... (0x1D25) and t2... (0x1CBA) off mainnet. */
const ZCASH_MAIN: Omit<NetworkRow, 'upgrades'> = { p2pkh: [0x1c, 0xb8], p2sh: [0x1c, 0xbd], wif: 0x80, xpub: [XPUB], xprv: [XPRV] };
const ZCASH_TEST: Omit<NetworkRow, 'upgrades'> = { p2pkh: [0x1d, 0x25], p2sh: [0x1c, 0xba], wif: 0xef, xpub: [TPUB], xprv: [TPRV] };

/** Branch ids (zcashd consensus/upgrades.cpp; NU6.3 from Zebra, which alone implements it). */
const OVERWINTER = 0x5ba81b19;
const SAPLING = 0x76b809bb;
const ZCASH_BRANCH_IDS: readonly (readonly [string, number])[] = [
  ['Overwinter', OVERWINTER],
  ['Sapling', SAPLING],
  ['Blossom', 0x2bb40e60],
  ['Heartwood', 0xf5b9230b],
  ['Canopy', 0xe9ff75a6],
  ['NU5', 0xc2d6d0b4],
  ['NU6', 0xc8e71055],
  ['NU6.1', 0x4dec4df0],
  ['NU6.2', 0x5437f330],
  ['NU6.3', 0x37a5165b],
];

function upgradesAt(ids: readonly (readonly [string, number])[], heights: readonly number[]): NetworkUpgrade[] {
  return ids.map(([name, branchId], i) => ({ name, branchId, activationHeight: heights[i] ?? 1 }));
}

// Heights: zcashd chainparams.cpp (to NU6.2) and Zebra parameters/constants.rs (NU6.1..NU6.3).
const ZCASH_MAINNET_UPGRADES = upgradesAt(ZCASH_BRANCH_IDS, [347_500, 419_200, 653_600, 903_000, 1_046_400, 1_687_104, 2_726_400, 3_146_400, 3_364_600, 3_428_143]);
const ZCASH_TESTNET_UPGRADES = upgradesAt(ZCASH_BRANCH_IDS, [207_500, 280_000, 584_000, 903_800, 1_028_500, 1_842_420, 2_976_000, 3_536_500, 4_052_000, 4_134_000]);
/** Regtest nodes in our tests are started with every upgrade active from height 1. */
const ZCASH_REGTEST_UPGRADES = upgradesAt(ZCASH_BRANCH_IDS, []);

// Zclassic (ZclassicCommunity/zclassic consensus/upgrades.cpp, chainparams.cpp). Its "DiffAdj"
// upgrade is named Bubbly there and already carries Buttercup's branch id.
const BUBBLES = 0x821a451c;
const BUTTERCUP = 0x930b540d;
const ZCLASSIC_MAINNET_UPGRADES: NetworkUpgrade[] = [
  { name: 'Overwinter', activationHeight: 476_969, branchId: OVERWINTER },
  { name: 'Sapling', activationHeight: 476_969, branchId: SAPLING },
  { name: 'Bubbles', activationHeight: 585_318, branchId: BUBBLES },
  { name: 'Bubbly', activationHeight: 585_322, branchId: BUTTERCUP },
  { name: 'Buttercup', activationHeight: 707_000, branchId: BUTTERCUP },
];
const ZCLASSIC_TESTNET_UPGRADES: NetworkUpgrade[] = [
  { name: 'Overwinter', activationHeight: 20, branchId: OVERWINTER },
  { name: 'Sapling', activationHeight: 20, branchId: SAPLING },
  { name: 'Bubbles', activationHeight: 6_350, branchId: BUBBLES },
  // Bubbly never activates on Zclassic's testnet.
  { name: 'Buttercup', activationHeight: 78_856, branchId: BUTTERCUP },
];
const ZCLASSIC_REGTEST_UPGRADES = ZCLASSIC_MAINNET_UPGRADES.map((u) => ({ ...u, activationHeight: 1 }));

const LEGACY_SIGHASH: SighashRow = { algorithm: 'legacy', hashType: 0x01 };
/** SIGHASH_ALL | SIGHASH_FORKID: what every fork-id coin appends to its signatures. */
const ALL_FORKID = 0x41;

/** The rows implemented by this build. A coin of COIN_NAMES without a row is "not supported yet". */
const UTXO_COIN_TABLE: Readonly<Partial<Record<UtxoCoinName, UtxoCoinRow>>> = {
  bitcoin: {
    decimals: 8,
    dustLimit: 546n,
    bip44CoinType: 0,
    sighash: LEGACY_SIGHASH,
    txFormat: 'bitcoin',
    txVersion: 1,
    networks: {
      mainnet: { p2pkh: [0x00], p2sh: [0x05], wif: 0x80, bech32Hrp: 'bc', xpub: [XPUB], xprv: [XPRV] },
      testnet: BITCOIN_TESTNET,
      regtest: BITCOIN_REGTEST,
    },
  },
  // testnet3 is itself a test network: its "mainnet" is bitcoin's testnet.
  testnet3: {
    decimals: 8,
    dustLimit: 546n,
    bip44CoinType: 1,
    sighash: LEGACY_SIGHASH,
    txFormat: 'bitcoin',
    txVersion: 1,
    networks: { mainnet: BITCOIN_TESTNET, testnet: BITCOIN_TESTNET, regtest: BITCOIN_REGTEST },
  },
  litecoin: {
    decimals: 8,
    // Litecoin Core relays no output below 5460 litoshis (its dust relay fee is ten times
    // Bitcoin's): with docs/api-decisions.md's 546 the node would reject outputs of 546..5459.
    dustLimit: 5460n,
    bip44CoinType: 2,
    sighash: LEGACY_SIGHASH,
    txFormat: 'bitcoin',
    txVersion: 1,
    networks: {
      mainnet: {
        p2pkh: [0x30],
        p2sh: [0x32],
        p2shAlsoAccepted: [[0x05]],
        wif: 0xb0,
        bech32Hrp: 'ltc',
        xpub: [XPUB, 0x019da462 /* Ltub */],
        xprv: [XPRV, 0x019d9cfe /* Ltpv */],
      },
      testnet: { ...LITECOIN_TEST, bech32Hrp: 'tltc' },
      regtest: { ...LITECOIN_TEST, bech32Hrp: 'rltc' },
    },
  },
  bitcoin_cash: {
    decimals: 8,
    dustLimit: 546n,
    bip44CoinType: 145,
    sighash: { algorithm: 'forkid', hashType: ALL_FORKID, forkId: 0 },
    txFormat: 'bitcoin',
    txVersion: 1,
    networks: {
      mainnet: { p2pkh: [0x00], p2sh: [0x05], wif: 0x80, cashAddrPrefix: 'bitcoincash', xpub: [XPUB], xprv: [XPRV] },
      testnet: { ...FORK_TEST, cashAddrPrefix: 'bchtest' },
      regtest: { ...FORK_TEST, cashAddrPrefix: 'bchreg' },
    },
  },
  bitcoin_gold: {
    decimals: 8,
    dustLimit: 546n,
    bip44CoinType: 156,
    // 79: gold's atomic number (BTCGPU script/interpreter.h FORKID_BTG).
    sighash: { algorithm: 'forkid', hashType: ALL_FORKID, forkId: 79 },
    txFormat: 'bitcoin',
    txVersion: 1,
    networks: {
      mainnet: { p2pkh: [0x26], p2sh: [0x17], wif: 0x80, bech32Hrp: 'btg', xpub: [XPUB], xprv: [XPRV] },
      testnet: { ...FORK_TEST, bech32Hrp: 'tbtg' },
      regtest: { ...FORK_TEST, bech32Hrp: 'btgrt' },
    },
  },
  dash: {
    decimals: 8,
    dustLimit: 546n,
    bip44CoinType: 5,
    sighash: LEGACY_SIGHASH,
    txFormat: 'bitcoin',
    txVersion: 1,
    networks: {
      // Dash Core before 0.12.3 used its own BIP32 versions: drkv (public) / drkp (private).
      mainnet: { p2pkh: [0x4c], p2sh: [0x10], wif: 0xcc, xpub: [XPUB, 0x02fe52f8 /* drkv */], xprv: [XPRV, 0x02fe52cc /* drkp */] },
      testnet: { ...DASH_TEST, xpub: [TPUB, 0x3a8061a0 /* DRKV */], xprv: [TPRV, 0x3a805837 /* DRKP */] },
      regtest: DASH_TEST,
    },
  },
  zcash: {
    decimals: 8,
    dustLimit: 546n,
    bip44CoinType: 133,
    sighash: { algorithm: 'zip244', hashType: 0x01 },
    txFormat: 'zcash-v5',
    txVersion: 5,
    txFormatSince: 'NU5',
    networks: {
      mainnet: { ...ZCASH_MAIN, upgrades: ZCASH_MAINNET_UPGRADES },
      testnet: { ...ZCASH_TEST, upgrades: ZCASH_TESTNET_UPGRADES },
      regtest: { ...ZCASH_TEST, upgrades: ZCASH_REGTEST_UPGRADES },
    },
  },
  zclassic: {
    decimals: 8,
    dustLimit: 546n,
    bip44CoinType: 147,
    sighash: { algorithm: 'zip243', hashType: 0x01 },
    txFormat: 'zcash-v4',
    txVersion: 4,
    txFormatSince: 'Sapling',
    networks: {
      mainnet: { ...ZCASH_MAIN, upgrades: ZCLASSIC_MAINNET_UPGRADES },
      testnet: { ...ZCASH_TEST, upgrades: ZCLASSIC_TESTNET_UPGRADES },
      regtest: { ...ZCASH_TEST, upgrades: ZCLASSIC_REGTEST_UPGRADES },
    },
  },
  bitcoin_private: {
    decimals: 8,
    dustLimit: 546n,
    bip44CoinType: 183,
    // 42: BitcoinPrivate script/interpreter.h FORKID_BTCP, over the legacy digest.
    sighash: { algorithm: 'legacy-forkid', hashType: ALL_FORKID, forkId: 42 },
    txFormat: 'bitcoin',
    txVersion: 1,
    networks: {
      mainnet: { p2pkh: [0x13, 0x25], p2sh: [0x13, 0xaf], wif: 0x80, xpub: [XPUB], xprv: [XPRV] },
      // n1... / nx...; BitcoinPrivate's regtest inherits its testnet's versions.
      testnet: { p2pkh: [0x19, 0x57], p2sh: [0x19, 0xe0], wif: 0xef, xpub: [TPUB], xprv: [TPRV] },
      regtest: { p2pkh: [0x19, 0x57], p2sh: [0x19, 0xe0], wif: 0xef, xpub: [TPUB], xprv: [TPRV] },
    },
  },
};

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
  readonly bech32Hrp?: string;
  /** Bitcoin Cash: the CashAddr prefix ('bitcoincash', 'bchtest', 'bchreg'). */
  readonly cashAddrPrefix?: string;
  readonly xpubVersions: readonly number[];
  readonly xprvVersions: readonly number[];
}

export function isCoinName(name: string): name is CoinName {
  return (COIN_NAMES as readonly string[]).includes(name);
}

/** True for every coin of the enumeration that uses transparent UTXOs (all but ethereum). */
export function isUtxoCoin(name: string): name is UtxoCoinName {
  return isCoinName(name) && name !== 'ethereum';
}

/** The UTXO coins whose rows this build carries. */
export function implementedUtxoCoins(): UtxoCoinName[] {
  return (Object.keys(UTXO_COIN_TABLE) as UtxoCoinName[]).filter((c) => UTXO_COIN_TABLE[c] !== undefined);
}

/** The resolved row of `coin` on `network`. Fresh byte arrays each call: callers may not share. */
export function chainParams(coin: CoinName, network: NetworkName): ChainParams {
  if (!isUtxoCoin(coin)) {
    throw new CoinError(`${String(coin)} is not a UTXO coin: it has no Bitcoin-style chain parameters`);
  }
  const row = UTXO_COIN_TABLE[coin];
  if (row === undefined) {
    throw new CoinError(`coin "${coin}" is not supported yet by this version of Countersign`);
  }
  const net = row.networks[network];
  if (net === undefined) throw new CoinError(`unknown network "${String(network)}" (expected mainnet, testnet or regtest)`);
  const p2shVersions = [net.p2sh, ...(net.p2shAlsoAccepted ?? [])].map((v) => Uint8Array.from(v));
  return {
    coin,
    network,
    decimals: row.decimals,
    dustLimit: row.dustLimit,
    bip44CoinType: row.bip44CoinType,
    sighashAlgorithm: row.sighash.algorithm,
    hashType: row.sighash.hashType,
    ...(row.sighash.forkId === undefined ? {} : { forkId: row.sighash.forkId }),
    txFormat: row.txFormat,
    txVersion: row.txVersion,
    ...(row.txFormat === 'bitcoin' ? {} : { versionGroupId: VERSION_GROUP_ID[row.txFormat] }),
    ...(row.txFormatSince === undefined ? {} : { txFormatSince: row.txFormatSince }),
    networkUpgrades: (net.upgrades ?? []).map((u) => ({ ...u })),
    p2pkhVersion: Uint8Array.from(net.p2pkh),
    p2shVersion: Uint8Array.from(net.p2sh),
    p2shVersions,
    wifVersion: net.wif,
    ...(net.bech32Hrp === undefined ? {} : { bech32Hrp: net.bech32Hrp }),
    ...(net.cashAddrPrefix === undefined ? {} : { cashAddrPrefix: net.cashAddrPrefix }),
    xpubVersions: [...net.xpub],
    xprvVersions: [...net.xprv],
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
  for (const row of Object.values(UTXO_COIN_TABLE)) {
    for (const net of Object.values(row.networks)) set.add(net.wif);
  }
  return set;
}

/** Every extended private key version in the table. */
export function knownXprvVersions(): Set<number> {
  const set = new Set<number>();
  for (const row of Object.values(UTXO_COIN_TABLE)) {
    for (const net of Object.values(row.networks)) for (const v of net.xprv) set.add(v);
  }
  return set;
}
