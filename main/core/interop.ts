// Files other multisig wallets read and write (docs/file-formats.md): PSBTs of payments out and
// their signatures back in, and wallet set-up files (BSMS, descriptors, Caravan, Coldcard) in and
// out. The formats are pure codecs in shared/files; this module ties them to the store, checks
// them against what the desk knows, and reuses the signature checks of signature files.
import {
  addressToScript,
  bytesToHex,
  chainParams,
  decodeTx,
  encodeTx,
  equalBytes,
  p2shScript,
  hash160,
  parseMultisigRedeemScript,
  parseXpub,
  PSBT_COIN_NAMES,
  type ChainParams,
  type CoinName,
  type NetworkName,
} from '../../shared/coins/index.ts';
import type { BitcoinTx } from '../../shared/coins/tx.ts';
import { formatBsmsDescriptorRecord, type BsmsKeyRecord } from '../../shared/files/bsms.ts';
import { caravanNetwork, formatCaravan } from '../../shared/files/caravan.ts';
import { formatColdcard } from '../../shared/files/coldcard.ts';
import { parseDerivationPath } from '../../shared/files/derivation-path.ts';
import { formatMultisigDescriptor } from '../../shared/files/descriptor.ts';
import { FileFormatError } from '../../shared/files/errors.ts';
import { looksLikePsbt, psbtFromBase64, psbtToBase64, withoutWitness, type DecodedPsbt } from '../../shared/files/psbt.ts';
import { buildMultisigPsbt, psbtSignatures, withEmptyScripts, type KeyDerivation, type MultisigPsbtOutput } from '../../shared/files/psbt-multisig.ts';
import { checkSetup, type SetupKey, type WalletSetup } from '../../shared/files/setup.ts';
import { parseSetupFile } from '../../shared/files/setup-file.ts';
import { parseXpubLike } from '../../shared/files/xpub-bytes.ts';
import { CoordinatorError } from './errors.ts';
import { PreviousTransactions } from './previous-transactions.ts';
import { checkSignature, importSignatureFile, refused, storeSignatures, type CheckedSignature, type FileResult, type SignatureFileInput } from './imports.ts';
import { progress, requirePayment } from './payments.ts';
import type { CosignerRow, PaymentRow, WalletRow } from './store/store.ts';
import { createWallet, deriveAddress, requireWallet, walletParams, type CoreDeps, type NewWallet } from './wallets.ts';

/** Coins whose signatures PSBT (BIP174) describes: Bitcoin's legacy sighash with SIGHASH_ALL. */
export const PSBT_COINS: readonly CoinName[] = PSBT_COIN_NAMES;

const fileSafe = (s: string) => s.replace(/[^A-Za-z0-9_-]+/g, '-').replace(/^-|-$/g, '').slice(0, 40) || 'wallet';

function requirePsbtCoin(w: WalletRow): void {
  if (!PSBT_COINS.includes(w.coin)) {
    throw new CoordinatorError('unsupported', `PSBT files are for ${PSBT_COINS.join(', ')}; a ${w.coin} payment's co-signers use Countersign signing-request files`);
  }
}

/** The co-signers' keys of one address, each with where its master key derives it. */
function derivations(params: ChainParams, w: WalletRow, cosigners: readonly CosignerRow[], change: boolean, index: number): { redeemScript: Uint8Array; derivations: KeyDerivation[] } {
  const a = deriveAddress(params, w.m, cosigners.map((c) => c.xpub), change, index);
  return {
    redeemScript: a.redeemScript,
    derivations: a.publicKeys.map((publicKey, i) => ({
      publicKey,
      origin: { fingerprint: cosigners[i]!.fingerprint, path: [...parseDerivationPath(cosigners[i]!.derivationPath), change ? 1 : 0, index] },
    })),
  };
}

// ---- PSBT out -------------------------------------------------------------------------------------

/**
 * The PSBT of a payment awaiting signatures: every input with its whole previous transaction
 * (from the service, checked to hash to the txid it spends and to pay the amount stored), its
 * redeem script and every co-signer's key origin; change outputs marked as the wallet's own.
 */
