// Labels a treasurer puts on a wallet's addresses, transactions, outputs, co-signers' xpubs and
// payments (a payment's label is its purpose), each change in the audit log; and the wallet's
// labels out and in as a BIP329 file (shared/files/bip329.ts), the format Sparrow and others read.
import { readBip329, writeBip329, type Bip329Record, type Bip329Type } from '../../shared/files/bip329.ts';
import { misplacedFile, recogniseFile } from '../../shared/files/file-kind.ts';
import { CoordinatorError } from './errors.ts';
import { fileSafe } from './file-names.ts';
import type { LabelRow, LabelType } from './store/labels.ts';
import type { CoordinatorStore } from './store/store.ts';
import { walletHistory, type FundsDeps } from './wallets/funds.ts';
import { requireWallet, walkChain } from './wallets/wallets.ts';
import type { CoordinatorApi } from './api.ts';
import { walletDescriptor } from './wallets/script.ts';
import { plural } from '../../shared/api/words.ts';

export interface LabelDeps {
  store: CoordinatorStore;
  actor: string;
}

export interface LabelInput {
  type: LabelType;
  ref: string;
  /** Empty: the label is removed. */
  label: string;
  spendable?: boolean | null;
}

const now = (): string => new Date().toISOString();

/** Sets one label (an empty one removes it) and records the change in the audit log. */
export function setLabel(deps: LabelDeps, walletId: string, input: LabelInput): LabelRow | null {
  const w = requireWallet(deps, walletId);
  const paymentId = input.type === 'payment' ? input.ref : undefined;
  if (paymentId !== undefined && deps.store.payment(paymentId)?.walletId !== w.id) throw new CoordinatorError('unknown_payment', `payment ${paymentId} is not one of wallet ${w.name}'s`);
  const label = input.label.trim();
  const before = deps.store.labels.get(w.id, input.type, input.ref);
  return deps.store.transaction(() => {
    deps.store.labels.put(w.id, { type: input.type, ref: input.ref, label, spendable: input.spendable ?? null }, now());
    const what = label === '' ? 'removed' : `"${label}"`;
    deps.store.audit(deps.actor, 'label.set', `${input.type} ${input.ref}: ${before ? `"${before.label}" -> ` : ''}${what}`, null, { walletId: w.id, ...(paymentId ? { paymentId } : {}) });
    return deps.store.labels.get(w.id, input.type, input.ref);
  });
}

/** Labels of one type by ref, for the views. */
export function labelMap(store: CoordinatorStore, walletId: string, type: LabelType): Map<string, string> {
  return new Map(store.labels.all(walletId).filter((l) => l.type === type).map((l) => [l.ref, l.label]));
}

/** The purpose of each of the wallet's payments that has a transaction, by that txid. */
export function purposesByTx(store: CoordinatorStore, walletId: string): Map<string, string> {
  const purposes = labelMap(store, walletId, 'payment');
  const out = new Map<string, string>();
  for (const p of store.payments(walletId)) {
    const purpose = purposes.get(p.id);
    if (p.txid && purpose) out.set(p.txid, purpose);
  }
  return out;
}

/**
 * Every label of the wallet as BIP329 records, origin = the wallet's descriptor. A payment's
 * purpose goes out as its transaction's label once it has one (BIP329 has no payment type), unless
 * the transaction has a label of its own.
 */
export function exportLabels(store: CoordinatorStore, walletId: string): { fileName: string; text: string; count: number } {
  const w = requireWallet({ store }, walletId);
  // A record's origin: the wallet's descriptor (a vault's miniscript, not a multisig of its keys).
  const origin = walletDescriptor(w, store.cosigners(w.id));
  const rows = store.labels.all(w.id);
  const txLabelled = new Set(rows.filter((r) => r.type === 'tx').map((r) => r.ref));
  const records: Bip329Record[] = [];
  for (const [txid, purpose] of purposesByTx(store, w.id)) if (!txLabelled.has(txid)) records.push({ type: 'tx', ref: txid, label: purpose, origin });
  for (const r of rows) {
    if (r.type === 'payment') continue;
    records.push({ type: r.type, ref: r.ref, label: r.label, origin, ...(r.type === 'output' && r.spendable !== null ? { spendable: r.spendable } : {}) });
  }
  // by type, then reference: the same labels write the same file, whichever way they came
  records.sort((a, b) => (a.type === b.type ? (a.ref < b.ref ? -1 : a.ref > b.ref ? 1 : 0) : a.type < b.type ? -1 : 1));
  return { fileName: `${fileSafe(w.name)}-labels.jsonl`, text: writeBip329(records), count: records.length };
}

