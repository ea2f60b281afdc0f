/**
 * The coin table: every per-coin constant lives here, as data. Code elsewhere reads a resolved
 * ChainParams and never branches on a coin's name, so a later coin is a new row (plus, for a new
 * address format or signature hash, a new module registered by name).
 *
 * Sources: each coin's chainparams.cpp (Bitcoin Core, Litecoin Core, Dash Core) and SEMANTICS.md.
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

/** A deployment runs a coin against one of these (SEMANTICS.md: a backend setting, not a coin). */
export const NETWORK_NAMES = ['mainnet', 'testnet', 'regtest'] as const;
export type NetworkName = (typeof NETWORK_NAMES)[number];

/** Signature-hash algorithms, by name; sighash/index.ts maps each name to its module. */
export type SighashAlgorithmName = 'legacy';

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
  /** Accepted extended public key versions; the first is the one shown. */
  readonly xpub: readonly number[];
  /** Extended private key versions: recognised only to refuse them. */
  readonly xprv: readonly number[];
}

interface UtxoCoinRow {
  readonly decimals: number;
  readonly dustLimit: bigint;
  readonly bip44CoinType: number;
  readonly sighash: { readonly algorithm: SighashAlgorithmName; readonly hashType: number };
  readonly txVersion: number;
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

const LEGACY_SIGHASH = { algorithm: 'legacy', hashType: 0x01 } as const;

/** The rows implemented by this build. A coin of COIN_NAMES without a row is "not supported yet". */
const UTXO_COIN_TABLE: Readonly<Partial<Record<UtxoCoinName, UtxoCoinRow>>> = {
  bitcoin: {
    decimals: 8,
    dustLimit: 546n,
    bip44CoinType: 0,
    sighash: LEGACY_SIGHASH,
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
    txVersion: 1,
    networks: { mainnet: BITCOIN_TESTNET, testnet: BITCOIN_TESTNET, regtest: BITCOIN_REGTEST },
  },
  litecoin: {
    decimals: 8,
    // Litecoin Core relays no output below 5460 litoshis (its dust relay fee is ten times
    // Bitcoin's): with SEMANTICS.md's 546 the node would reject outputs of 546..5459.
    dustLimit: 5460n,
    bip44CoinType: 2,
    sighash: LEGACY_SIGHASH,
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
  dash: {
    decimals: 8,
    dustLimit: 546n,
    bip44CoinType: 5,
    sighash: LEGACY_SIGHASH,
    txVersion: 1,
    networks: {
      // Dash Core before 0.12.3 used its own BIP32 versions: drkv (public) / drkp (private).
      mainnet: { p2pkh: [0x4c], p2sh: [0x10], wif: 0xcc, xpub: [XPUB, 0x02fe52f8 /* drkv */], xprv: [XPRV, 0x02fe52cc /* drkp */] },
      testnet: { ...DASH_TEST, xpub: [TPUB, 0x3a8061a0 /* DRKV */], xprv: [TPRV, 0x3a805837 /* DRKP */] },
      regtest: DASH_TEST,
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
  /** The hash type byte appended to signatures and hashed into the digest. */
  readonly hashType: number;
  readonly txVersion: number;
  readonly p2pkhVersion: Uint8Array;
  /** The version P2SH addresses are shown with. */
  readonly p2shVersion: Uint8Array;
  /** Every version accepted for P2SH on input, the shown one first. */
  readonly p2shVersions: readonly Uint8Array[];
  readonly wifVersion: number;
  readonly bech32Hrp?: string;
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
    txVersion: row.txVersion,
    p2pkhVersion: Uint8Array.from(net.p2pkh),
    p2shVersion: Uint8Array.from(net.p2sh),
    p2shVersions,
    wifVersion: net.wif,
    ...(net.bech32Hrp === undefined ? {} : { bech32Hrp: net.bech32Hrp }),
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