export async function exportPsbt(deps: CoreDeps, paymentId: string): Promise<{ fileName: string; base64: string }> {
  const p = requirePayment(deps, paymentId);
  const w = requireWallet(deps, p.walletId);
  requirePsbtCoin(w);
  if (p.state !== 'awaiting_signatures') throw new CoordinatorError('stale', `payment ${p.id} is ${p.state}: it needs no more signatures`);
  const params = walletParams(w);
  const cosigners = deps.store.cosigners(w.id);
  const tx = decodeTx(p.unsignedTx);
  const stored = deps.store.paymentInputs(p.id);
  // Checked to hash to the txid each input spends and to hold the amount stored: co-signers' PSBT
  // signers read amounts from these.
  const previous = await PreviousTransactions.fetch(deps.api, w.coin, params, tx.inputs.map((inp) => bytesToHex(inp.prevTxid)));
  const inputs = tx.inputs.map((inp, i) => {
    const row = stored.find((s) => s.inputIndex === i);
    if (!row) throw new CoordinatorError('internal', `payment ${p.id} has no stored input ${i}`);
    const txid = bytesToHex(inp.prevTxid);
    const d = derivations(params, w, cosigners, row.change, row.index);
    const mismatch = previous.mismatch(txid, inp.vout, { amount: row.amount, script: p2shScript(hash160(d.redeemScript)), payee: "the wallet's address" });
    if (mismatch) throw new CoordinatorError('service_mismatch', `input ${i}: ${mismatch}`);
    return { prevTx: withoutWitness(previous.raw(txid)), ...d };
  });
  const own = new Map(deps.store.addresses(w.id).map((a) => [bytesToHex(addressToScript(params, a.address)), a]));
  const outputs = tx.outputs.map((o): MultisigPsbtOutput => {
    const mine = own.get(bytesToHex(o.script));
    return mine ? derivations(params, w, cosigners, mine.change, mine.index) : {};
  });
  const xpubs = cosigners.map((c) => ({ xpub: parseXpubLike(c.xpub).bytes, origin: { fingerprint: c.fingerprint, path: parseDerivationPath(c.derivationPath) } }));
  const base64 = psbtToBase64(buildMultisigPsbt(tx, inputs, outputs, xpubs));
  deps.store.audit(deps.actor, 'payment.export_psbt', `payment ${p.id}: PSBT for ${cosigners.length} co-signers`);
  return { fileName: `payment-${fileSafe(w.name)}-${p.id.slice(0, 8)}.psbt`, base64 };
}

// ---- PSBT in --------------------------------------------------------------------------------------

const psbtTxOf = (p: PaymentRow): Uint8Array => encodeTx(withEmptyScripts(decodeTx(p.unsignedTx)), { witness: false });
const outpoints = (tx: BitcoinTx) => tx.inputs.map((i) => `${bytesToHex(i.prevTxid)}:${i.vout}`);

/** The first way `theirs` differs from `ours`, in words. */
function difference(ours: BitcoinTx, theirs: BitcoinTx): string {
  if (ours.outputs.length !== theirs.outputs.length) return `it has ${theirs.outputs.length} outputs, the payment ${ours.outputs.length}`;
  const o = ours.outputs.findIndex((x, i) => x.value !== theirs.outputs[i]!.value || !equalBytes(x.script, theirs.outputs[i]!.script));
  if (o >= 0) return `its output ${o} pays ${theirs.outputs[o]!.value} to script ${bytesToHex(theirs.outputs[o]!.script)}, the payment's pays ${ours.outputs[o]!.value} to ${bytesToHex(ours.outputs[o]!.script)}`;
  if (outpoints(ours).join() !== outpoints(theirs).join()) return 'its inputs differ';
  return 'its version, lock time or input sequence numbers differ';
}

