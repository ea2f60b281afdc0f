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

/** The path a co-signer's account key is read at by default: BIP45's purpose, then coin type and account (all hardened). */
export const defaultAccountPath = (bip44CoinType: number, account = 0): string => `m/45'/${bip44CoinType}'/${account}'`;
