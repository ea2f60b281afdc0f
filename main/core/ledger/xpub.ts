// A co-signer's account xpub and master fingerprint, read from the Ledger: ledger-bitcoin for the
// Bitcoin app >= 2.1 (GET_EXTENDED_PUBKEY, GET_MASTER_FINGERPRINT), hw-app-btc's GET WALLET PUBLIC
// KEY for the legacy-protocol apps (the xpub is assembled from the key, its chain code and its
// parent's fingerprint, as BIP32 serializes it). The Zcash app exports keys only below m/44'/133'
// and m/32'/133' (app-zcash Cargo.toml; src/utils.rs check_bip44_compliance, PrefixOnly): not the
// master key, so its fingerprint stays unknown and the device is told by the keys it derives.
import { getWalletPublicKey } from './hw-app-btc.ts';
import { AppClient } from 'ledger-bitcoin';
import * as ecc from 'tiny-secp256k1';
import { bytesToHex, chainParams, encodeXpub, equalBytes, hash160, hexToBytes, parseXpub, type CoinName, type NetworkName } from '../../../shared/coins/index.ts';
import { derivesAccountKeysOnly, ledgerAddressFormat, requireApp, type OpenApp } from './app.ts';
import { LedgerError } from './errors.ts';
import { HARDENED, formatPath, parsePath, zcashAccountPathProblem } from './paths.ts';
import { UNKNOWN_FINGERPRINT } from './policy.ts';
import { withLedger, type LedgerConnector, type Transport } from './transport.ts';

export interface LedgerXpub {
  xpub: string;
  /** Master key fingerprint, 8 hex digits. */
  fingerprint: string;
  /** Where below the master key the xpub is, e.g. m/45'/2'/0'. */
  path: string;
  app: OpenApp;
}

const STANDARD_PURPOSES = new Set([44, 48, 49, 84, 86]);

/**
 * app-bitcoin-new returns keys at standard paths silently; any other path must be shown on the
 * device (doc/bitcoin.md GET_EXTENDED_PUBKEY), where the person confirms it.
 */
export function isStandardPath(steps: readonly number[], coinType: number): boolean {
  if (steps.length < 3 || steps.slice(0, 3).some((s) => s < HARDENED)) return false;
  return STANDARD_PURPOSES.has(steps[0]! - HARDENED) && steps[1]! - HARDENED === coinType;
}

const compress = (key: Uint8Array): Uint8Array => {
  const c = ecc.pointCompress(key, true);
  if (!c) throw new LedgerError('ledger_failed', 'the Ledger returned an invalid public key');
  return c;
};

const fingerprintOf = (publicKey: Uint8Array): number => new DataView(hash160(compress(publicKey)).buffer).getUint32(0);

async function legacyKey(transport: Transport, steps: readonly number[], coin: CoinName) {
  const r = await getWalletPublicKey(transport, { path: steps.length ? formatPath(steps).slice(2) : '', verify: false, format: ledgerAddressFormat(coin) });
  return { publicKey: compress(hexToBytes(r.publicKey)), chainCode: hexToBytes(r.chainCode) };
}

/** The master key fingerprint (8 hex digits) through the legacy protocol (GET WALLET PUBLIC KEY of m). */
export async function legacyMasterFingerprint(transport: Transport, coin: CoinName): Promise<string> {
  return bytesToHex(hash160((await legacyKey(transport, [], coin)).publicKey).subarray(0, 4));
}