/** Which payment a PSBT is for: the one whose transaction it carries, or a refusal saying why none. */
function matchPayment(deps: CoreDeps, name: string, psbt: DecodedPsbt): PaymentRow | FileResult {
  const payments = deps.store.payments().filter((p) => PSBT_COINS.includes(requireWallet(deps, p.walletId).coin));
  const same = payments.find((p) => equalBytes(psbtTxOf(p), psbt.unsignedTx));
  if (same) return same;
  const theirs = new Set(outpoints(psbt.tx));
  const overlapping = payments.filter((p) => outpoints(decodeTx(p.unsignedTx)).some((o) => theirs.has(o)));
  const open = overlapping.find((p) => p.state === 'awaiting_signatures') ?? overlapping[0];
  if (open) {
    return refused(name, 'tampered', `its transaction spends the coins of payment ${open.id} but is not that payment's transaction: ${difference(decodeTx(open.unsignedTx), psbt.tx)}`, open.id);
  }
  return refused(name, 'unknown_request', 'its transaction is no payment of this desk (it spends none of the coins of a proposed payment)');
}

/**
 * Imports the signatures a co-signer's wallet added to a PSBT (PARTIAL_SIG entries, or the
 * signatures of inputs it already finalized): each is verified against the payment's stored
 * hash for its input and key exactly like a signature file's, then all are stored or none.
 */
export function importPsbtFile(deps: CoreDeps, input: SignatureFileInput): FileResult {
  let psbt: DecodedPsbt;
  try {
    psbt = psbtFromBase64(input.text);
  } catch (err) {
    if (err instanceof FileFormatError) return refused(input.name, 'malformed', err.message);
    throw err;
  }
  const matched = matchPayment(deps, input.name, psbt);
  if (!('walletId' in matched)) return matched;
  const p = matched;
  const w = requireWallet(deps, p.walletId);
  const params = walletParams(w);
  if (p.state !== 'awaiting_signatures') return refused(input.name, 'stale', `payment ${p.id} is ${p.state}, no longer awaiting signatures`, p.id);

  const stored = deps.store.paymentInputs(p.id);
  let found;
  try {
    found = psbtSignatures(psbt, psbt.tx.inputs.map((_, i) => stored.find((s) => s.inputIndex === i)?.redeemScript ?? new Uint8Array(0)));
  } catch (err) {
    if (err instanceof FileFormatError) return refused(input.name, 'tampered', err.message, p.id);
    throw err;
  }
  for (const [i, type] of found.sighashTypes) {
    if (type !== params.hashType) return refused(input.name, 'tampered', `input ${i} asks for signature hash type 0x${type.toString(16)}; the desk collects SIGHASH_ALL (0x01) signatures only`, p.id);
  }
  const badType = [...found.partial, ...found.final].find((s) => s.hashType !== params.hashType);
  if (badType) return refused(input.name, 'tampered', `a signature of input ${badType.inputIndex} has hash type 0x${badType.hashType.toString(16)}, not SIGHASH_ALL (0x01)`, p.id);
  if (found.partial.length + found.final.length === 0) return refused(input.name, 'malformed', 'it carries no signatures yet: a co-signer signs it first', p.id);

  const hashes = deps.store.paymentHashes(p.id);
  const sigs: CheckedSignature[] = [];
  for (const s of found.partial) {
    const checked = checkSignature(hashes, s, p.id);
    if (!checked.ok) return refused(input.name, checked.refusal, checked.message, p.id);
    sigs.push(checked.value);
  }
  // A finalized input names no keys: each signature must verify for one of the input's keys.
  for (const s of found.final) {
    const keys = parseMultisigRedeemScript(stored.find((x) => x.inputIndex === s.inputIndex)!.redeemScript)?.pubkeys ?? [];
    const match = keys.map((publicKey) => checkSignature(hashes, { ...s, publicKey }, p.id)).find((c) => c.ok);
    if (!match || !match.ok) return refused(input.name, 'tampered', `a signature in input ${s.inputIndex}'s final script verifies for none of its keys`, p.id);
    sigs.push(match.value);
  }
  const cosigners = deps.store.cosigners(w.id);
  const signers = [...new Set(sigs.map((s) => {
    const keys = hashes.filter((h) => h.inputIndex === s.inputIndex);
    const pos = keys.findIndex((h) => equalBytes(h.publicKey, s.publicKey));
    return cosigners[pos]?.name ?? `key ${bytesToHex(s.publicKey)}`;
  }))];
  const added = storeSignatures(deps, p.id, sigs, input.name, signers.join(', '));
  const status = added === 0 ? 'duplicate' : 'imported';
  const message = added === 0 ? `${input.name}: already imported, ignored` : `${input.name}: ${added} signature(s) by ${signers.join(', ')} imported from the PSBT`;
  return { file: input.name, status, message, paymentId: p.id, added, progress: progress(deps, p.id).inputs };
}