export interface LabelImport {
  imported: number;
  /** Lines about other wallets' addresses, transactions or keys. */
  ignored: number;
  message: string;
}


/**
 * A BIP329 file into the wallet's labels: every line is validated first and one bad line refuses
 * the whole file, naming each bad line; nothing is written unless all are good. Lines about what
 * is not this wallet's (another wallet's origin, address, key or transaction) are counted and left.
 */
export async function importLabels(deps: LabelDeps & { api: FundsDeps['api'] & CoordinatorApi }, walletId: string, text: string, fileName: string): Promise<LabelImport> {
  const w = requireWallet(deps, walletId);
  // A set-up file, a signature file or a PSBT dropped here is named, not listed line by line as "not JSON".
  const misplaced = misplacedFile(recogniseFile(text), 'BIP329 labels file', ['labels', 'json', 'broken-json', 'text']);
  if (misplaced !== null) throw new CoordinatorError('malformed', `${fileName}: ${misplaced}; nothing was imported`);
  const read = readBip329(text);
  if (!read.ok) {
    const lines = read.bad.slice(0, 20).map((b) => `line ${b.line}: ${b.problem}`);
    const more = read.bad.length > 20 ? `; and ${read.bad.length - 20} more` : '';
    throw new CoordinatorError('malformed', `${fileName} is not a BIP329 label file; nothing was imported. ${plural(read.bad.length, 'bad line')}: ${lines.join('; ')}${more}`);
  }
  // A wallet just set up knows only its first addresses until the address walk (started when its
  // page opens) is over: its later addresses' labels would be taken for another wallet's. Walk first.
  if (read.records.some((r) => r.type !== 'xpub' && r.type !== 'pubkey')) for (const change of [false, true]) await walkChain(deps, w.id, change);
  const cosigners = deps.store.cosigners(w.id).map((c) => c.xpub);
  const addresses = new Set(deps.store.addresses(w.id).map((a) => a.address));
  const needsTxs = read.records.some((r) => r.type === 'tx' || r.type === 'input' || r.type === 'output');
  // The wallet's history, and its payments' own transactions: a replaced original never confirms,
  // yet this desk exports its purpose as that transaction's label, and takes it back.
  const txids = needsTxs ? new Set((await walletHistory(deps, w.id)).map((t) => t.txid)) : new Set<string>();
  if (needsTxs) for (const p of deps.store.payments(w.id)) if (p.txid) txids.add(p.txid.toLowerCase());
  const ours: Record<Bip329Type, (ref: string) => boolean> = {
    addr: (ref) => addresses.has(ref),
    xpub: (ref) => cosigners.includes(ref),
    tx: (ref) => txids.has(ref.toLowerCase()),
    input: (ref) => txids.has(ref.split(':')[0]!.toLowerCase()),
    output: (ref) => txids.has(ref.split(':')[0]!.toLowerCase()),
    pubkey: () => true,
  };
  // An origin naming other keys is another wallet's, whatever its reference.
  const sameOrigin = (origin: string | undefined) => origin === undefined || cosigners.every((x) => origin.includes(x));
  const keep = read.records.filter((r) => sameOrigin(r.origin) && ours[r.type](r.ref));
  const ignored = read.records.length - keep.length;
  deps.store.transaction(() => {
    const at = now();
    for (const r of keep) {
      const ref = r.type === 'tx' || r.type === 'input' || r.type === 'output' ? r.ref.toLowerCase() : r.ref;
      const before = deps.store.labels.get(w.id, r.type, ref);
      deps.store.labels.put(w.id, { type: r.type, ref, label: r.label ?? '', spendable: r.spendable ?? before?.spendable ?? null }, at);
    }
    deps.store.audit(deps.actor, 'labels.import', `${plural(keep.length, 'label')} imported, ${plural(ignored, 'line')} about other wallets ignored`, fileName, { walletId: w.id });
  });
  const message = `Imported ${plural(keep.length, 'label')} into ${w.name}${ignored ? `; ignored ${plural(ignored, 'line')} about other wallets' addresses, transactions or keys` : ''}.`;
  return { imported: keep.length, ignored, message };
}
