// PSBTs (BIP174) of payments out to co-signers' wallets, and their signatures back in
// (docs/file-formats.md). The format is a pure codec in shared/files; this module ties it to the
// store, checks it against what the desk knows, and reuses the signature checks of signature files.
import {
  addressToScript,
  bytesToHex,
  decodeTx,
  encodeTx,
  equalBytes,
  p2wshScript,
  PSBT_COIN_NAMES,
  type ChainParams,
  type CoinName,
  type MultisigInputSpend,
} from '../../../shared/coins/index.ts';
import type { BitcoinTx } from '../../../shared/coins/tx.ts';
import { parseDerivationPath } from '../../../shared/files/derivation-path.ts';
import { FileFormatError, PaymentCheckError } from '../../../shared/files/errors.ts';
import { findEntry, INPUT, outputOfRaw, psbtFromBase64, psbtToBase64, withoutWitness, type AmountUnit, type DecodedPsbt } from '../../../shared/files/psbt.ts';
import { psbtMultisigSpends, verifyPsbtSignatures, type VerifiedPsbtSignature } from '../../../shared/files/psbt-finalize.ts';
import { buildMultisigPsbt, psbtSignatures, withEmptyScripts, type KeyDerivation, type MultisigPsbtInput, type MultisigPsbtOutput } from '../../../shared/files/psbt-multisig.ts';
import { parseXpubLike } from '../../../shared/files/xpub-bytes.ts';
import { CoordinatorError } from '../errors.ts';
import { fileSafe } from '../file-names.ts';
import { PreviousTransactions } from './previous-transactions.ts';
import { checkSignature, refused, storeSignatures, type CheckedSignature, type FileResult, type RefusalKind, type SignatureFileInput } from './signature-import.ts';
import { progress, requirePayment } from './payments.ts';
import type { CosignerRow, PaymentRow, WalletRow } from '../store/store.ts';
import { requireWallet, walletParams, type CoreDeps } from '../wallets/wallets.ts';
import { walletAddress } from '../wallets/script.ts';
import { plural } from '../../../shared/api/words.ts';
import { coinAmount } from '../../../shared/coins/units.ts';
import { vaultAddress } from '../../../shared/coins/vault-policy.ts';
import { storedVaultPolicy } from '../vaults/vaults.ts';
import { vaultKeyOrigin, vaultKeyRefusal, vaultPaymentInputs, type VaultPaymentInput } from './vault-inputs.ts';

/** Coins whose signatures PSBT (BIP174) describes: Bitcoin's legacy sighash with SIGHASH_ALL. */
export const PSBT_COINS: readonly CoinName[] = PSBT_COIN_NAMES;

function requirePsbtCoin(w: WalletRow): void {
  if (!PSBT_COINS.includes(w.coin)) {
    throw new CoordinatorError('unsupported', `PSBT files are for ${PSBT_COINS.join(', ')}; a ${w.coin} payment's co-signers use Countersign signing-request files`);
  }
}

/**
 * One address of the wallet as a PSBT describes it: its scripts in the wallet's type (P2SH: the
 * redeem script; P2WSH: the witness script; P2SH-P2WSH: both, the redeem script being the program)
 * and every co-signer's key with where its master key derives it, in script order.
 */
function addressScripts(params: ChainParams, w: WalletRow, cosigners: readonly CosignerRow[], change: boolean, index: number): MultisigPsbtOutput & { derivations: KeyDerivation[]; scriptPubKey: Uint8Array } {
  const a = walletAddress(params, w, cosigners.map((c) => c.xpub), change, index);
  const derivations = a.scriptKeys.map((publicKey) => {
    const c = cosigners[a.publicKeys.findIndex((k) => equalBytes(k, publicKey))]!;
    return { publicKey, origin: { fingerprint: c.fingerprint, path: [...parseDerivationPath(c.derivationPath), change ? 1 : 0, index] } };
  });
  const scripts =
    a.scriptType === 'p2sh' ? { redeemScript: a.redeemScript } : a.scriptType === 'p2wsh' ? { witnessScript: a.redeemScript } : { redeemScript: p2wshScript(a.redeemScript), witnessScript: a.redeemScript };
  return { ...scripts, derivations, scriptPubKey: a.scriptPubKey };
}