/** Signature files and PSBTs picked together: each goes to its own importer. */
export function importPaymentFiles(deps: CoreDeps, files: readonly SignatureFileInput[]): FileResult[] {
  return files.map((f) => {
    try {
      return looksLikePsbt(f.text) || /\.psbt$/i.test(f.name) ? importPsbtFile(deps, f) : importSignatureFile(deps, f);
    } catch (err) {
      if (err instanceof CoordinatorError) return refused(f.name, 'malformed', err.message);
      throw err;
    }
  });
}

// ---- wallet set-up in -----------------------------------------------------------------------------

export interface SetupChoice {
  /** Used when the file does not name its chain (only Caravan files do). */
  coin: CoinName;
  network: NetworkName;
  name?: string;
  /** Required for BSMS key records, which carry one key each and no policy. */
  m?: number;
}

export interface SetupRead {
  wallet: NewWallet;
  /** What was read, for the treasurer to review (formats, signed key records, the first-address check). */
  notes: string[];
}

const formatName: Record<WalletSetup['format'], string> = { descriptor: 'output descriptor', bsms: 'BSMS descriptor record', caravan: 'Caravan wallet file', coldcard: 'Coldcard/Electrum multisig file' };

/**
 * Reads one wallet file, or several BSMS key records (one co-signer each, in the order given),
 * into a NewWallet; checks every key for the chosen coin and network, and a BSMS record's first
 * address against the one this desk derives. Throws CoordinatorError saying which file and why.
 */
export function readWalletSetup(files: readonly SignatureFileInput[], choice: SetupChoice): SetupRead {
  if (files.length === 0) throw new CoordinatorError('bad_input', 'choose a set-up file');
  const read = files.map((f) => {
    try {
      return { file: f.name, parsed: parseSetupFile(f.text) };
    } catch (err) {
      if (err instanceof FileFormatError) throw new CoordinatorError('malformed', `${f.name}: ${err.message}`);
      throw err;
    }
  });
  const walletFiles = read.flatMap((r) => (r.parsed.kind === 'wallet' ? [{ file: r.file, setup: r.parsed.setup }] : []));
  const keyRecords = read.flatMap((r) => (r.parsed.kind === 'key' ? [{ file: r.file, record: r.parsed.record }] : []));
  if (walletFiles.length > 1 || (walletFiles.length === 1 && keyRecords.length > 0)) {
    throw new CoordinatorError('bad_input', 'choose one wallet set-up file, or the BSMS key records of all co-signers (not both)');
  }
  let setup: WalletSetup;
  const notes: string[] = [];
  if (walletFiles.length === 1) {
    setup = walletFiles[0]!.setup;
    notes.push(`${walletFiles[0]!.file}: ${formatName[setup.format]}, ${setup.m} of ${setup.keys.length}`);
  } else {
    if (choice.m === undefined) throw new CoordinatorError('bad_input', 'BSMS key records carry one key each and no policy: say how many signatures are required');
    const keys = keyRecords.map((k) => k.record.key);
    try {
      setup = { format: 'bsms', name: null, m: choice.m, keys, keyNetwork: checkSetup(choice.m, keys), chain: null, firstAddress: null };
    } catch (err) {
      if (err instanceof FileFormatError) throw new CoordinatorError('malformed', err.message);
      throw err;
    }
    notes.push(...keyRecords.map((k: { file: string; record: BsmsKeyRecord }) => `${k.file}: BSMS key record of ${k.record.key.name}, ${k.record.signed ? 'signature verified' : 'unsigned'}`));
  }
  const coin = setup.chain?.coin ?? choice.coin;
  const network = setup.chain?.network ?? choice.network;
  let params: ChainParams;
  try {
    params = chainParams(coin, network);
  } catch (err) {
    throw new CoordinatorError('bad_input', err instanceof Error ? err.message : String(err));
  }
  for (const k of setup.keys) {
    try {
      parseXpub(params, k.xpub, `co-signer ${k.name}'s xpub`);
    } catch (err) {
      throw new CoordinatorError('bad_wallet', `${err instanceof Error ? err.message : String(err)} (choose the coin and network the file was made for)`);
    }
  }
  if (setup.firstAddress !== null) {
    const ours = deriveAddress(params, setup.m, setup.keys.map((k) => k.xpub), false, 0);
    let theirs: Uint8Array | null;
    try {
      theirs = addressToScript(params, setup.firstAddress);
    } catch {
      theirs = null;
    }
    if (!theirs || !equalBytes(theirs, addressToScript(params, ours.address))) {
      throw new CoordinatorError('tampered', `the record's first address ${setup.firstAddress} is not the first address ${ours.address} these keys give on ${coin} ${network}: the record was altered, or is for another coin or network`);
    }
    notes.push(`first address ${ours.address} matches the record`);
  }
  return {
    wallet: {
      coin: params.coin,
      network,
      name: choice.name?.trim() || setup.name || 'Imported wallet',
      m: setup.m,
      cosigners: setup.keys.map((k) => ({ name: k.name, xpub: k.xpub, fingerprint: k.fingerprint, derivationPath: k.derivationPath })),
    },
    notes,
  };
}

