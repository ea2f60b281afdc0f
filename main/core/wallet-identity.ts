// What makes two wallets the same wallet: the addresses they derive. Two wallets with one identity
// share every coin (the treasury total would count them twice, and two people could propose from
// the same funds), so a second one is refused. The identity is built from how the script uses the
// keys: a later script type or key-sorting option joins it by changing MULTISIG_SCRIPT's fields.
import { bytesToHex, chainParams, parseXpub, type ChainParams } from '../../shared/coins/index.ts';
import { CoordinatorError } from './errors.ts';
import type { CoordinatorStore, WalletRow } from './store/store.ts';

/** How this desk's wallets put keys into scripts (shared/coins/multisig-address.ts): P2SH, co-signer order. */
export const MULTISIG_SCRIPT = { type: 'p2sh', keyOrder: 'as-given' } as const;

export interface WalletKeys {
  params: ChainParams;
  m: number;
  xpubs: readonly string[];
}

/**
 * One string per set of addresses. Keys count by public key and chain code (what derivation uses),
 * so the same key written with another version prefix, fingerprint or path is the same key. Pure.
 */
export function walletIdentity({ params, m, xpubs }: WalletKeys): string {
  const keys = xpubs.map((x) => {
    const k = parseXpub(params, x.trim());
    return `${bytesToHex(k.publicKey)}:${bytesToHex(k.chainCode)}`;
  });
  const ordered = MULTISIG_SCRIPT.keyOrder === 'as-given' ? keys : [...keys].sort();
  return JSON.stringify([params.coin, params.network, MULTISIG_SCRIPT.type, MULTISIG_SCRIPT.keyOrder, m, ordered]);
}

/** The stored wallet these keys, threshold and script already make, if any. */
export function existingWallet(store: CoordinatorStore, wanted: WalletKeys): WalletRow | null {
  const id = walletIdentity(wanted);
  for (const w of store.wallets()) {
    if (w.coin !== wanted.params.coin || w.network !== wanted.params.network || w.m !== wanted.m) continue;
    if (walletIdentity({ params: chainParams(w.coin, w.network), m: w.m, xpubs: store.cosigners(w.id).map((c) => c.xpub) }) === id) return w;
  }
  return null;
}

/** Refuses keys that would make a second copy of a stored wallet, naming that wallet. */
export function refuseExistingWallet(store: CoordinatorStore, wanted: WalletKeys): void {
  const w = existingWallet(store, wanted);
  if (!w) return;
  throw new CoordinatorError(
    'duplicate_wallet',
    `These co-signers' keys, threshold (${wanted.m}-of-${wanted.xpubs.length}) and script already make the wallet "${w.name}": a second wallet would share its coins, so the treasury would count them twice. Open "${w.name}" instead.`,
    { walletId: w.id },
  );
}
