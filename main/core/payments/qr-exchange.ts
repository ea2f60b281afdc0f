// Air-gapped co-signers by QR (issue 34): a payment's PSBT and a wallet's registration as the frames
// a signer's camera reads, and frames the desk's camera read turned into a PSBT for the one import
// path of PSBT files (files.ts) or into a co-signer's key. The codes are shared/qr's; what is shown
// is exactly what the PSBT export writes (psbt-exchange.ts), shortened only where nothing is lost.
import { base64 } from '@scure/base';
import { bytesToHex } from '../../../shared/coins/index.ts';
import { FileFormatError } from '../../../shared/files/errors.ts';
import { decodePsbt, encodePsbt, findEntry, INPUT, withoutNonWitnessUtxos, withoutWitness, type DecodedPsbt } from '../../../shared/files/psbt.ts';
import { keyForScript, payloadWhat, readQrFrames } from '../../../shared/qr/read.ts';
import { SIGNER_DEVICE_NAMES, type SignerDevice } from '../../../shared/api/signer-devices.ts';
import { preferredPsbtFormat, psbtFrames, registrationFrames, type DescriptorCode, type QrFormat } from '../../../shared/qr/show.ts';
import type { QrDensity } from '../../../shared/qr/ur.ts';
import type { ScannedKey } from '../../../shared/qr/scanned-keys.ts';
import { CoordinatorError } from '../errors.ts';
import { exportVault } from '../vaults/vaults.ts';
import { exportWalletSetup } from '../wallets/setup-files.ts';
import { requireWallet, walletParams, type CoreDeps } from '../wallets/wallets.ts';
import { PreviousTransactions } from './previous-transactions.ts';
import { exportPsbt } from './psbt-exchange.ts';
import { progress, requirePayment } from './payments.ts';
import { vaultPaymentInputs } from './vault-inputs.ts';

export interface PsbtQr {
  format: QrFormat;
  density: QrDensity;
  frames: string[];
  /** True when the previous transactions were left out (every input has its witness UTXO). */
  short: boolean;
  bytes: number;
  /** The format the desk preselects, from the co-signers' devices (whether or not another was asked for). */
  preferred: QrFormat;
  /** Why it preselects that one, in words. */
  preferredWhy: string;
}

/** A co-signer still to sign a payment, with the device the treasurer said it uses (null: not said). */
export interface SignerToSign {
  name: string;
  device: SignerDevice | null;
}

/**
 * The co-signers still to sign the payment, with their stored devices (null: not said): on its path
 * for a vault, and not yet signed on every input.
 */
export function devicesToSign(deps: Pick<CoreDeps, 'store'>, paymentId: string): SignerToSign[] {
  const p = requirePayment(deps, paymentId);
  const w = requireWallet(deps, p.walletId);
  const vault = vaultPaymentInputs(deps, w, p);
  const onPath = vault === null ? null : new Set(vault.flatMap((v) => v.spend.pathKeys.map((k) => k.key)));
  const { inputs } = progress(deps, paymentId);
  return deps.store.cosigners(w.id).flatMap((c, position) => {
    if (onPath !== null && !onPath.has(position)) return [];
    const done = inputs.length > 0 && inputs.every((i) => i.signers.includes(c.name));
    return done ? [] : [{ name: c.name, device: c.device ?? null }];
  });
}

/** Why the dialog opens on `format`, from the devices of the co-signers still to sign. */
export function chosenFormatWords(signers: readonly SignerToSign[], format: QrFormat): string {
  if (signers.every((s) => s.device === null)) return "UR: no device is set for the co-signers still to sign (say each one's on the wallet's page)";
  const list = signers.map((s) => `${s.name}: ${s.device === null ? 'not said' : SIGNER_DEVICE_NAMES[s.device]}`).join(', ');
  return format === 'bbqr' ? `BBQr: every co-signer still to sign uses a Coldcard (${list})` : `UR: not every co-signer still to sign is said to use a Coldcard (${list})`;
}

/**
 * The payment's PSBT as frames. The format is the one asked for, else BBQr where every signer is a
 * Coldcard and UR otherwise; the signers are `devices` when given, else the stored devices of the
 * co-signers still to sign (devicesToSign). `short` (by default, unless a signer is a Coldcard,
 * which asks for them): a segwit PSBT without its previous transactions, for signers that take
 * amounts from witness UTXOs; never for a vault. What comes back gets them again
 * (restorePreviousTransactions).
 */
export async function psbtQr(deps: CoreDeps, paymentId: string, o: { format?: QrFormat; density: QrDensity; devices?: readonly SignerDevice[]; short?: boolean }): Promise<PsbtQr> {
  const p = requirePayment(deps, paymentId);
  const vault = requireWallet(deps, p.walletId).vaultTemplate !== null;
  const stored = o.devices === undefined ? devicesToSign(deps, paymentId) : null;
  const devices: readonly (SignerDevice | null)[] = o.devices ?? stored!.map((s) => s.device);
  const { base64: text } = await exportPsbt(deps, paymentId);
  let bytes = base64.decode(text);
  let short = false;
  if ((o.short ?? !devices.includes('coldcard')) && !vault) {
    const shortened = withoutNonWitnessUtxos(decodePsbt(bytes));
    if (shortened) {
      bytes = encodePsbt(shortened);
      short = true;
    }
  }
  const preferred = preferredPsbtFormat(devices);
  const format = o.format ?? preferred;
  const preferredWhy = stored ? chosenFormatWords(stored, preferred) : `${preferred === 'bbqr' ? 'BBQr' : 'UR'}: for ${devices.map((d) => (d === null ? 'a device not said' : SIGNER_DEVICE_NAMES[d])).join(', ') || 'no device in particular'}`;
  return { format, density: o.density, frames: psbtFrames(bytes, format, o.density), short, bytes: bytes.length, preferred, preferredWhy };
}

