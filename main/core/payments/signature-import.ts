// Importing signature files: each file is checked whole and committed in its own transaction, so a
// crash mid-batch keeps every file already imported and never half of one.
import { bytesToHex, equalBytes, hexToBytes, isLowS, decodeDerSignature, verifyDerSignature } from '../../../shared/coins/index.ts';
import { CoordinatorError } from '../errors.ts';
import { parseFile, paymentHash, SignatureFileV1 } from '../../../shared/files/signing-files.ts';
import { progress, promoteIfComplete, type InputProgress } from './payments.ts';
import type { CosignerRow, PaymentHashRow, WalletRow } from '../store/store.ts';
import { requireWallet, type CoreDeps } from '../wallets/wallets.ts';
import { vaultKeyRefusal, vaultPaymentInputs, type VaultPaymentInput } from './vault-inputs.ts';
import { plural } from '../../../shared/api/words.ts';

export type RefusalKind = 'malformed' | 'unknown_request' | 'tampered' | 'foreign' | 'stale';

export interface FileResult {
  file: string;
  status: 'imported' | 'duplicate' | 'refused';
  refusal?: RefusalKind;
  message: string;
  paymentId?: string;
  /** Signatures newly stored from this file. */
  added: number;
  /** After this file: k of M per input. */
  progress?: InputProgress[];
}

export interface SignatureFileInput {
  /** The file name (or device name): recorded as the signatures' source and in the audit log. */
  name: string;
  text: string;
}

export function refused(file: string, refusal: RefusalKind, message: string, paymentId?: string): FileResult {
  return { file, status: 'refused', refusal, message: `${file}: ${message}`, added: 0, ...(paymentId ? { paymentId } : {}) };
}

export interface CheckedSignature {
  inputIndex: number;
  publicKey: Uint8Array;
  /** DER, low-S, without the hash type byte. */
  signature: Uint8Array;
}

/**
 * Checks one signature against the payment's stored hash of its input and key: the key must sign
 * that input (and be `signer`'s own when a signer is named), the signature must be low-S and
 * verify. Shared by every way signatures arrive (signature files, PSBTs).
 */
export function checkSignature(
  hashes: readonly PaymentHashRow[],
  s: CheckedSignature,
  paymentId: string,
  signer?: Pick<CosignerRow, 'position' | 'name'>,
  // M of N: a co-signer's key sits at its position in the script; a vault's keys are placed by vaultKeyRefusal.
  positional = true,
): { ok: true; value: CheckedSignature } | { ok: false; refusal: 'foreign' | 'tampered'; message: string } {
  const keyHex = bytesToHex(s.publicKey);
  const entry = hashes.find((h) => h.inputIndex === s.inputIndex && equalBytes(h.publicKey, s.publicKey));
  if (!entry) return { ok: false, refusal: 'foreign', message: `key ${keyHex} does not sign input ${s.inputIndex} of payment ${paymentId}` };
  const keysOfInput = hashes.filter((h) => h.inputIndex === s.inputIndex);
  // The key must be this signer's own (position in the redeem script = position in the wallet).
  if (signer && positional && !equalBytes(keysOfInput[signer.position]?.publicKey ?? new Uint8Array(), s.publicKey)) {
    return { ok: false, refusal: 'foreign', message: `key ${keyHex} of input ${s.inputIndex} is not ${signer.name}'s` };
  }
  let valid: boolean;
  try {
    valid = isLowS(decodeDerSignature(s.signature).s) && verifyDerSignature(entry.hash, s.publicKey, s.signature);
  } catch {
    valid = false;
  }
  const by = signer ? signer.name : `key ${keyHex}`;
  if (!valid) return { ok: false, refusal: 'tampered', message: `the signature of input ${s.inputIndex} by ${by} does not verify against the input's hash ${bytesToHex(entry.hash)}` };
  return { ok: true, value: s };
}

/**
 * One signature by a named co-signer, as every source that names its signer checks it (signature
 * files, a Ledger): on a vault, the key must be one of the chosen path's (another path's is refused
 * naming whose it is); then checkSignature, the key placed by position only in an M-of-N wallet.
 */