// ---- PSBT out -------------------------------------------------------------------------------------

/**
 * The PSBT of a payment awaiting signatures: every input with its whole previous transaction
 * (from the service, checked to hash to the txid it spends and to pay the amount stored; segwit
 * inputs also with its witness UTXO, written from it), its redeem and/or witness script and every
 * co-signer's key origin; change outputs marked as the wallet's own with the same fields.
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
  // A vault: each input names the keys of the path it is spent on only (a signer holding another
  // path's key has nothing to sign), with their origins; its witness script and nSequence as built.
  const vault = vaultPaymentInputs(deps, w, p);
  const inputs = tx.inputs.map((inp, i) => {
    const row = stored.find((s) => s.inputIndex === i);
    if (!row) throw new CoordinatorError('internal', `payment ${p.id} has no stored input ${i}`);
    const txid = bytesToHex(inp.prevTxid);
    const spend = vault?.find((v) => v.inputIndex === i)?.spend;
    const { scriptPubKey, ...d } = spend
      ? { scriptPubKey: spend.address.scriptPubKey, witnessScript: spend.witnessScript, derivations: spend.pathKeys.map((k) => vaultKeyOrigin(cosigners, k)) }
      : addressScripts(params, w, cosigners, row.change, row.index);
    const mismatch = previous.mismatch(txid, inp.vout, { amount: row.amount, script: scriptPubKey, payee: "the wallet's address" });
    if (mismatch) throw new CoordinatorError('service_mismatch', `input ${i}: ${mismatch}`);
    return { prevTx: withoutWitness(previous.raw(txid)), ...d } satisfies MultisigPsbtInput;
  });
  const own = new Map(deps.store.addresses(w.id).map((a) => [bytesToHex(addressToScript(params, a.address)), a]));
  const outputs = tx.outputs.map((o): MultisigPsbtOutput => {
    const mine = own.get(bytesToHex(o.script));
    if (!mine) return {};
    if (w.vaultTemplate) {
      const a = vaultAddress(params, storedVaultPolicy(deps, w), mine.change, mine.index);
      return { witnessScript: a.witnessScript, derivations: Object.values(a.derived).map((k) => vaultKeyOrigin(cosigners, k)) };
    }
    const { scriptPubKey: _, ...scripts } = addressScripts(params, w, cosigners, mine.change, mine.index);
    return scripts;
  });
  const xpubs = cosigners.map((c) => ({ xpub: parseXpubLike(c.xpub).bytes, origin: { fingerprint: c.fingerprint, path: parseDerivationPath(c.derivationPath) } }));
  let base64: string;
  try {
    base64 = psbtToBase64(buildMultisigPsbt(tx, inputs, outputs, xpubs));
  } catch (err) {
    // The scripts are the wallet's and the previous transactions checked: this is a desk bug.
    if (err instanceof FileFormatError) throw new CoordinatorError('internal', `the PSBT of payment ${p.id} cannot be built: ${err.message}`);
    throw err;
  }
  deps.store.audit(deps.actor, 'payment.export_psbt', `payment ${p.id}: PSBT for ${cosigners.length} co-signers`, null, { paymentId: p.id, walletId: w.id });
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

/** A refusal of the PSBT checks (shared/files/psbt-finalize.ts) as the desk's kind of refusal. */
function refusalKind(code: string): RefusalKind {
  return code === 'tampered' || code === 'foreign' ? code : 'malformed';
}

/** Which payment a PSBT is for: the one whose transaction it carries, or a refusal saying why none. */
/** The coin of the desk's payment whose coins the transaction spends, to word a refusal's amounts in. */
function coinSpentBy(deps: CoreDeps, tx: BitcoinTx): AmountUnit | undefined {
  const theirs = new Set(outpoints(tx));
  const p = deps.store.payments().find((p) => outpoints(decodeTx(p.unsignedTx)).some((o) => theirs.has(o)));
  return p && walletParams(requireWallet(deps, p.walletId));
}

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
 * signatures of inputs it already finalized), P2SH or segwit: what the PSBT says each input spends
 * must be the payment's; each signature is verified against the payment's stored hash for its
 * input and key exactly like a signature file's, and against the digest recomputed from the PSBT;
 * then all are stored or none. A PSBT whose witness UTXO disagrees with its previous transaction
 * is refused when it is read (decodePsbt).
 */