/** The wallet as `device` registers it (`code`: text or crypto-output, for the devices that read descriptors), or the device's refusal in words. */
export function registrationQr(deps: CoreDeps, walletId: string, device: SignerDevice, density: QrDensity, code: DescriptorCode = 'text'): { format: string; frames: string[] } {
  const w = requireWallet(deps, walletId);
  const r = w.vaultTemplate
    ? registrationFrames({ kind: 'miniscript', descriptor: exportVault(deps, walletId, 'descriptor').trim() }, device, density)
    : registrationFrames({ kind: 'multisig', coldcardText: coldcardTextOr(deps, walletId, device), descriptor: exportWalletSetup(deps, walletId, 'descriptor').text.trim() }, device, density, code);
  if (!r.ok) throw new CoordinatorError('unsupported', r.refusal);
  return { format: r.format, frames: r.frames };
}

/** Coldcard's text, needed by the devices that read it; a given-order wallet is refused for them (they sort keys). */
function coldcardTextOr(deps: CoreDeps, walletId: string, device: SignerDevice): string {
  if (device === 'seedsigner' || device === 'krux' || device === 'other') return '';
  return exportWalletSetup(deps, walletId, 'coldcard').text;
}

/**
 * A signed PSBT read back from a signer shown the short form: the previous transactions the desk
 * left out are put back, fetched again from the service and checked to hash to the txids the
 * inputs spend (as the export checks them), so the import's own checks apply unchanged. Only the
 * desk's data is added; an unreadable PSBT is returned as read, for the import to refuse in words.
 */
export async function restorePreviousTransactions(deps: CoreDeps, paymentId: string, bytes: Uint8Array): Promise<Uint8Array> {
  let psbt: DecodedPsbt;
  try {
    psbt = decodePsbt(bytes);
  } catch (err) {
    if (err instanceof FileFormatError) return bytes;
    throw err;
  }
  const missing = psbt.inputs.map((m, i) => (findEntry(m, INPUT.NON_WITNESS_UTXO) ? null : bytesToHex(psbt.tx.inputs[i]!.prevTxid))).filter((t): t is string => t !== null);
  if (missing.length === 0) return bytes;
  const w = requireWallet(deps, requirePayment(deps, paymentId).walletId);
  const previous = await PreviousTransactions.fetch(deps.api, w.coin, walletParams(w), [...new Set(missing)]);
  const inputs = psbt.inputs.map((m, i) =>
    findEntry(m, INPUT.NON_WITNESS_UTXO) ? m : [...m, { type: INPUT.NON_WITNESS_UTXO, keyData: new Uint8Array(), value: withoutWitness(previous.raw(bytesToHex(psbt.tx.inputs[i]!.prevTxid))) }],
  );
  return encodePsbt({ ...psbt, inputs });
}

export type ScanResult =
  | { state: 'reading'; format: string; received: number; expected: number; percent: number; note: string | null }
  | { state: 'refused'; message: string }
  | { state: 'psbt'; name: string; text: string; note: string | null }
  | { state: 'key'; key: ScannedKey; format: string };

/**
 * Frames read so far by the camera, in the order read. A PSBT comes back as the base64 text the
 * PSBT file import reads (the caller hands it to importPaymentFiles: every check of a file applies);
 * a key as the co-signer fields. Anything else is refused, naming what it is.
 */
export function readScan(frames: readonly string[], expect: 'psbt' | 'key', script: string | null): ScanResult {
  const r = readQrFrames(frames);
  const note = r.skipped.length > 0 ? `${r.skipped.length} frame${r.skipped.length === 1 ? '' : 's'} skipped: ${r.skipped.at(-1)}` : null;
  if (r.state === 'refused') return { state: 'refused', message: r.message };
  if (r.state === 'reading') return { state: 'reading', format: r.format, received: r.received, expected: r.expected, percent: r.percent, note };
  const p = r.payload;
  if (expect === 'psbt') {
    if (p.kind === 'psbt') return { state: 'psbt', name: `camera (${p.format})`, text: base64.encode(p.bytes), note };
    if (p.kind === 'transaction') return { state: 'refused', message: `the QR holds ${payloadWhat(p)}: ask the signer to show its signed PSBT instead, which the desk checks signature by signature` };
    return { state: 'refused', message: `the QR holds ${payloadWhat(p)}, not a signed PSBT` };
  }
  const key = keyForScript(p, script);
  if (typeof key === 'string') return { state: 'refused', message: key };
  return { state: 'key', key, format: p.format };
}
