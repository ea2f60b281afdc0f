// Core's rows as the contract's views: what each screen is shown, nothing more. No service calls:
// the handlers ask core, these shape the answer.
import QRCode from 'qrcode';
import { bytesToHex, decodeTx, scriptToAddress } from '../../shared/coins/index.ts';
import { addressPath } from '../../shared/coins/multisig-address.ts';
import { estimateVsize } from '../../shared/coins/tx-size.ts';
import { feeShare } from '../core/payments/fees.ts';
import type { OpenedRequest } from '../../shared/files/signing-request.ts';
import { paymentHash } from '../../shared/files/signing-files.ts';
import type { ServiceConnection } from '../core/chains/connection.ts';
import { progress, requirePayment } from '../core/payments/payments.ts';
import { vaultPaymentInputs } from '../core/payments/vault-inputs.ts';
import type { FileResult } from '../core/payments/signature-import.ts';
import type { AddressRow, CosignerRow, PaymentRow, WalletRow } from '../core/store/store.ts';
import type { SetupRead } from '../core/wallets/setup-files.ts';
import { vaultWords } from '../core/vaults/vaults.ts';
import { requireWallet, walletParams, type CoreDeps } from '../core/wallets/wallets.ts';
import type { CosignerView, ImportResult, OpenedRequestView, OutputView, PaymentDetail, PaymentSummary, ReceiveAddress, ServiceSettings, SetupDraft, WalletSummary } from './contract.ts';
import { explainPayment } from './explain.ts';
import { cpfpParentOf, replacementView } from './replacement-view.ts';
import { paymentSigningPath, requestSigningPath, signatureCount } from './signing-path.ts';
import { replacementsOf } from '../core/payments/dropped.ts';
import { paymentName } from '../core/payments/words.ts';
import { signedVsize } from '../core/payments/signed-size.ts';
import { unitOf, uriScheme } from './units.ts';

type StoreDeps = Pick<CoreDeps, 'store'>;

export const settingsView = (connection: ServiceConnection, embeddedStartedHere: boolean): ServiceSettings => ({
  mode: connection.mode,
  embedded_started_here: embeddedStartedHere,
  service_url: connection.url,
  embedded_url: connection.embeddedUrl,
  remote_url: connection.remoteUrl,
  key_stored: connection.keyStored,
  key_storage: connection.keyStorage(),
  notice: connection.notice,
});

export const cosignerView = (c: CosignerRow): CosignerView => ({ name: c.name, xpub: c.xpub, fingerprint: c.fingerprint, derivation_path: c.derivationPath, device: c.device ?? null });

export function walletSummary(deps: StoreDeps, w: WalletRow): WalletSummary {
  const cosigners = deps.store.cosigners(w.id);
  return {
    id: w.id,
    name: w.name,
    coin: w.coin,
    network: w.network,
    m: w.m,
    n: cosigners.length,
    cosigners: cosigners.map(cosignerView),
    created_at: w.createdAt,
    unit: unitOf(w.coin, w.network, walletParams(w).decimals),
    script_type: w.scriptType,
    sort_keys: w.sortKeys,
    birthday_height: w.birthdayHeight,
    birthday_source: w.birthdaySource,
    vault: Boolean(w.vaultTemplate),
    vault_paths: w.vaultTemplate ? vaultWords(deps, w.id) : null,
  };
}