/** Creates the wallet a set-up file describes (createWallet checks every address with the service). */
export async function importWalletSetup(deps: CoreDeps, files: readonly SignatureFileInput[], choice: SetupChoice): Promise<WalletRow> {
  const { wallet, notes } = readWalletSetup(files, choice);
  const created = await createWallet(deps, wallet);
  deps.store.audit(deps.actor, 'wallet.import_setup', `wallet ${created.id} from ${notes.join('; ')}`, files.map((f) => f.name).join(', '));
  return created;
}

// ---- wallet set-up out ----------------------------------------------------------------------------

export type SetupExportFormat = 'bsms' | 'descriptor' | 'caravan' | 'coldcard';

/** The wallet as another wallet imports it; keys always in the wallet's order. */
export function exportWalletSetup(deps: Pick<CoreDeps, 'store'>, walletId: string, format: SetupExportFormat): { fileName: string; text: string } {
  const w = requireWallet(deps, walletId);
  const params = walletParams(w);
  const keys: SetupKey[] = deps.store.cosigners(w.id).map((c) => ({ name: c.name, xpub: c.xpub, fingerprint: c.fingerprint, derivationPath: c.derivationPath }));
  const base = fileSafe(w.name);
  switch (format) {
    case 'descriptor':
      return { fileName: `${base}-descriptor.txt`, text: `${formatMultisigDescriptor(w.m, keys, '/<0;1>/*')}\n` };
    case 'bsms': {
      const first = deriveAddress(params, w.m, keys.map((k) => k.xpub), false, 0).address;
      return { fileName: `${base}.bsms`, text: formatBsmsDescriptorRecord(w.m, keys, first) };
    }
    case 'caravan': {
      const network = caravanNetwork(w.coin, w.network);
      if (network === null) throw new CoordinatorError('unsupported', `Caravan handles Bitcoin wallets only; export this ${w.coin} wallet as a BSMS record or a descriptor`);
      return { fileName: `${base}-caravan.json`, text: formatCaravan(w.name, network, w.m, keys) };
    }
    case 'coldcard':
      return { fileName: `${base}-multisig.txt`, text: formatColdcard(w.name, w.m, keys) };
  }
}