export function importPsbtFile(deps: CoreDeps, input: SignatureFileInput): FileResult {
  let psbt: DecodedPsbt;
  try {
    psbt = psbtFromBase64(input.text, (tx) => coinSpentBy(deps, tx));
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

  const vault = vaultPaymentInputs(deps, w, p);
  if (vault) return importVaultPsbt(deps, input.name, p, w, vault, psbt);
  const stored = deps.store.paymentInputs(p.id);
  const cosigners = deps.store.cosigners(w.id);
  // The desk's statement of what each input spends (stored when proposed, checked with the chain):
  // the PSBT's own statement (its previous transactions and scripts) must be exactly this.
  const addresses = psbt.tx.inputs.map((_, i) => {
    const row = stored.find((s) => s.inputIndex === i);
    if (!row) throw new CoordinatorError('internal', `payment ${p.id} has no stored input ${i}`);
    return { row, address: walletAddress(params, w, cosigners.map((c) => c.xpub), row.change, row.index) };
  });
  const ours: MultisigInputSpend[] = addresses.map(({ row, address }) => ({ scriptType: w.scriptType, multisigScript: row.redeemScript, amount: row.amount, scriptPubKey: address.scriptPubKey }));
  let spends: MultisigInputSpend[];
  try {
    spends = psbtMultisigSpends(params, psbt, ours);
  } catch (err) {
    if (err instanceof PaymentCheckError) return refused(input.name, refusalKind(err.code), err.message, p.id);
    throw err;
  }
  let found;
  try {
    found = psbtSignatures(psbt, spends.map((s) => s.multisigScript));
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

  // Each named signature against the payment's stored hash of its input and key, as a signature file's.
  const hashes = deps.store.paymentHashes(p.id);
  for (const s of found.partial) {
    const checked = checkSignature(hashes, s, p.id);
    if (!checked.ok) return refused(input.name, checked.refusal, checked.message, p.id);
  }
  // Then every signature, finalized inputs' too, against the digest recomputed from the PSBT's own
  // transaction and spends (BIP143 with the amount for segwit inputs): two independent checks agree.
  let verified: VerifiedPsbtSignature[];
  try {
    verified = verifyPsbtSignatures(params, psbt, spends);
  } catch (err) {
    if (err instanceof PaymentCheckError) return refused(input.name, refusalKind(err.code), err.message, p.id);
    throw err;
  }
  const sigs: CheckedSignature[] = [];
  for (const s of verified) {
    const checked = checkSignature(hashes, s, p.id);
    if (!checked.ok) return refused(input.name, checked.refusal, checked.message, p.id);
    sigs.push(checked.value);
  }
  // Named by whose derived key signed (co-signer order), whatever order the script puts keys in.
  const signers = [...new Set(sigs.map((s) => {
    const pos = addresses[s.inputIndex]!.address.publicKeys.findIndex((k) => equalBytes(k, s.publicKey));
    return cosigners[pos]?.name ?? `key ${bytesToHex(s.publicKey)}`;
  }))];
  const added = storeSignatures(deps, p.id, sigs, input.name, signers.join(', '));
  const status = added === 0 ? 'duplicate' : 'imported';
  const message = added === 0 ? `${input.name}: already imported, ignored` : `${input.name}: ${plural(added, 'signature')} by ${signers.join(', ')} imported from the PSBT`;
  return { file: input.name, status, message, paymentId: p.id, added, progress: progress(deps, p.id).inputs };
}

/**
 * A vault payment's PSBT back (issue 27): each input must carry the payment's witness script and
 * spend the amount stored (its previous transaction); the partial signatures taken are those of
 * the chosen path's keys, each verified against the payment's stored hash, then stored all or none.
 * A key of another path is refused naming whose it is; an input the signer finalized is refused
 * (the desk assembles the witness: the service picks the cheapest satisfaction).
 */
function importVaultPsbt(deps: CoreDeps, name: string, p: PaymentRow, w: WalletRow, vault: readonly VaultPaymentInput[], psbt: DecodedPsbt): FileResult {
  const params = walletParams(w);
  const stored = deps.store.paymentInputs(p.id);
  for (const [i, map] of psbt.inputs.entries()) {
    const row = stored.find((s) => s.inputIndex === i);
    if (!row) throw new CoordinatorError('internal', `payment ${p.id} has no stored input ${i}`);
    if (findEntry(map, INPUT.FINAL_SCRIPTWITNESS) || findEntry(map, INPUT.FINAL_SCRIPTSIG)) {
      return refused(name, 'malformed', `input ${i} was finalized by the signer; export its signatures before finalizing (the desk builds a vault's witness on the chosen path)`, p.id);
    }
    const script = findEntry(map, INPUT.WITNESS_SCRIPT)?.value;
    if (!script) return refused(name, 'malformed', `input ${i} carries no witness script (WITNESS_SCRIPT)`, p.id);
    if (!equalBytes(script, row.redeemScript)) return refused(name, 'tampered', `input ${i}'s witness script is not the vault's at the address it spends`, p.id);
    const full = findEntry(map, INPUT.NON_WITNESS_UTXO);
    const spent = full ? outputOfRaw(full.value, psbt.tx.inputs[i]!.vout) : undefined;
    if (!spent) return refused(name, 'malformed', `input ${i} carries no previous transaction (NON_WITNESS_UTXO): it proves the amount a signature commits to`, p.id);
    if (spent.value !== row.amount) return refused(name, 'tampered', `input ${i} spends ${coinAmount(params, spent.value)} in the PSBT, ${coinAmount(params, row.amount)} in the payment`, p.id);
  }
  let found;
  try {
    found = psbtSignatures(psbt, stored.map((r) => r.redeemScript));
  } catch (err) {
    if (err instanceof FileFormatError) return refused(name, 'tampered', err.message, p.id);
    throw err;
  }
  for (const [i, type] of found.sighashTypes) {
    if (type !== params.hashType) return refused(name, 'tampered', `input ${i} asks for signature hash type 0x${type.toString(16)}; the desk collects SIGHASH_ALL (0x01) signatures only`, p.id);
  }
  const badType = found.partial.find((s) => s.hashType !== params.hashType);
  if (badType) return refused(name, 'tampered', `a signature of input ${badType.inputIndex} has hash type 0x${badType.hashType.toString(16)}, not SIGHASH_ALL (0x01)`, p.id);
  if (found.partial.length === 0) return refused(name, 'malformed', 'it carries no signatures yet: a co-signer signs it first', p.id);
  const hashes = deps.store.paymentHashes(p.id);
  const sigs: CheckedSignature[] = [];
  for (const s of found.partial) {
    const offPath = vaultKeyRefusal(deps, w, vault, s.inputIndex, s.publicKey);
    if (offPath) return refused(name, 'foreign', offPath, p.id);
    const checked = checkSignature(hashes, s, p.id);
    if (!checked.ok) return refused(name, checked.refusal, checked.message, p.id);
    sigs.push(checked.value);
  }
  const cosigners = deps.store.cosigners(w.id);
  const holder = (s: CheckedSignature) => vault.find((v) => v.inputIndex === s.inputIndex)?.spend.pathKeys.find((k) => equalBytes(k.publicKey, s.publicKey))?.key;
  const signers = [...new Set(sigs.map((s) => cosigners[holder(s) ?? -1]?.name ?? `key ${bytesToHex(s.publicKey)}`))];
  const added = storeSignatures(deps, p.id, sigs, name, signers.join(', '));
  const status = added === 0 ? 'duplicate' : 'imported';
  const message = added === 0 ? `${name}: already imported, ignored` : `${name}: ${plural(added, 'signature')} by ${signers.join(', ')} imported from the PSBT`;
  return { file: name, status, message, paymentId: p.id, added, progress: progress(deps, p.id).inputs };
}
