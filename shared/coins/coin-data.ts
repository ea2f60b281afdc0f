/**
 * The coin table, as pure data: one row per coin, and everything that differs between coins is a
 * field of its row (docs/architecture.md). coin-table.ts resolves the rows and derives every per-coin list
 * (the API's enumeration, the UTXO coins, the Ledger coins, PSBT, Caravan, ...) from them, so a
 * later coin is a new row here (plus, for a new address format or signature hash, a new module
 * registered by name). This module imports nothing, so a test can add a row before the rest loads
 * (vi.mock of this file with importOriginal) and every derived list includes it.
 *
 * Sources: each coin's chainparams.cpp (Bitcoin Core, Litecoin Core, Dash Core, Bitcoin Cash Node,
 * BTCGPU, BitcoinPrivate, zcashd and Zebra, Zclassic), consensus/upgrades.cpp for the Zcash-family
 * branch ids, Ledger's app names and versions, and docs/api-decisions.md.
 */

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

/**
 * How the service's index reads the coin's blocks from its node (service/chains/utxo/block-reading.ts):
 * - 'bitcoin': `getblock <hash> 0`, decoded by this codec (tx.ts decodeBitcoinBlock): an 80-byte
 *   header, then the transactions (segwit where the row's `segwit` says; Dash DIP2 special
 *   transactions where its `specialTx` says).
 * - 'bitcoin-mweb': the same, plus Litecoin's MWEB: the HogEx transaction's serialization flag 0x08
 *   and the extension block after the transactions, which holds no transparent output (the index
 *   keeps only those) and is skipped.
 * - null: the node's verbose JSON (`getblock <hash> 2`), because the codec does not read the whole
 *   block: an Equihash header (zcash, zclassic, bitcoin_private; bitcoin_gold since its fork),
 *   Sprout transactions (zcash family), CashTokens prefixes in outputs (bitcoin_cash).
 */
