// Importing signature files: each file is checked whole and committed in its own transaction, so a
// crash mid-batch keeps every file already imported and never half of one.
import { bytesToHex, equalBytes, hexToBytes, isLowS, decodeDerSignature, verifyDerSignature } from '../../shared/coins/index.ts';
import { CoordinatorError } from './errors.ts';
import { parseFile, SignatureFileV1 } from './files/schemas.ts';
import { paymentHash, progress, promoteIfComplete, type InputProgress } from './payments.ts';
import type { CoreDeps } from './wallets.ts';

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

function refused(file: string, refusal: RefusalKind, message: string, paymentId?: string): FileResult {
  return { file, status: 'refused', refusal, message: `${file}: ${message}`, added: 0, ...(paymentId ? { paymentId } : {}) };
}

/** Imports one signature file: checks everything, then stores all its signatures or none. */
export function importSignatureFile(deps: CoreDeps, input: SignatureFileInput): FileResult {
  const parsed = parseFile(SignatureFileV1, 'signature file', input.text);
  if (!parsed.ok) return refused(input.name, 'malformed', parsed.message);
  const f = parsed.value;
  const p = deps.store.payment(f.request_id);
  if (!p) return refused(input.name, 'unknown_request', `it answers request ${f.request_id}, which is no payment of this desk`);
  if (paymentHash(p.unsignedTx) !== f.payment_hash) {
    return refused(input.name, 'tampered', `its payment hash ${f.payment_hash} is not the hash of payment ${p.id}'s transaction: it was altered or signs another transaction`, p.id);
  }
  const cosigners = deps.store.cosigners(p.walletId);
  const signer = cosigners.find((c) => c.xpub === f.signer.xpub.trim());
  if (!signer) return refused(input.name, 'foreign', `its signer key ${f.signer.xpub.slice(0, 16)}... is not a co-signer of this wallet`, p.id);
  if (p.state !== 'awaiting_signatures') return refused(input.name, 'stale', `payment ${p.id} is ${p.state}, no longer awaiting signatures`, p.id);

  const hashes = deps.store.paymentHashes(p.id);
  const sigs: { inputIndex: number; publicKey: Uint8Array; signature: Uint8Array }[] = [];
  for (const s of f.signatures) {
    const publicKey = hexToBytes(s.public_key);
    const entry = hashes.find((h) => h.inputIndex === s.input_index && equalBytes(h.publicKey, publicKey));
    if (!entry) return refused(input.name, 'foreign', `key ${s.public_key} does not sign input ${s.input_index} of payment ${p.id}`, p.id);
    // The key must be this signer's own (position in the redeem script = position in the wallet).
    const keysOfInput = hashes.filter((h) => h.inputIndex === s.input_index);
    if (!equalBytes(keysOfInput[signer.position]?.publicKey ?? new Uint8Array(), publicKey)) {
      return refused(input.name, 'foreign', `key ${s.public_key} of input ${s.input_index} is not ${signer.name}'s`, p.id);
    }
    const signature = hexToBytes(s.signature);
    let valid: boolean;
    try {
      valid = isLowS(decodeDerSignature(signature).s) && verifyDerSignature(entry.hash, publicKey, signature);
    } catch {
      valid = false;
    }
    if (!valid) return refused(input.name, 'tampered', `the signature of input ${s.input_index} by ${signer.name} does not verify against the input's hash ${bytesToHex(entry.hash)}`, p.id);
    sigs.push({ inputIndex: s.input_index, publicKey, signature });
  }

  let added = 0;
  deps.store.transaction(() => {
    for (const s of sigs) if (deps.store.insertSignature(p.id, { ...s, source: input.name })) added++;
    if (added > 0) {
      deps.store.audit(deps.actor, 'signature.import', `payment ${p.id}: ${added} signature(s) by ${signer.name}`, input.name);
      promoteIfComplete(deps, p.id);
    }
  });
  const status = added === 0 ? 'duplicate' : 'imported';
  const message = added === 0 ? `${input.name}: already imported, ignored` : `${input.name}: ${added} signature(s) by ${signer.name} imported`;
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