export function checkCosignerSignature(
  deps: Pick<CoreDeps, 'store'>,
  w: WalletRow,
  vault: readonly VaultPaymentInput[] | null,
  hashes: readonly PaymentHashRow[],
  s: CheckedSignature,
  paymentId: string,
  signer: Pick<CosignerRow, 'position' | 'name'>,
): ReturnType<typeof checkSignature> {
  const offPath = vault && vaultKeyRefusal(deps, w, vault, s.inputIndex, s.publicKey, signer);
  if (offPath) return { ok: false, refusal: 'foreign', message: offPath };
  return checkSignature(hashes, s, paymentId, signer, vault === null);
}

/** Stores checked signatures in one transaction (all or none), audits, promotes; returns how many were new. */
export function storeSignatures(deps: CoreDeps, paymentId: string, sigs: readonly CheckedSignature[], source: string, who: string): number {
  let added = 0;
  deps.store.transaction(() => {
    for (const s of sigs) if (deps.store.insertSignature(paymentId, { ...s, source })) added++;
    if (added > 0) {
      deps.store.audit(deps.actor, 'signature.import', `payment ${paymentId}: ${plural(added, 'signature')} by ${who}`, source, { paymentId, cosigner: who });
      promoteIfComplete(deps, paymentId);
    }
  });
  return added;
}

/** Imports one signature file: checks everything, then stores all its signatures or none. */
export function importSignatureFile(deps: CoreDeps, input: SignatureFileInput): FileResult {
  const parsed = parseFile(SignatureFileV1, 'signature file', input.text, 'signature');
  if (!parsed.ok) return refused(input.name, 'malformed', parsed.message);
  const f = parsed.value;
  const p = deps.store.payment(f.request_id);
  if (!p) return refused(input.name, 'unknown_request', `it answers request ${f.request_id}, which is no payment of this desk`);
  if (paymentHash(p.unsignedTx) !== f.payment_hash) {
    // Signatures of the payment this one replaces: the same inputs, but other hashes.
    const replaced = p.replaces === null ? null : deps.store.payment(p.replaces);
    if (replaced && paymentHash(replaced.unsignedTx) === f.payment_hash) {
      return refused(input.name, 'tampered', `it signs payment ${replaced.id}, which payment ${p.id} replaces: the hashes differ, so the co-signer signs the replacement from its own signing request`, p.id);
    }
    return refused(input.name, 'tampered', `its payment hash ${f.payment_hash} is not the hash of payment ${p.id}'s transaction: it was altered or signs another transaction`, p.id);
  }
  const cosigners = deps.store.cosigners(p.walletId);
  const signer = cosigners.find((c) => c.xpub === f.signer.xpub.trim());
  if (!signer) return refused(input.name, 'foreign', `its signer key ${f.signer.xpub.slice(0, 16)}... is not a co-signer of this wallet`, p.id);
  if (p.state !== 'awaiting_signatures') return refused(input.name, 'stale', `payment ${p.id} is ${p.state}, no longer awaiting signatures`, p.id);

  const hashes = deps.store.paymentHashes(p.id);
  const w = requireWallet(deps, p.walletId);
  const vault = vaultPaymentInputs(deps, w, p);
  const sigs: CheckedSignature[] = [];
  for (const s of f.signatures) {
    const checked = checkCosignerSignature(deps, w, vault, hashes, { inputIndex: s.input_index, publicKey: hexToBytes(s.public_key), signature: hexToBytes(s.signature) }, p.id, signer);
    if (!checked.ok) return refused(input.name, checked.refusal, checked.message, p.id);
    sigs.push(checked.value);
  }

  const added = storeSignatures(deps, p.id, sigs, input.name, signer.name);
  const status = added === 0 ? 'duplicate' : 'imported';
  const message = added === 0 ? `${input.name}: already imported, ignored` : `${input.name}: ${plural(added, 'signature')} by ${signer.name} imported`;
  return { file: input.name, status, message, paymentId: p.id, added, progress: progress(deps, p.id).inputs };
}

/** Imports several files, one result per file, in the order given. */
export function importSignatureFiles(deps: CoreDeps, files: readonly SignatureFileInput[]): FileResult[] {
  return files.map((f) => {
    try {
      return importSignatureFile(deps, f);
    } catch (err) {
      if (err instanceof CoordinatorError) return refused(f.name, 'malformed', err.message);
      throw err;
    }
  });
}