/** A receive address with its payment URI and that URI as a QR code (SVG data: URL). */
export async function receiveAddressView(w: Pick<WalletRow, 'coin'>, a: AddressRow): Promise<ReceiveAddress> {
  const uri = `${uriScheme(w.coin)}:${a.address}`;
  const svg = await QRCode.toString(uri, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
  return { address: a.address, path: addressPath(a.change, a.index), uri, qr_data_url: `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}` };
}

/** What a payment is beside a plain one, in the words the list shows; `replaced`: a sent replacement took its place. */
function paymentRole(deps: StoreDeps, w: WalletRow, p: PaymentRow): { role: string | null; replaced: boolean } {
  const by = replacementsOf(deps, p).find((q) => q.state === 'broadcast' || q.state === 'confirmed');
  if (by) return { role: `Replaced by ${by.kind === 'cancel' ? 'a cancel, ' : ''}${paymentName(deps, by)}`, replaced: true };
  const original = p.replaces === null ? undefined : deps.store.payment(p.replaces);
  if (original) return { role: `${p.kind === 'cancel' ? 'Cancel' : 'Fee bump'} of ${paymentName(deps, original)}`, replaced: false };
  if (p.kind === 'cpfp') {
    const parent = cpfpParentOf(deps, p);
    return { role: parent ? `Speed-up of ${paymentName(deps, parent)} (child pays for parent)` : 'Speed-up of an unconfirmed deposit (child pays for parent)', replaced: false };
  }
  // A vault paying its own address: the refresh that starts its coins' recovery clock again.
  const own = w.vaultTemplate ? new Set(deps.store.addresses(w.id).map((a) => a.address)) : null;
  if (own && deps.store.paymentRecipients(p.id).every((r) => own.has(r.address))) {
    return { role: 'Refresh: the coins paid back to the vault, restarting their recovery clock', replaced: false };
  }
  return { role: null, replaced: false };
}

export function paymentSummary(deps: StoreDeps, p: PaymentRow): PaymentSummary {
  const w = requireWallet(deps, p.walletId);
  const prog = progress(deps, p.id);
  const signed = Math.min(...prog.inputs.map((i) => i.signed));
  const path = paymentSigningPath(deps, w, p);
  return {
    id: p.id,
    wallet_id: w.id,
    wallet_name: w.name,
    to: p.to,
    recipients: deps.store.paymentRecipients(p.id).length,
    amount: p.amount,
    state: p.state,
    explanation: explainPayment({ state: p.state, path, signed, reason: p.reason, lastError: p.lastError, confirmations: p.confirmations }),
    signed,
    required: path.threshold,
    signatures: signatureCount(signed, path),
    path,
    created_at: p.createdAt,
    updated_at: p.updatedAt,
    unit: unitOf(w.coin, w.network, walletParams(w).decimals),
    purpose: deps.store.labels.get(w.id, 'payment', p.id)?.label ?? null,
    ...paymentRole(deps, w, p),
  };
}

/** units / vbytes with one decimal, rounded down. */
export function feeRate(units: bigint, vsize: number): string {
  const tenths = (units * 10n) / BigInt(Math.max(vsize, 1));
  return `${tenths / 10n}.${tenths % 10n}`;
}

/** `relayed`: whether the service's node relays replacements, when the caller has asked (replacement-view.ts). */
export function paymentDetail(deps: StoreDeps, id: string, relayed?: boolean): PaymentDetail {
  const { store } = deps;
  const p = requirePayment(deps, id);
  const w = requireWallet(deps, p.walletId);
  const params = walletParams(w);
  const prog = progress(deps, id);
  const amounts = new Map(store.paymentInputs(id).map((i) => [i.inputIndex, i.amount]));
  const recipients = store.paymentRecipients(id);
  const asked = recipients.length + (p.operatorAddress ? 1 : 0);
  const outputs: OutputView[] = decodeTx(p.unsignedTx, params).outputs.map((o, i) => ({
    address: scriptToAddress(params, o.script) ?? `script ${bytesToHex(o.script)}`,
    amount: o.value,
    purpose: i < recipients.length ? 'payment' : i < asked ? 'operator_fee' : 'change',
    ...(recipients[i]?.label ? { label: recipients[i].label } : {}),
  }));
  const signers = new Set(prog.inputs.flatMap((i) => i.signers));
  // A vault payment is signed by the keys of its path only (a recovery key has nothing to sign on the primary path).
  const vault = vaultPaymentInputs(deps, w, p);
  const onPath = vault === null ? null : new Set(vault.flatMap((v) => v.spend.pathKeys.map((k) => k.key)));
  const minersFee = p.totalInputValue - outputs.reduce((s, o) => s + o.amount, 0n);
  const n = store.cosigners(w.id).length;
  const tx = decodeTx(p.unsignedTx, params);
  // A vault input is sized by its chosen path's largest witness (a 1-of-2 recovery spend carries one signature), as at proposal.
  const witnessOf = new Map(vault?.map((v) => [v.inputIndex, v.path.largestWitness]));
  // Once signed, the real size (and rate); until then the estimate with the largest signatures.
  const signedSize = signedVsize(deps, w, p);
  const vsize = signedSize ?? estimateVsize(
    params,
    tx.inputs.map((_, i) => {
      const witness = witnessOf.get(i);
      return witness !== undefined ? { scriptType: 'witness' as const, witness } : { scriptType: w.scriptType, m: w.m, n };
    }),
    tx.outputs.map((o) => o.script.length),
  );
  return {
    ...paymentSummary(deps, p),
    miners_fee: minersFee,
    vsize,
    fee_rate: feeRate(minersFee, vsize),
    size_signed: signedSize !== null,
    fee_share: feeShare(minersFee, outputs.filter((o) => o.purpose === 'payment').reduce((s, o) => s + o.amount, 0n)),
    fee_usd: null,
    replaceable: tx.inputs.every((i) => i.sequence < 0xfffffffe),
    operator_address: p.operatorAddress,
    fee_amount: p.operatorFee,
    total_input_value: p.totalInputValue,
    payment_hash: paymentHash(p.unsignedTx),
    reason: p.reason,
    last_error: p.lastError,
    txid: p.txid,
    confirmations: p.confirmations,
    inputs: prog.inputs.map((i) => ({ input_index: i.inputIndex, amount: amounts.get(i.inputIndex) ?? 0n, required: i.required, signed: i.signed, signers: i.signers })),
    outputs,
    cosigners: store.cosigners(w.id).flatMap((c, position) => (onPath === null || onPath.has(position) ? [{ name: c.name, signed: signers.has(c.name) }] : [])),
    replacement: replacementView(deps, p, relayed),
  };
}

export const importResultView = (r: FileResult): ImportResult => ({
  file: r.file,
  status: r.status,
  refusal: r.refusal ?? null,
  message: r.message,
  payment_id: r.paymentId ?? null,
  added: r.added,
});

export const setupDraftView = ({ wallet, notes, birthdayHeight }: SetupRead): SetupDraft => ({
  birthday_height: birthdayHeight,
  name: wallet.name,
  coin: wallet.coin,
  network: wallet.network,
  m: wallet.m,
  cosigners: wallet.cosigners.map((c) => ({ name: c.name, xpub: c.xpub, fingerprint: c.fingerprint ?? '00000000', derivation_path: c.derivationPath ?? 'm' })),
  script_type: wallet.scriptType ?? 'p2sh',
  sort_keys: wallet.sortKeys === true,
  notes,
});

/** `leaving.usd` is null here: the handler asks the service for today's rate. */
export function openedRequestView(opened: OpenedRequest): OpenedRequestView {
  const { request, verified, outputs, params, locks } = opened;
  const minersFee = verified.totalInput - verified.totalOutput;
  const leaving = outputs.filter((o) => o.purpose !== 'change').reduce((s, o) => s + o.amount, minersFee);
  return {
    request_id: request.request_id,
    payment_hash: request.payment_hash,
    coin: request.coin,
    network: request.network,
    wallet_name: request.wallet.name,
    m: request.wallet.m,
    cosigners: request.wallet.cosigners.map((c) => c.name),
    signing: requestSigningPath(opened),
    inputs: verified.inputs.map((i) => ({ index: i.index, amount: i.amount, path: i.path })),
    outputs: outputs.map((o, i) => ({ ...o, path: request.outputs[i]?.path ?? null })),
    miners_fee: minersFee,
    total_input_value: verified.totalInput,
    created_at: request.created_at,
    unit: unitOf(request.coin, request.network, params.decimals),
    label: request.label?.trim() || null,
    leaving: { amount: leaving, usd: null },
    locks,
  };
}
