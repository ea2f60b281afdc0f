// The wallet policy a Bitcoin app >= 2.1 registers for an M-of-N wallet (app-bitcoin-new
// doc/wallet.md): the wallet's script type around `multi(M,@0/**,@1/**,...)` (keys in co-signer
// order, as the original API's redeem scripts keep them, docs/api-decisions.md) or `sortedmulti`
// (BIP67 order, the wallet's choice): `sh(...)`, `sh(wsh(...))` or `wsh(...)`, each key as
// `[fingerprint/path]xpub` in the wallet's order.
import { WalletPolicy } from 'ledger-bitcoin';
import { equalBytes } from '../../../shared/coins/index.ts';
import { walletPolicyOf } from '../../../shared/files/miniscript-descriptor.ts';
import type { CosignerRow, WalletRow } from '../store/store.ts';
import { LedgerError } from './errors.ts';
import type { LedgerRegistrationRow } from '../store/registrations.ts';

export const UNKNOWN_FINGERPRINT = '00000000';

export interface PolicyParts {
  name: string;
  descriptorTemplate: string;
  keyInfos: string[];
}

/** A co-signer's key with its origin when known; a bare xpub otherwise (doc/wallet.md allows both). */
export function keyInfoOf(c: Pick<CosignerRow, 'xpub' | 'fingerprint' | 'derivationPath'>): string {
  if (c.fingerprint === UNKNOWN_FINGERPRINT || c.derivationPath === 'm') return c.xpub;
  return `[${c.fingerprint}${c.derivationPath.slice(1)}]${c.xpub}`;
}

/** Device names are at most 16 printable ASCII characters; the wallet's own name, fitted. */
export function policyNameOf(walletName: string): string {
  const ascii = walletName.replace(/[^\x20-\x7e]/g, '').trim().slice(0, 16).trim();
  return ascii || 'Countersign';
}

/** The descriptor template of the wallet's script type and key order. */
export function descriptorTemplateOf(w: Pick<WalletRow, 'm' | 'scriptType' | 'sortKeys'>, keyCount: number): string {
  const multi = `${w.sortKeys ? 'sortedmulti' : 'multi'}(${w.m},${Array.from({ length: keyCount }, (_, i) => `@${i}/**`).join(',')})`;
  if (w.scriptType === 'p2wsh') return `wsh(${multi})`;
  if (w.scriptType === 'p2sh-p2wsh') return `sh(wsh(${multi}))`;
  return `sh(${multi})`;
}

export function policyOf(w: WalletRow, cosigners: readonly CosignerRow[]): PolicyParts {
  if (w.vaultTemplate) {
    const file = walletPolicyOf(policyNameOf(w.name), { template: w.vaultTemplate, keys: cosigners });
    return { name: file.name, descriptorTemplate: file.descriptor_template, keyInfos: file.keys_info };
  }
  return {
    name: policyNameOf(w.name),
    descriptorTemplate: descriptorTemplateOf(w, cosigners.length),
    keyInfos: cosigners.map(keyInfoOf),
  };
}

export const walletPolicy = (p: PolicyParts): WalletPolicy => new WalletPolicy(p.name, p.descriptorTemplate, p.keyInfos);

/** The stored registration of co-signer `position`, refused if the wallet no longer matches it. */
export function registrationFor(w: WalletRow, cosigners: readonly CosignerRow[], rows: readonly LedgerRegistrationRow[], position: number): { policy: WalletPolicy; hmac: Uint8Array } {
  const row = rows.find((r) => r.position === position);
  const who = cosigners[position]?.name ?? `co-signer ${position}`;
  if (!row) throw new LedgerError('ledger_not_registered', `the wallet is not registered on ${who}'s Ledger yet: register it (once) before showing addresses or signing`);
  const expected = policyOf(w, cosigners);
  const policy = walletPolicy({ name: row.policyName, descriptorTemplate: row.descriptorTemplate, keyInfos: row.keyInfos });
  if (row.descriptorTemplate !== expected.descriptorTemplate || row.keyInfos.join('\n') !== expected.keyInfos.join('\n') || !equalBytes(policy.getId(), row.policyId)) {
    throw new LedgerError('ledger_not_registered', `the registration stored for ${who}'s Ledger does not describe this wallet any more: register it again`);
  }
  return { policy, hmac: row.hmac };
}

/** Which co-signers a device with master fingerprint `fingerprint` can be. */
export function positionsOf(cosigners: readonly CosignerRow[], fingerprint: string): number[] {
  return cosigners.flatMap((c, i) => (c.fingerprint.toLowerCase() === fingerprint.toLowerCase() ? [i] : []));
}
