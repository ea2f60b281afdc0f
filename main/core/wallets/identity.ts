// What makes two wallets the same wallet: the addresses they derive. Two wallets with one identity
// share every coin (the treasury total would count them twice, and two people could propose from
// the same funds), so a second one is refused. The identity is built from how the script uses the
// keys: the script type and the key order (sorted keys make the co-signers' order irrelevant).
import { bytesToHex, chainParams, parseXpub, type ChainParams } from '../../../shared/coins/index.ts';
import type { MultisigScriptType } from '../../../shared/coins/multisig-script.ts';
import { CoordinatorError } from '../errors.ts';
import type { CoordinatorStore, WalletRow } from '../store/store.ts';

/** How a wallet made without a script choice puts keys into scripts: P2SH, co-signer order. */
export const MULTISIG_SCRIPT = { type: 'p2sh', keyOrder: 'as-given' } as const;

export interface WalletKeys {
  params: ChainParams;
  m: number;
  xpubs: readonly string[];
  /** Default MULTISIG_SCRIPT.type. */
  scriptType?: MultisigScriptType;
  /** Default false (MULTISIG_SCRIPT.keyOrder). */
  sortKeys?: boolean;
}

/**
 * One string per set of addresses. Keys count by public key and chain code (what derivation uses),
 * so the same key written with another version prefix, fingerprint or path is the same key. Pure.
 */
export function walletIdentity({ params, m, xpubs, scriptType, sortKeys }: WalletKeys): string {
  const keys = xpubs.map((x) => {
    const k = parseXpub(params, x.trim());
    return `${bytesToHex(k.publicKey)}:${bytesToHex(k.chainCode)}`;
  });
  const keyOrder = sortKeys === true ? 'sorted' : MULTISIG_SCRIPT.keyOrder;
  // Sorted keys: every address sorts its derived keys, so the co-signers' order changes nothing.
  const ordered = keyOrder === 'as-given' ? keys : [...keys].sort();
  return JSON.stringify([params.coin, params.network, scriptType ?? MULTISIG_SCRIPT.type, keyOrder, m, ordered]);
}

/** The stored wallet these keys, threshold and script already make, if any. */
export function existingWallet(store: CoordinatorStore, wanted: WalletKeys): WalletRow | null {
  const id = walletIdentity(wanted);
  for (const w of store.wallets()) {
    if (w.coin !== wanted.params.coin || w.network !== wanted.params.network || w.m !== wanted.m) continue;
    const stored = { params: chainParams(w.coin, w.network), m: w.m, xpubs: store.cosigners(w.id).map((c) => c.xpub), scriptType: w.scriptType, sortKeys: w.sortKeys };
    if (walletIdentity(stored) === id) return w;
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