export type RawBlockFormat = 'bitcoin' | 'bitcoin-mweb';

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
export interface NetworkRow {
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

export interface SighashRow {
  readonly algorithm: SighashAlgorithmName;
  /** The byte appended to signatures. */
  readonly hashType: number;
  /** forkid / legacy-forkid: shifted into bits 8..31 of the hash type the digest commits to. */
  readonly forkId?: number;
}

/** The chain rules of a UTXO coin: what resolves into ChainParams. */
export interface UtxoChainRow {
  readonly dustLimit: bigint;
  readonly bip44CoinType: number;
  readonly sighash: SighashRow;
  readonly txFormat: TxFormat;
  readonly txVersion: number;
  /** The chain's target block interval (consensus nPowTargetSpacing), seconds: days to blocks for relative timelocks. */
  readonly blockSeconds: number;
  /** Zcash family: the upgrade from which `txFormat` is valid (earlier heights cannot use it). */
  readonly txFormatSince?: string;
  /** How the index reads blocks: raw through this codec, or verbose JSON (null or absent); see RawBlockFormat. */
  readonly rawBlocks?: RawBlockFormat | null;
  readonly networks: Readonly<Record<NetworkName, NetworkRow>>;
  /** What the coin's node says it follows on each network: checked at start and on every reconnection. */
  readonly identity: Readonly<Record<NetworkName, ChainIdentity>>;
}

/**
 * How a node of one network of a coin names itself: getblockchaininfo's `chain` and its block 0.
 * A node of another network, or another coin, is refused before anything of it is served.
 */
export interface ChainIdentity {
  /** getblockchaininfo's `chain` ("main", "test", "regtest"; Bitcoin Core 28 calls testnet4 "testnet4"). */
  readonly chains: readonly string[];
  /** Block 0's hash as RPC shows it; empty where this table does not know it (the chain's name is then checked alone). */
  readonly genesis: readonly string[];
}

// Genesis hashes (getblockhash 0), from each coin's chainparams.cpp; a coin's regtest checked with its node.
const BITCOIN_MAIN_GENESIS = '000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f';
const BITCOIN_TESTNET3_GENESIS = '000000000933ea01ad0ee984209779baaec3ced90fa3f408719526f8d77f4943';
const BITCOIN_TESTNET4_GENESIS = '00000000da84f2bafbbc53dee25a72ae507ff4914b867c565be350b0da8bf043';
const BITCOIN_REGTEST_GENESIS = '0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206';
/** Zclassic's block 0, which Bitcoin Private (its fork) kept. */
const ZCLASSIC_MAIN_GENESIS = '0007104ccda289427919efc39dc9e4d499804b7bebc22df55f8b834301260602';
const identity = (chains: readonly string[], ...genesis: string[]): ChainIdentity => ({ chains, genesis });
/** A network whose block 0 this table does not hold: its chain's name is checked alone. */
const NAMED_ONLY: Readonly<Record<NetworkName, ChainIdentity>> = { mainnet: identity(['main']), testnet: identity(['test']), regtest: identity(['regtest']) };

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


/** A coin's Ledger app: how the desk finds it open and which protocol it speaks. */
export interface LedgerAppRow {
  /** Names GET_APP_AND_VERSION reports for the app on mainnet; the first is what people are asked to open. */
  readonly names: readonly string[];
  /** The same on testnet and regtest, when the app has a test build (Bitcoin Test); absent: `names`. */
  readonly testNames?: readonly string[];
  /** Oldest version the desk works with. */
  readonly minimum: string;
  /** The protocol the app speaks ('legacy': app-bitcoin through hw-app-btc; 'ethereum': hw-app-eth). */
  readonly protocol: 'legacy' | 'ethereum';
  /** From this version on the app speaks the PSBT protocol (wallet policies; Bitcoin only). */
  readonly psbtFrom?: string;
}

export interface UtxoLedgerAppRow extends LedgerAppRow {
  readonly protocol: 'legacy';
  /** The address format GET WALLET PUBLIC KEY asks the app to display ('cashaddr': Bitcoin Cash). */
  readonly addressFormat: 'legacy' | 'cashaddr';
  /**
   * Which keys the app derives: 'bip32' any path (the master key included); 'zcash-account' only
   * account keys m/44'/133'/a' and below, so it exports no master key (the Zcash app).
   */
  readonly keyPath: 'bip32' | 'zcash-account';
}

/** What every coin has, UTXO or not. */
interface CoinRowCommon {
  /** Display ticker; test networks are shown with their network after it. */
  readonly ticker: string;
  readonly decimals: number;
  /** CoinGecko's id for the USD rate; null: no listing (no market price). Operators may override. */
  readonly coingeckoId: string | null;
  /** Scheme of payment URIs (BIP21-style) in receive QR codes. */
  readonly uriScheme: string;
  /** The name of the smallest unit, for fee rates ("litoshi/vB"). */
  readonly smallestUnit: string;
  /** null: no Ledger app the desk supports (sign with files). */
  readonly ledger: LedgerAppRow | null;
}

/** Special transaction formats a coin's chain may carry. 'dash-dip2': Dash DIP2 (type + extra payload). */
export type SpecialTxFormat = 'dash-dip2';

export interface UtxoCoinRow extends CoinRowCommon {
  readonly family: 'utxo';
  readonly ledger: UtxoLedgerAppRow | null;
  /** The coin itself is a test chain: even its "mainnet" carries no value (testnet3). */
  readonly testCoin: boolean;
  /** PSBT (BIP174) describes its signatures: Bitcoin's legacy sighash with SIGHASH_ALL. */
  readonly psbt: boolean;
  /** Segwit is active on its chain: shared/coins builds P2WSH and P2SH-P2WSH multisig for it (the desk still makes P2SH wallets). */
  readonly segwit: boolean;
  /** Its chain's nodes understand BIP125 signalling: a payment may signal it and a replacement may be offered to a node. */
  readonly bip125: boolean;
  /**
   * Its reference node, as shipped, relays BIP125 replacements: what most of its network does and
   * what the service assumes of its node unless the operator says otherwise. Litecoin Core 0.21
   * signals and reports BIP125 but replaces only when started with -mempoolreplacement=1 (default
   * 0), so on litecoin most nodes refuse a fee bump (docs/api-decisions.md, section 8).
   */
  readonly replacementsByDefault: boolean;
  /** A special transaction format its transactions may use, or null. */
  readonly specialTx: SpecialTxFormat | null;
  /** Caravan (Bitcoin only) reads and writes its wallets. */
  readonly caravan: boolean;
  readonly chain: UtxoChainRow;
}

export interface EvmCoinRow extends CoinRowCommon {
  readonly family: 'evm';
}

export type CoinRow = UtxoCoinRow | EvmCoinRow;

const legacyApp = (name: string, minimum = '1.3.0'): UtxoLedgerAppRow => ({ names: [name], minimum, protocol: 'legacy', addressFormat: 'legacy', keyPath: 'bip32' });
const BITCOIN_PSBT_FROM = '2.1.0';
const BITCOIN_LEDGER: UtxoLedgerAppRow = {
  ...legacyApp('Bitcoin'),
  names: ['Bitcoin', 'Bitcoin Legacy'],
  testNames: ['Bitcoin Test', 'Bitcoin Test Legacy'],
  psbtFrom: BITCOIN_PSBT_FROM,
};
/** testnet3's "mainnet" is a test network: the Bitcoin Test app on every network. */
const BITCOIN_TEST_LEDGER: UtxoLedgerAppRow = { ...BITCOIN_LEDGER, names: BITCOIN_LEDGER.testNames! };
// The v5 (NU5) trusted-input stream the desk sends ends with the shielded counts, which the Zcash
// app reads from 2.4.0 on (app-zcash: C app 2.4.0, July 2025; the Rust app 3.x too); 2.1-2.3 take
// the count byte for the locktime and fail.
const ZCASH_LEDGER: UtxoLedgerAppRow = { ...legacyApp('Zcash', '2.4.0'), keyPath: 'zcash-account' };

/** Every coin of the API, in the order of its enumeration. */
export const COIN_TABLE = {
  bitcoin: {
    family: 'utxo',
    ticker: 'BTC',
    decimals: 8,
    coingeckoId: 'bitcoin',
    uriScheme: 'bitcoin',
    smallestUnit: 'sat',
    ledger: BITCOIN_LEDGER,
    testCoin: false,
    psbt: true,
    segwit: true,
    bip125: true,
    replacementsByDefault: true,
    specialTx: null,
    caravan: true,
    chain: {
      dustLimit: 546n,
      bip44CoinType: 0,
      sighash: LEGACY_SIGHASH,
      txFormat: 'bitcoin',
      txVersion: 1,
      blockSeconds: 600,
      rawBlocks: 'bitcoin',
      networks: {
        mainnet: { p2pkh: [0x00], p2sh: [0x05], wif: 0x80, bech32Hrp: 'bc', xpub: [XPUB], xprv: [XPRV] },
        testnet: BITCOIN_TESTNET,
        regtest: BITCOIN_REGTEST,
      },
      identity: { mainnet: identity(['main'], BITCOIN_MAIN_GENESIS), testnet: identity(['test', 'testnet4'], BITCOIN_TESTNET3_GENESIS, BITCOIN_TESTNET4_GENESIS), regtest: identity(['regtest'], BITCOIN_REGTEST_GENESIS) },
    },
  },
  // testnet3 is itself a test network: its "mainnet" is bitcoin's testnet.
  testnet3: {
    family: 'utxo',
    ticker: 'tBTC',
    decimals: 8,
    coingeckoId: null,
    uriScheme: 'bitcoin',
    smallestUnit: 'sat',
    ledger: BITCOIN_TEST_LEDGER,
    testCoin: true,
    psbt: true,
    segwit: true,
    bip125: true,
    replacementsByDefault: true,
    specialTx: null,
    caravan: true,
    chain: {
      dustLimit: 546n,
      bip44CoinType: 1,
      sighash: LEGACY_SIGHASH,
      txFormat: 'bitcoin',
      txVersion: 1,
      blockSeconds: 600,
      rawBlocks: 'bitcoin',
      networks: { mainnet: BITCOIN_TESTNET, testnet: BITCOIN_TESTNET, regtest: BITCOIN_REGTEST },
      identity: { mainnet: identity(['test'], BITCOIN_TESTNET3_GENESIS), testnet: identity(['test'], BITCOIN_TESTNET3_GENESIS), regtest: identity(['regtest'], BITCOIN_REGTEST_GENESIS) },
    },
  },
  litecoin: {
    family: 'utxo',
    ticker: 'LTC',
    decimals: 8,
    coingeckoId: 'litecoin',
    uriScheme: 'litecoin',
    smallestUnit: 'litoshi',
    ledger: legacyApp('Litecoin'),
    testCoin: false,
    psbt: true,
    segwit: true,
    bip125: true,
    replacementsByDefault: false,
    specialTx: null,
    caravan: false,
    chain: {
      // Litecoin Core relays no output below 5460 litoshis (its dust relay fee is ten times
      // Bitcoin's): with the 546 of docs/api-decisions.md the node would reject outputs of 546..5459.
      dustLimit: 5460n,
      bip44CoinType: 2,
      sighash: LEGACY_SIGHASH,
      txFormat: 'bitcoin',
      txVersion: 1,
      blockSeconds: 150,
      rawBlocks: 'bitcoin-mweb',
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
      identity: {
        mainnet: identity(['main'], '12a765e31ffd4059bada1e25190f6e98c99d9714d334efa41a195a7e7e04bfe2'),
        testnet: identity(['test'], '4966625a4b2851d9fdee139e56211a0d88575f59ed816ff5e6a63deb4e3e29a0'),
        regtest: identity(['regtest'], '530827f38f93b43ed12af0b3ad25a288dc02ed74d6d7857862df51fc56c416f9'),
      },
    },
  },
  bitcoin_cash: {
    family: 'utxo',
    ticker: 'BCH',
    decimals: 8,
    coingeckoId: 'bitcoin-cash',
    uriScheme: 'bitcoincash',
    smallestUnit: 'sat',
    ledger: { ...legacyApp('Bitcoin Cash'), addressFormat: 'cashaddr' },
    testCoin: false,
    psbt: false,
    segwit: false,
    bip125: false,
    replacementsByDefault: false,
    specialTx: null,
    caravan: false,
    chain: {
      dustLimit: 546n,
      bip44CoinType: 145,
      sighash: { algorithm: 'forkid', hashType: ALL_FORKID, forkId: 0 },
      txFormat: 'bitcoin',
      txVersion: 1,
      blockSeconds: 600,
      rawBlocks: null,
      networks: {
        mainnet: { p2pkh: [0x00], p2sh: [0x05], wif: 0x80, cashAddrPrefix: 'bitcoincash', xpub: [XPUB], xprv: [XPRV] },
        testnet: { ...FORK_TEST, cashAddrPrefix: 'bchtest' },
        regtest: { ...FORK_TEST, cashAddrPrefix: 'bchreg' },
      },
      identity: {
        mainnet: identity(['main'], BITCOIN_MAIN_GENESIS),
        // testnet3, or testnet4 ("test4" in Bitcoin Cash Node)
        testnet: identity(['test', 'test4'], BITCOIN_TESTNET3_GENESIS, '000000001dd410c49a788668ce26751718cc797474d3152a5fc073dd44fd9f7b'),
        regtest: identity(['regtest'], BITCOIN_REGTEST_GENESIS),
      },
    },
  },
  bitcoin_gold: {
    family: 'utxo',
    ticker: 'BTG',
    decimals: 8,
    coingeckoId: 'bitcoin-gold',
    uriScheme: 'bitcoingold',
    smallestUnit: 'sat',
    ledger: legacyApp('Bitcoin Gold'),
    testCoin: false,
    psbt: false,
    segwit: true,
    bip125: true,
    replacementsByDefault: true,
    specialTx: null,
    caravan: false,
    chain: {
      dustLimit: 546n,
      bip44CoinType: 156,
      // 79: gold's atomic number (BTCGPU script/interpreter.h FORKID_BTG).
      sighash: { algorithm: 'forkid', hashType: ALL_FORKID, forkId: 79 },
      txFormat: 'bitcoin',
      txVersion: 1,
      blockSeconds: 600,
      rawBlocks: null,
      networks: {
        mainnet: { p2pkh: [0x26], p2sh: [0x17], wif: 0x80, bech32Hrp: 'btg', xpub: [XPUB], xprv: [XPRV] },
        testnet: { ...FORK_TEST, bech32Hrp: 'tbtg' },
        regtest: { ...FORK_TEST, bech32Hrp: 'btgrt' },
      },
      identity: { ...NAMED_ONLY, mainnet: identity(['main'], BITCOIN_MAIN_GENESIS) },
    },
  },
  dash: {
    family: 'utxo',
    ticker: 'DASH',
    decimals: 8,
    coingeckoId: 'dash',
    uriScheme: 'dash',
    smallestUnit: 'duff',
    ledger: legacyApp('Dash'),
    testCoin: false,
    psbt: true,
    segwit: false,
    bip125: false,
    replacementsByDefault: false,
    specialTx: 'dash-dip2',
    caravan: false,
    chain: {
      dustLimit: 546n,
      bip44CoinType: 5,
      sighash: LEGACY_SIGHASH,
      txFormat: 'bitcoin',
      txVersion: 1,
      blockSeconds: 150,
      rawBlocks: 'bitcoin',
      networks: {
        // Dash Core before 0.12.3 used its own BIP32 versions: drkv (public) / drkp (private).
        mainnet: { p2pkh: [0x4c], p2sh: [0x10], wif: 0xcc, xpub: [XPUB, 0x02fe52f8 /* drkv */], xprv: [XPRV, 0x02fe52cc /* drkp */] },
        testnet: { ...DASH_TEST, xpub: [TPUB, 0x3a8061a0 /* DRKV */], xprv: [TPRV, 0x3a805837 /* DRKP */] },
        regtest: DASH_TEST,
      },
      identity: {
        mainnet: identity(['main'], '00000ffd590b1485b3caadc19b22e6379c733355108f107a430458cdf3407ab6'),
        testnet: identity(['test'], '00000bafbc94add76cb75e2ec92894837288a481e5c005f6563d91623bf8bc2c'),
        regtest: identity(['regtest'], '000008ca1832a4baf228eb1553c03d3a2c8e02399550dd6ea8d65cec3ef23d2e'),
      },
    },
  },
  zcash: {
    family: 'utxo',
    ticker: 'ZEC',
    decimals: 8,
    coingeckoId: 'zcash',
    uriScheme: 'zcash',
    smallestUnit: 'zat',
    ledger: ZCASH_LEDGER,
    testCoin: false,
    psbt: false,
    segwit: false,
    bip125: false,
    replacementsByDefault: false,
    specialTx: null,
    caravan: false,
    chain: {
      dustLimit: 546n,
      bip44CoinType: 133,
      sighash: { algorithm: 'zip244', hashType: 0x01 },
      txFormat: 'zcash-v5',
      txVersion: 5,
      blockSeconds: 75,
      rawBlocks: null,
      txFormatSince: 'NU5',
      networks: {
        mainnet: { ...ZCASH_MAIN, upgrades: ZCASH_MAINNET_UPGRADES },
        testnet: { ...ZCASH_TEST, upgrades: ZCASH_TESTNET_UPGRADES },
        regtest: { ...ZCASH_TEST, upgrades: ZCASH_REGTEST_UPGRADES },
      },
      identity: {
        mainnet: identity(['main'], '00040fe8ec8471911baa1db1266ea15dd06b4a8a5c453883c000b031973dce08'),
        testnet: identity(['test'], '05a60a92d99d85997cce3b87616c089f6124d7342af37106edc76126334a2c38'),
        // zebrad calls its regtest "test" too: block 0 tells them apart
        regtest: identity(['regtest', 'test'], '029f11d80ef9765602235e1bc9727e3eb6ba20839319f761fee920d63401e327'),
      },
    },
  },
  zclassic: {
    family: 'utxo',
    ticker: 'ZCL',
    decimals: 8,
    coingeckoId: 'zclassic',
    uriScheme: 'zclassic',
    smallestUnit: 'zat',
    ledger: null,
    testCoin: false,
    psbt: false,
    segwit: false,
    bip125: false,
    replacementsByDefault: false,
    specialTx: null,
    caravan: false,
    chain: {
      dustLimit: 546n,
      bip44CoinType: 147,
      sighash: { algorithm: 'zip243', hashType: 0x01 },
      txFormat: 'zcash-v4',
      txVersion: 4,
      blockSeconds: 150,
      rawBlocks: null,
      txFormatSince: 'Sapling',
      networks: {
        mainnet: { ...ZCASH_MAIN, upgrades: ZCLASSIC_MAINNET_UPGRADES },
        testnet: { ...ZCASH_TEST, upgrades: ZCLASSIC_TESTNET_UPGRADES },
        regtest: { ...ZCASH_TEST, upgrades: ZCLASSIC_REGTEST_UPGRADES },
      },
      identity: { ...NAMED_ONLY, mainnet: identity(['main'], ZCLASSIC_MAIN_GENESIS) },
    },
  },
  bitcoin_private: {
    family: 'utxo',
    ticker: 'BTCP',
    decimals: 8,
    coingeckoId: 'bitcoin-private',
    uriScheme: 'bitcoinprivate',
    smallestUnit: 'sat',
    ledger: null,
    testCoin: false,
    psbt: false,
    segwit: false,
    bip125: false,
    replacementsByDefault: false,
    specialTx: null,
    caravan: false,
    chain: {
      dustLimit: 546n,
      bip44CoinType: 183,
      // 42: BitcoinPrivate script/interpreter.h FORKID_BTCP, over the legacy digest.
      sighash: { algorithm: 'legacy-forkid', hashType: ALL_FORKID, forkId: 42 },
      txFormat: 'bitcoin',
      txVersion: 1,
      blockSeconds: 150,
      rawBlocks: null,
      networks: {
        mainnet: { p2pkh: [0x13, 0x25], p2sh: [0x13, 0xaf], wif: 0x80, xpub: [XPUB], xprv: [XPRV] },
        // n1... / nx...; BitcoinPrivate's regtest inherits its testnet's versions.
        testnet: { p2pkh: [0x19, 0x57], p2sh: [0x19, 0xe0], wif: 0xef, xpub: [TPUB], xprv: [TPRV] },
        regtest: { p2pkh: [0x19, 0x57], p2sh: [0x19, 0xe0], wif: 0xef, xpub: [TPUB], xprv: [TPRV] },
      },
      identity: { ...NAMED_ONLY, mainnet: identity(['main'], ZCLASSIC_MAIN_GENESIS) },
    },
  },
  ethereum: {
    family: 'evm',
    ticker: 'ETH',
    decimals: 18,
    coingeckoId: 'ethereum',
    uriScheme: 'ethereum',
    smallestUnit: 'wei',
    // EIP-155 chain ids above 255 and the v it returns for them: app-ethereum 1.9.x on.
    ledger: { names: ['Ethereum'], minimum: '1.9.0', protocol: 'ethereum' },
  },
} satisfies Readonly<Record<string, CoinRow>>;

export type CoinTable = typeof COIN_TABLE;
export type CoinName = keyof CoinTable;
/** The coins with transparent UTXOs (Bitcoin-style chains): those whose row is of the 'utxo' family. */
export type UtxoCoinName = { [C in CoinName]: CoinTable[C] extends { family: 'utxo' } ? C : never }[CoinName];
