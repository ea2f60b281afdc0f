// BIP32 paths as a device takes them: m/48'/0'/0'/1' with hardened steps, as numbers and back.
import { LedgerError } from './errors.ts';

export const HARDENED = 0x80000000;

/** "m/45'/2'/0'" -> [0x8000002d, 0x80000002, 0x80000000]. At most 10 steps (the apps' limit). */
export function parsePath(path: string): number[] {
  const text = path.trim();
  if (text === 'm' || text === '') return [];
  if (!/^m(\/[0-9]{1,10}['hH]?)+$/.test(text)) throw new LedgerError('ledger_failed', `"${path}" is not a derivation path like m/45'/0'/0'`);
  const steps = text
    .slice(2)
    .split('/')
    .map((s) => {
      const hardened = /['hH]$/.test(s);
      const n = Number.parseInt(s, 10);
      if (n >= HARDENED) throw new LedgerError('ledger_failed', `step ${s} of ${path} is too large`);
      return hardened ? n + HARDENED : n;
    });
  if (steps.length > 10) throw new LedgerError('ledger_failed', `${path} has more than 10 steps`);
  return steps;
}

export function formatPath(steps: readonly number[]): string {
  return ['m', ...steps.map((s) => (s >= HARDENED ? `${s - HARDENED}'` : String(s)))].join('/');
}

/** SLIP-44 coin type of Zcash: the Zcash app derives only below m/44'/133' (and m/32'/133' for shielded keys). */
export const ZCASH_COIN_TYPE = 133;

/**
 * The path a co-signer's account key is read at by default: BIP45's purpose, then coin type and
 * account (all hardened). The Zcash app is loaded with the BIP32 prefixes 44'/133' and 32'/133'
 * only (app-zcash Cargo.toml, package.metadata.ledger.path): its keys are read at BIP44's
 * m/44'/133'/account'.
 */
export const defaultAccountPath = (bip44CoinType: number, account = 0): string =>
  bip44CoinType === ZCASH_COIN_TYPE ? `m/44'/${ZCASH_COIN_TYPE}'/${account}'` : `m/45'/${bip44CoinType}'/${account}'`;

/**
 * The default account path for a wallet's script type: BIP48's m/48'/coin'/account'/2' (native
 * segwit P2WSH) or /1' (nested P2SH-P2WSH); legacy P2SH keeps BIP45's path above.
 */
export const scriptAccountPath = (bip44CoinType: number, scriptType: 'p2sh' | 'p2sh-p2wsh' | 'p2wsh', account = 0): string =>
  scriptType === 'p2sh' ? defaultAccountPath(bip44CoinType, account) : `m/48'/${bip44CoinType}'/${account}'/${scriptType === 'p2wsh' ? 2 : 1}'`;

/**
 * Why the Zcash app cannot use `path` as a co-signer's account path, or null when it can. The app
 * signs only at five-step paths m/44'/133'/…/…/… (app-zcash src/utils.rs check_bip44_compliance),
 * and the desk signs at account/change/index: so the account path is exactly m/44'/133'/a', with a
 * hardened account as BIP44 has it. Another prefix the device would not even derive (the OS stops
 * the app rather than answer), so it is refused before anything is sent.
 */
export function zcashAccountPathProblem(path: string): string | null {
  let steps: number[];
  try {
    steps = parsePath(path);
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
  const ok = steps.length === 3 && steps[0] === 44 + HARDENED && steps[1] === ZCASH_COIN_TYPE + HARDENED && steps[2]! >= HARDENED;
  return ok ? null : `the Zcash app on a Ledger derives a co-signer's key only at m/44'/133'/account' (e.g. m/44'/133'/0'), not at ${path}`;
}
