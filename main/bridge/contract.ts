// The one typed API the renderer sees (DESIGN.md): every channel's input schema (validated at the
// boundary, whatever the transport) and its answer type. Pure: zod and shared/api only, so the
// renderer's type-check can follow the type imports here.
//
// Amounts are bigint in the smallest unit. Over HTTP they travel as exact JSON integers; so that
// shared/api/json.ts revives them, every bigint field is named with one of its AMOUNT_KEYS
// (amount, balance, unconfirmed_balance, miners_fee, fee_amount, total_input_value).
import { z } from 'zod';
import { UnitsIn } from '../../shared/api/amounts.ts';
import type { Channel } from './channels.ts';

export { CHANNELS, isChannel, type Channel } from './channels.ts';

const id = z.string().min(1, 'an id is required').max(100);
const none = z.object({}).strict();
const hexFingerprint = z.string().regex(/^[0-9a-f]{8}$/, 'fingerprint must be 8 lower-case hex digits');
/** A file the user picked: its name and its text (files are small JSON documents). */
const PickedFile = z.object({ name: z.string().min(1).max(255), text: z.string().max(1_000_000, 'a file above 1 MB is not a Countersign file') });

export const inputs = {
  'service.status': none,
  'settings.get': none,
  // The key is tested, stored in the SecretStore and never sent back, logged or echoed.
  'settings.setService': z.discriminatedUnion('mode', [
    z.object({ mode: z.literal('embedded') }).strict(),
    z
      .object({
        mode: z.literal('remote'),
        base_url: z
          .string()
          .trim()
          .max(500)
          .refine((s) => /^https?:\/\/[^\s]+$/i.test(s) && URL.canParse(s), 'the service address must be an http:// or https:// URL'),
        api_key: z.string().trim().min(1, 'type the API key the service gave you').max(500),
      })
      .strict(),
  ]),
  'wallets.list': none,
  'wallets.create': z.object({
    name: z.string().trim().min(1, 'the wallet needs a name').max(80),
    coin: z.enum(['bitcoin', 'testnet3', 'litecoin', 'bitcoin_cash', 'bitcoin_gold', 'dash', 'zcash', 'zclassic', 'bitcoin_private']),
    network: z.enum(['mainnet', 'testnet', 'regtest']),
    m: z.number().int().min(1).max(15),
    cosigners: z
      .array(
        z.object({
          name: z.string().trim().min(1, 'every co-signer needs a name').max(80),
          xpub: z.string().trim().min(1, 'every co-signer needs an xpub').max(200),
          fingerprint: hexFingerprint.optional(),
          derivation_path: z.string().regex(/^m(\/[0-9]+'?)*$/, "derivation path looks like m/45'/0'").optional(),
        }),
      )
      .min(1)
      .max(15),
  }),
  'wallets.get': z.object({ wallet_id: id }),
  'wallets.receiveAddress': z.object({ wallet_id: id }),
  'wallets.history': z.object({ wallet_id: id, limit: z.number().int().min(1).max(1000).default(50), offset: z.number().int().min(0).default(0) }),
  'wallets.unspent': z.object({ wallet_id: id }),
  // A set-up file another wallet wrote (BSMS, descriptor, Caravan, Coldcard), read into a draft of
  // the new-wallet form; coin and network apply when the file does not name its chain.
  'wallets.readSetup': z.object({
    files: z.array(PickedFile).min(1, 'choose a set-up file').max(15),
    coin: z.enum(['bitcoin', 'testnet3', 'litecoin', 'bitcoin_cash', 'bitcoin_gold', 'dash', 'zcash', 'zclassic', 'bitcoin_private']),
    network: z.enum(['mainnet', 'testnet', 'regtest']),
    name: z.string().trim().max(80).optional(),
    m: z.number().int().min(1).max(15).optional(),
  }),
  'wallets.exportSetup': z.object({ wallet_id: id, format: z.enum(['bsms', 'descriptor', 'caravan', 'coldcard']) }),
  'payments.list': z.object({ wallet_id: id.optional() }),
  'payments.get': z.object({ payment_id: id }),
  'payments.propose': z.object({
    wallet_id: id,
    to: z.string().trim().min(1, 'the recipient address is required').max(200),
    amount: UnitsIn,
    miners_fee: UnitsIn,
    operator: z.object({ address: z.string().trim().min(1).max(200), fee_amount: UnitsIn }).optional(),
  }),
  'payments.exportRequest': z.object({ payment_id: id }),
  'payments.exportPsbt': z.object({ payment_id: id }),
  'payments.importSignatures': z.object({ files: z.array(PickedFile).min(1, 'choose at least one signature file').max(50) }),
  'payments.submit': z.object({ payment_id: id }),
  'payments.cancel': z.object({ payment_id: id, reason: z.string().trim().min(1, 'say why the payment is cancelled').max(500) }),
  'cosigner.open': z.object({ text: PickedFile.shape.text }),
  // The key (an xprv or a BIP39 mnemonic) is used for this one call and dropped: it is never
  // stored, logged or echoed.
  'cosigner.sign': z.object({
    text: PickedFile.shape.text,
    secret: z.string().trim().min(1, 'type the extended private key or the recovery words').max(400),
    passphrase: z.string().max(200).optional(),
  }),
} satisfies Record<Channel, z.ZodType>;

// ---- answers -----------------------------------------------------------------------------------

export type PaymentState = 'awaiting_signatures' | 'ready' | 'broadcast' | 'confirmed' | 'cancelled' | 'failed';

export interface Unit {
  ticker: string;
  decimals: number;
}

export interface ServiceStatus {
  mode: 'embedded' | 'remote';
  service_url: string;
  ok: boolean;
  message: string;
  coins: { coin: string; network: string; tip_height: number | null; indexed_height: number | null; lag: number | null; error: string | null }[];
}

export interface ServiceSettings {
  mode: 'embedded' | 'remote';
  /** The address the desk talks to now. */
  service_url: string;
  embedded_url: string;
  /** The remote address last saved, even while embedded (to prefill the form). */
  remote_url: string | null;
  /** Whether a key is stored; the key itself never crosses the bridge. */
  key_stored: boolean;
  key_storage: { description: string; persistent: boolean; problem: string | null };
  /** Why the saved remote connection was not restored at start, if it was not. */
  notice: string | null;
}

export interface CosignerView {
  name: string;
  xpub: string;
  fingerprint: string;
  derivation_path: string;
}

export interface WalletSummary {
  id: string;
  name: string;
  coin: string;
  network: string;
  m: number;
  n: number;
  cosigners: CosignerView[];
  created_at: string;
  unit: Unit;
}

export interface WalletFunds {
  balance: bigint;
  unconfirmed_balance: bigint;
  /** USD value of the confirmed balance at the service's rate (0 when it has none). */
  usd_balance: number;
}

export interface WalletDetail extends WalletSummary {
  funds: WalletFunds;
  open_payments: number;
}

export interface ReceiveAddress {
  address: string;
  /** Below each co-signer's xpub. */
  path: string;
  /** An SVG QR code of a payment URI, as a data: URL (images are the only inline content the CSP allows). */
  qr_data_url: string;
  uri: string;
}

export interface HistoryEntry {
  txid: string;
  /** Net effect on the wallet: positive received, negative sent. */
  amount: bigint;
  confirmations: number;
  time: number;
}

export interface WalletHistory {
  total: number;
  entries: HistoryEntry[];
}

export interface UnspentOutput {
  txid: string;
  vout: number;
  amount: bigint;
  address: string;
  path: string;
}

export interface InputProgressView {
  input_index: number;
  amount: bigint;
  required: number;
  signed: number;
  signers: string[];
}

export interface OutputView {
  address: string;
  amount: bigint;
  purpose: 'payment' | 'operator_fee' | 'change';
}

export interface PaymentSummary {
  id: string;
  wallet_id: string;
  wallet_name: string;
  to: string;
  amount: bigint;
  state: PaymentState;
  /** One sentence: where the payment is and what happens next. */
  explanation: string;
  /** The fewest signatures any input has, and how many each needs. */
  signed: number;
  required: number;
  created_at: string;
  updated_at: string;
  unit: Unit;
}

export interface PaymentDetail extends PaymentSummary {
  miners_fee: bigint;
  operator_address: string | null;
  fee_amount: bigint | null;
  total_input_value: bigint;
  payment_hash: string;
  reason: string | null;
  last_error: string | null;
  txid: string | null;
  confirmations: number;
  inputs: InputProgressView[];
  outputs: OutputView[];
  cosigners: { name: string; signed: boolean }[];
}

export interface ExportedFile {
  file_name: string;
  text: string;
  /** 'base64': `text` is the base64 of a binary file (a PSBT), to be saved as bytes. */
  encoding?: 'base64';
}

/** A set-up file read into the new-wallet form, for the treasurer to review before creating. */
export interface SetupDraft {
  name: string;
  coin: string;
  network: string;
  m: number;
  cosigners: CosignerView[];
  /** What was read and checked, one line each. */
  notes: string[];
}

export interface ImportResult {
  file: string;
  status: 'imported' | 'duplicate' | 'refused';
  refusal: 'malformed' | 'unknown_request' | 'tampered' | 'foreign' | 'stale' | null;
  message: string;
  payment_id: string | null;
  added: number;
}

export interface OpenedRequestView {
  request_id: string;
  payment_hash: string;
  coin: string;
  network: string;
  wallet_name: string;
  m: number;
  cosigners: string[];
  inputs: { index: number; amount: bigint; path: string }[];
  outputs: (OutputView & { path: string | null })[];
  miners_fee: bigint;
  total_input_value: bigint;
  created_at: string;
  unit: Unit;
}

export interface SignedFile extends ExportedFile {
  signer: string;
}

export interface Outputs {
  'service.status': ServiceStatus;
  'settings.get': ServiceSettings;
  'settings.setService': ServiceSettings;
  'wallets.list': WalletSummary[];
  'wallets.create': WalletSummary;
  'wallets.get': WalletDetail;
  'wallets.receiveAddress': ReceiveAddress;
  'wallets.history': WalletHistory;
  'wallets.unspent': UnspentOutput[];
  'wallets.readSetup': SetupDraft;
  'wallets.exportSetup': ExportedFile;
  'payments.list': PaymentSummary[];
  'payments.get': PaymentDetail;
  'payments.propose': PaymentDetail;
  'payments.exportRequest': ExportedFile;
  'payments.exportPsbt': ExportedFile;
  'payments.importSignatures': ImportResult[];
  'payments.submit': PaymentDetail;
  'payments.cancel': PaymentDetail;
  'cosigner.open': OpenedRequestView;
  'cosigner.sign': SignedFile;
}

export type Inputs = typeof inputs;
/** What a caller passes: amounts as bigint (or digit strings), optional fields omitted. */
export type BridgeInput<C extends Channel> = z.input<Inputs[C]>;
export type BridgeOutput<C extends Channel> = Outputs[C];

export interface BridgeFailure {
  /** A CoordinatorError code, 'bad_input', 'service' (the service failed), 'forbidden' or 'internal'. */
  code: string;
  message: string;
}

export type BridgeResult<T> = { ok: true; value: T } | { ok: false; error: BridgeFailure };

/** What preload exposes in Electron and the HTTP client implements in web mode: one type. */
export interface Bridge {
  invoke<C extends Channel>(channel: C, input: BridgeInput<C>): Promise<BridgeResult<BridgeOutput<C>>>;
}