/** Reads the account key at `path` (hardened steps allowed) from the open app. */
export async function readXpubFrom(transport: Transport, coin: CoinName, network: NetworkName, path: string, app: OpenApp): Promise<Omit<LedgerXpub, 'app'>> {
  const params = chainParams(coin as Exclude<CoinName, 'ethereum'>, network);
  const steps = parsePath(path);
  if (steps.length === 0) throw new LedgerError('ledger_failed', 'the desk reads an account key below the master key, not the master key itself');
  if (app.protocol === 'psbt') {
    const client = new AppClient(transport);
    const fingerprint = await client.getMasterFingerprint();
    const xpub = await client.getExtendedPubkey(formatPath(steps), !isStandardPath(steps, params.bip44CoinType));
    const key = parseXpub(params, xpub, 'the Ledger\'s xpub');
    if (key.depth !== steps.length || key.index !== steps.at(-1)) throw new LedgerError('ledger_failed', `the Ledger returned a key of another path than ${path}`);
    return { xpub, fingerprint, path: formatPath(steps) };
  }
  if (derivesAccountKeysOnly(coin)) {
    const problem = zcashAccountPathProblem(path);
    if (problem) throw new LedgerError('ledger_failed', problem);
    // m/44'/133' and m/44'/133'/a': both within the app's prefix. The master key is not.
    const parent = await legacyKey(transport, steps.slice(0, -1), coin);
    const account = await legacyKey(transport, steps, coin);
    const xpub = encodeXpub({ version: params.xpubVersions[0]!, depth: steps.length, parentFingerprint: fingerprintOf(parent.publicKey), index: steps.at(-1)!, chainCode: account.chainCode, publicKey: account.publicKey });
    return { xpub, fingerprint: UNKNOWN_FINGERPRINT, path: formatPath(steps) };
  }
  const master = await legacyKey(transport, [], coin);
  const parent = steps.length === 1 ? master : await legacyKey(transport, steps.slice(0, -1), coin);
  const account = await legacyKey(transport, steps, coin);
  const xpub = encodeXpub({
    version: params.xpubVersions[0]!,
    depth: steps.length,
    parentFingerprint: fingerprintOf(parent.publicKey),
    index: steps.at(-1)!,
    chainCode: account.chainCode,
    publicKey: account.publicKey,
  });
  return { xpub, fingerprint: bytesToHex(hash160(master.publicKey).subarray(0, 4)), path: formatPath(steps) };
}

/**
 * Which of `cosigners` the open Zcash app holds: the first whose recorded path the app derives
 * (m/44'/133'/a') and where it derives that very xpub (key and chain code). Null when none.
 * `keyId` names the device in messages: the hash160 prefix of that account key (its BIP32
 * fingerprint), since the master fingerprint cannot be read from this app.
 */
export async function zcashKeyHolder(
  transport: Transport,
  coin: CoinName,
  network: NetworkName,
  cosigners: readonly { xpub: string; derivationPath: string }[],
): Promise<{ position: number; keyId: string } | null> {
  const params = chainParams(coin as Exclude<CoinName, 'ethereum'>, network);
  // Co-signers read at the same path share one answer.
  const read = new Map<string, Awaited<ReturnType<typeof legacyKey>>>();
  for (const [position, c] of cosigners.entries()) {
    if (zcashAccountPathProblem(c.derivationPath) !== null) continue;
    const ours = parseXpub(params, c.xpub, `co-signer ${position + 1}'s xpub`);
    const steps = parsePath(c.derivationPath);
    const at = formatPath(steps);
    const got = read.get(at) ?? (await legacyKey(transport, steps, coin));
    read.set(at, got);
    if (equalBytes(got.publicKey, ours.publicKey) && equalBytes(got.chainCode, ours.chainCode)) {
      return { position, keyId: bytesToHex(hash160(got.publicKey).subarray(0, 4)) };
    }
  }
  return null;
}

/** Opens the device, checks the coin's app is open, and reads the xpub at `path`. */
export async function readLedgerXpub(connector: LedgerConnector, coin: CoinName, network: NetworkName, path: string): Promise<LedgerXpub> {
  // A path the Zcash app cannot derive is refused here, before the device is asked anything.
  const problem = derivesAccountKeysOnly(coin) ? zcashAccountPathProblem(path) : null;
  if (problem) throw new LedgerError('ledger_failed', `${problem}: read the co-signer's key at m/44'/133'/0' (or another account, m/44'/133'/1', ...)`);
  return withLedger(connector, { doing: 'reading the co-signer key' }, async (transport, ctx) => {
    const app = await requireApp(transport, coin, network, ctx);
    return { ...(await readXpubFrom(transport, coin, network, path, app)), app };
  });
}
