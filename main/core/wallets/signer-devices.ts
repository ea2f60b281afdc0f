// Each co-signer's kind of air-gapped signer (issue 34, migration 15): said by the treasurer where the
// key is added or shown, read by the QR dialogs so they open on the code that device reads.
import { SIGNER_DEVICE_NAMES, type SignerDevice } from '../../../shared/api/signer-devices.ts';
import { CoordinatorError } from '../errors.ts';
import type { CosignerRow } from '../store/store.ts';
import { requireWallet, type CoreDeps } from './wallets.ts';

const deviceWords = (d: SignerDevice | null | undefined): string => (d ? SIGNER_DEVICE_NAMES[d] : 'not said');

/** Sets (null: forgets) the device of the wallet's co-signer at `position`, audited; the co-signer as now stored. */
export function setCosignerDevice(deps: Pick<CoreDeps, 'store' | 'actor'>, walletId: string, position: number, device: SignerDevice | null): CosignerRow {
  const w = requireWallet(deps, walletId);
  const cosigners = deps.store.cosigners(w.id);
  const c = cosigners.find((x) => x.position === position);
  if (!c) throw new CoordinatorError('unknown_cosigner', `wallet "${w.name}" has ${cosigners.length} co-signers: there is no co-signer ${position + 1}`, { field: 'position' });
  if ((c.device ?? null) === device) return c;
  return deps.store.transaction(() => {
    deps.store.setCosignerDevice(w.id, position, device);
    deps.store.audit(deps.actor, 'cosigner.device', `${c.name}'s signer: ${deviceWords(c.device)} -> ${deviceWords(device)}`, null, { walletId: w.id, cosigner: c.name });
    return { ...c, device };
  });
}
