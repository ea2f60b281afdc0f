// The one typed API the renderer sees (docs/architecture.md): every channel's input schema (validated at the
// boundary, whatever the transport) and its answer type. Pure: zod and shared/api only, so the
// renderer's type-check can follow the type imports here.
//
// Coin enumerations are built from the coin table (shared/coins), never typed here.
//
// Amounts are bigint in the smallest unit. Over HTTP they travel as exact JSON integers; so that
// shared/api/json.ts revives them, every bigint field is named with one of its AMOUNT_KEYS
// (amount, balance, unconfirmed_balance, miners_fee, fee_amount, total_input_value).
import { z } from 'zod';
import { UnitsIn } from '../../shared/api/amounts.ts';
import { fileTooLarge, filesTooLarge, MAX_FILE_TEXT, MAX_PICKED_TEXT } from '../../shared/api/file-limits.ts';
import { LEDGER_UTXO_COIN_NAMES, NETWORK_NAMES, UTXO_COIN_NAMES } from '../../shared/coins/coin-table.ts';
import { MULTISIG_SCRIPT_TYPES } from '../../shared/coins/multisig-script.ts';
import { SIGNER_DEVICE_NAMES, SIGNER_DEVICES, type SignerDevice } from '../../shared/api/signer-devices.ts';
import { ChainChoice } from '../core/chains/choice.ts';
import type { ChainScan } from '../core/chains/watch-progress.ts';
import type { Channel } from './channels.ts';

export { CHANNELS, isChannel, type Channel } from './channels.ts';

const id = z.string().min(1, 'an id is required').max(100);
/** An unspent output named as txid:vout. */
const Outpoint = z.string().trim().regex(/^[0-9a-fA-F]{64}:[0-9]{1,10}$/, 'an output is txid:vout (64 hex digits, a colon, the output index)');
/** Coin control: the outputs the payment spends, exactly; absent, the desk picks free ones oldest first. */
const InputsIn = z.array(Outpoint).min(1, 'pick at least one output').max(1000).optional();
/** One recipient of a batch as typed or read: the amount stays text so a bad one is named by its line. */
const BatchRow = z.object({ line: z.number().int().min(0), to: z.string().max(200), amount: z.string().max(40), label: z.string().max(200) });
const none = z.object({}).strict();
const feeRateIn = UnitsIn.refine((v) => v >= 1n, 'the fee rate must be at least 1 unit per vbyte');
const hexFingerprint = z.string().regex(/^[0-9a-f]{8}$/, 'fingerprint must be 8 lower-case hex digits');
const accountName = z.string().trim().min(1, 'the account needs a name').max(80);
const etherAddress = (what: string) => z.string().trim().min(1, `${what} is required`).max(60);
const day = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'a date looks like 2026-01-31')
  .refine((d) => !Number.isNaN(Date.parse(`${d}T00:00:00Z`)), 'not a calendar date');
/** Which audit entries: each field narrows; dates are UTC days, both inclusive. */
const AuditFilter = z
  .object({ wallet_id: id.optional(), payment_id: id.optional(), cosigner: z.string().trim().min(1).max(80).optional(), from: day.optional(), to: day.optional() })
  .strict();
/**
 * Where a wallet is read from: the tip now (a new wallet), the height its set-up file gave, the
 * first block on or after a day (UTC), or the beginning of the chain.
 */
const BirthdayIn = z.discriminatedUnion('source', [
  z.object({ source: z.literal('tip') }).strict(),
  z.object({ source: z.literal('file'), height: z.number().int().min(0).max(100_000_000) }).strict(),
  z.object({ source: z.literal('date'), date: z.string().trim().regex(/^\d{4}-\d{2}-\d{2}$/, 'a date looks like 2026-01-31') }).strict(),
  z.object({ source: z.literal('genesis') }).strict(),
]);
/** A file's text, as the renderer read it: at most the desk's file limit (shared/api/file-limits.ts). */
const FileText = z.string().max(MAX_FILE_TEXT, fileTooLarge(null));
const PickedFile = z.object({ name: z.string().min(1).max(255), text: z.string() }).superRefine((f, ctx) => {
  if (f.text.length > MAX_FILE_TEXT) ctx.addIssue({ code: 'custom', path: ['text'], message: fileTooLarge(f.name) });
});
/** Files picked together: each within the limit, and all of them within the limit of one pick. */
const PickedFiles = (none: string, most: number) =>
  z
    .array(PickedFile)
    .min(1, none)
    .max(most)
    .refine((files) => files.reduce((s, f) => s + f.text.length, 0) <= MAX_PICKED_TEXT, filesTooLarge());


/** A co-signer's kind of air-gapped signer, refused in words when it is not one the desk knows. */
const SignerDeviceIn = z.enum(SIGNER_DEVICES, {
  error: () => `the signer's device is one of ${SIGNER_DEVICES.map((d) => SIGNER_DEVICE_NAMES[d]).join(', ')}`,
});

const CosignerIn = z.object({
  name: z.string().trim().min(1, 'every co-signer needs a name').max(80),
  xpub: z.string().trim().min(1, 'every co-signer needs an xpub').max(200),
  fingerprint: hexFingerprint.optional(),
  derivation_path: z.string().regex(/^m(\/[0-9]+'?)*$/, "derivation path looks like m/45'/0'").optional(),
});

/** A vault's key set: its co-signers (or recovery keys) and how many of them sign. */
const VaultKeySetIn = z.object({ threshold: z.number().int().min(1).max(15), cosigners: z.array(CosignerIn).min(1).max(15) });

export const inputs = {
  'service.status': none,
  'desk.changes': none,
  // The coins this desk knows and what each can do: the renderer's coin list comes from here.
  'coins.list': none,
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
  // The chains the embedded service serves, per coin (Settings): list, test without saving, save
  // (tested first; restarts the embedded service), remove. A node's password is typed, kept in the
  // desk's secret store, and never sent back; empty keeps the stored one.
  'chains.list': none,
  'chains.test': z.object({ coin: z.enum(UTXO_COIN_NAMES), choice: ChainChoice, password: z.string().max(500).optional() }).strict(),
  'chains.save': z.object({ coin: z.enum(UTXO_COIN_NAMES), choice: ChainChoice, password: z.string().max(500).optional() }).strict(),
  'chains.remove': z.object({ coin: z.enum(UTXO_COIN_NAMES) }).strict(),
  'wallets.list': none,
  'wallets.create': z.object({
    /** Absent: the tip now (a new wallet). */
    birthday: BirthdayIn.optional(),
    name: z.string().trim().min(1, 'the wallet needs a name').max(80),
    coin: z.enum(UTXO_COIN_NAMES),
    network: z.enum(NETWORK_NAMES),
    m: z.number().int().min(1).max(15),
    /** `device`: the co-signer's kind of air-gapped signer, when the treasurer says (the QR dialogs open on its code). */
    cosigners: z.array(CosignerIn.extend({ device: SignerDeviceIn.optional() })).min(1).max(15),
    /** Optional: p2sh when absent (the desk's original wallets); segwit types only where the coin has segwit. */
    script_type: z.enum(MULTISIG_SCRIPT_TYPES).optional(),
    /** Optional: BIP67 key order; absent: the co-signers' order. */
    sort_keys: z.boolean().optional(),
  }),
  'wallets.get': z.object({ wallet_id: id }),
  // A co-signer's kind of air-gapped signer (null: not said), stored so the QR dialogs open on its code.
  'wallets.setCosignerDevice': z.object({ wallet_id: id, position: z.number().int().min(0).max(14), device: SignerDeviceIn.nullable() }).strict(),
  'wallets.receiveAddress': z.object({ wallet_id: id }),
  'wallets.history': z.object({ wallet_id: id, limit: z.number().int().min(1).max(1000).default(50), offset: z.number().int().min(0).default(0) }),
  'wallets.unspent': z.object({ wallet_id: id }),
  // Freeze (never picked automatically) or unfreeze one of the wallet's unspent outputs.
  'wallets.freezeOutput': z.object({ wallet_id: id, outpoint: Outpoint, frozen: z.boolean() }),
  // A set-up file another wallet wrote (BSMS, descriptor, Caravan, Coldcard), read into a draft of
  // the new-wallet form; coin and network apply when the file does not name its chain.
  'wallets.readSetup': z.object({
    files: PickedFiles('choose a set-up file', 15),
    coin: z.enum(UTXO_COIN_NAMES),
    network: z.enum(NETWORK_NAMES),
    name: z.string().trim().max(80).optional(),
    m: z.number().int().min(1).max(15).optional(),
    /** For BSMS key records (no policy): the address type and key order chosen on the form; every other file says its own. */
    script_type: z.enum(MULTISIG_SCRIPT_TYPES).optional(),
    sort_keys: z.boolean().optional(),
  }),
  // "Rescan from…": recorded, audited, and sent to a watching service (POST /watch/.../rescan).
  'wallets.rescan': z.object({ wallet_id: id, from: BirthdayIn }).strict(),
  'wallets.exportSetup': z.object({ wallet_id: id, format: z.enum(['bsms', 'descriptor', 'caravan', 'coldcard', 'specter']) }),
  // Vaults with recovery paths (issue 27): the days typed for a path, shown in blocks as they are
  // typed (or refused in words); a vault made from co-signers and recovery keys, or read from a
  // Liana/Nunchuk descriptor or a BIP388 policy; its paths and when each opens for each coin; its file.
  'vaults.timelock': z.object({ coin: z.enum(UTXO_COIN_NAMES), network: z.enum(NETWORK_NAMES), days: z.string().max(40), /** The days of the path before this one, which it must come after. */ after_days: z.number().int().min(1).max(100_000).optional() }).strict(),
  'vaults.create': z.discriminatedUnion('template', [
    z
      .object({
        template: z.literal('recovery'),
        birthday: BirthdayIn.optional(),
        name: z.string().trim().min(1, 'the wallet needs a name').max(80),
        coin: z.enum(UTXO_COIN_NAMES),
        network: z.enum(NETWORK_NAMES),
        primary: VaultKeySetIn,
        recovery: z.array(VaultKeySetIn.extend({ days: z.string().max(40) }).strict()).min(1, 'a vault needs a recovery path').max(5),
      })
      .strict(),
    z
      .object({
        template: z.literal('decaying'),
        birthday: BirthdayIn.optional(),
        name: z.string().trim().min(1, 'the wallet needs a name').max(80),
        coin: z.enum(UTXO_COIN_NAMES),
        network: z.enum(NETWORK_NAMES),
        primary: VaultKeySetIn,
        /** After each number of days, a lower threshold of the same keys. */
        decay: z.array(z.object({ threshold: z.number().int().min(1).max(15), days: z.string().max(40) }).strict()).min(1, 'a decaying vault needs a later, lower threshold').max(5),
      })
      .strict(),
    z
      .object({
        template: z.literal('import'),
        birthday: BirthdayIn.optional(),
        name: z.string().trim().min(1, 'the wallet needs a name').max(80),
        coin: z.enum(UTXO_COIN_NAMES),
        network: z.enum(NETWORK_NAMES),
        text: z.string().trim().min(1, 'paste the descriptor or policy').max(20_000),
      })
      .strict(),
  ]),
  'vaults.get': z.object({ wallet_id: id }).strict(),
  'vaults.export': z.object({ wallet_id: id, format: z.enum(['descriptor', 'bip388']) }).strict(),
  // A refresh: the chosen coins (default: those whose recovery path opens within the warning
  // window) sent all back to the vault on the primary path at a fee rate, proposed as a payment.
  'vaults.refresh': z.object({ wallet_id: id, outpoints: z.array(Outpoint).max(1000).optional(), fee_rate: feeRateIn }).strict(),
  'payments.list': z.object({ wallet_id: id.optional() }),
  'payments.get': z.object({ payment_id: id }),
  // One proposal channel for every form: one recipient (`to`, and `amount` or `send_all`), or a
  // batch (`rows`, amounts in the coin's unit, each row checked with its line number).
  'payments.propose': z
    .object({
      wallet_id: id,
      to: z.string().trim().min(1, 'the recipient address is required').max(200).optional(),
      amount: UnitsIn.optional(),
      rows: z.array(BatchRow).min(1, 'add at least one recipient').max(1000).optional(),
      /** Send all: every free (or every picked) output to `to`, no change, the fee taken from the amount. */
      send_all: z.boolean().optional(),
      miners_fee: UnitsIn.optional(),
      /** Units per vbyte, instead of miners_fee. */
      fee_rate: UnitsIn.optional(),
      inputs: InputsIn,
      operator: z.object({ address: z.string().trim().min(1).max(200), fee_amount: UnitsIn }).optional(),
      /** What the payment is for: stored as its 'payment' label with the proposal, in one write. */
      purpose: z.string().trim().max(255, 'a purpose has at most 255 characters').optional(),
      /** A vault's spending path, by the blocks after which it opens (absent or 0: the primary path). */
      vault_path: z.number().int('a path opens after a whole number of blocks').min(0).max(0xffff).optional(),
    })
    .refine((v) => (v.miners_fee === undefined) !== (v.fee_rate === undefined), { message: "give either the miners' fee or a fee rate", path: ['miners_fee'] })
    .refine((v) => v.rows !== undefined || v.to !== undefined, { message: 'the recipient address is required', path: ['to'] })
    .refine((v) => v.rows === undefined || (v.to === undefined && v.amount === undefined && v.send_all !== true), { message: 'a batch gives its recipients as rows, without to, amount or send all', path: ['rows'] })
    .refine((v) => v.rows !== undefined || v.send_all === true || v.amount !== undefined, { message: 'the amount is required (or send all)', path: ['amount'] }),
  // The fee rates offered (fast / normal / slow from the service's estimates) and whether new
  // payments from this wallet will be replaceable (the coin relays BIP125 and the setting is on).
  'payments.feePresets': z.object({ wallet_id: id }),
  // What the wallet may spend now (outputs reserved by unsent payments and frozen ones apart); with
  // send_all, what sending everything free (or the picked outputs) would pay after the fee.
  'payments.spendable': z.object({
    wallet_id: id,
    send_all: z
      .object({
        to: z.string().max(200).optional(),
        inputs: InputsIn,
        miners_fee: UnitsIn.optional(),
        fee_rate: UnitsIn.optional(),
        operator: z.object({ address: z.string().trim().min(1).max(200), fee_amount: UnitsIn }).optional(),
      })
      .optional(),
  }),
  // Without `on`, only reads the setting.
  'settings.setReplaceable': z.object({ on: z.boolean().optional() }),
  // How many days before a vault coin's recovery path opens the desk warns; without `days`, only reads it.
  'settings.vaultWarning': z.object({ days: z.string().max(40).optional() }).strict(),
  // The maximum miners' fee per payment of a coin, in the coin or in USD; without `amount`, only
  // reads it; `reset`: back to the default.
  'settings.maxFee': z
    .object({ coin: z.enum(UTXO_COIN_NAMES), unit: z.enum(['coin', 'usd']).optional(), amount: z.string().max(60).optional(), reset: z.literal(true).optional() })
    .strict(),
  // A payment as it is typed, checked field by field (address for the wallet's coin and network,
  // amount against the dust limit and what the wallet holds); absent fields are not checked.
  'payments.checkDraft': z.object({
    wallet_id: id,
    to: z.string().max(200).optional(),
    amount: UnitsIn.optional(),
    miners_fee: UnitsIn.optional(),
    operator: z.object({ address: z.string().max(200).optional(), fee_amount: UnitsIn.optional() }).optional(),
  }),
  // A batch: recipients typed as rows or read from a CSV file (address,amount,label; amounts in the
  // coin's unit), each row checked with its line number; payments.propose sends them in one transaction.
  // With the fixed miners' fee and the operator fee as typed, the total is checked against what the wallet holds.
  'payments.checkBatch': z.object({
    wallet_id: id,
    csv: z.string().max(200_000).optional(),
    rows: z.array(BatchRow).max(1000).optional(),
    miners_fee: UnitsIn.optional(),
    operator_fee: UnitsIn.optional(),
  }),
  'payments.exportRequest': z.object({ payment_id: id }),
  'payments.exportPsbt': z.object({ payment_id: id }),
  'payments.importSignatures': z.object({ files: PickedFiles('choose at least one signature file', 50) }),
  // Air-gapped signers by QR (issue 34). The payment's PSBT as animated frames: the format asked
  // for, else chosen from the signers' devices; `short`: without previous transactions where the
  // PSBT allows (segwit, not a vault); by default unless a signer is a Coldcard.
  'qr.psbtFrames': z
    .object({
      payment_id: id,
      format: z.enum(['ur', 'bbqr']).optional(),
      density: z.enum(['high', 'low']),
      /** Absent: the stored devices of the co-signers still to sign. */
      devices: z.array(SignerDeviceIn).max(20).optional(),
      short: z.boolean().optional(),
    })
    .strict(),
  // The wallet as a device registers it (so it shows change as change and refuses foreign inputs).
  // `code`: for the devices that read descriptors (SeedSigner, Krux, another), an M-of-N wallet as
  // its text (the default) or as ur:crypto-output.
  'qr.registration': z.object({ wallet_id: id, device: SignerDeviceIn, density: z.enum(['high', 'low']), code: z.enum(['text', 'crypto-output']).optional() }).strict(),
  // The frames the camera has read so far, in order (repeats allowed): progress, or what they hold.
  // `script`: the wallet's script ("wsh", "sh(wsh)", "sh"), to pick one key of a signer's export.
  'qr.read': z
    .object({
      frames: z.array(z.string().max(8000, 'a QR frame holds at most a few thousand characters')).max(3000, 'too many frames: start the scan again'),
      expect: z.enum(['psbt', 'key']),
      script: z.string().max(20).optional(),
      // The payment being signed: a short PSBT read back gets the previous transactions the desk left out.
      payment_id: id.optional(),
    })
    .strict(),
  'payments.submit': z.object({ payment_id: id }),
  'payments.cancel': z.object({ payment_id: id, reason: z.string().trim().min(1, 'say why the payment is cancelled').max(500) }),
  // A stuck payment: rates to choose from; a bump or cancel (BIP125 replacement); a child paying for
  // its parent (without vout: the parent's first output paying the wallet, for a deposit).
  'payments.feeEstimates': z.object({ wallet_id: id }).strict(),
  'payments.replace': z.object({ payment_id: id, action: z.enum(['bump', 'cancel']), fee_rate: feeRateIn }).strict(),
  'payments.cpfp': z
    .object({ wallet_id: id, txid: z.string().trim().regex(/^[0-9a-fA-F]{64}$/, 'txid must be 64 hex digits'), vout: z.number().int().min(0).max(0xffffffff).optional(), target_rate: feeRateIn })
    .strict(),
  // The relay (issue 35; main/core/relay): invitations, joins, the inbox, approvals.
  'relay.status': none,
  'relay.invite': z.discriminatedUnion('role', [
    z.object({ role: z.literal('cosigner'), wallet_id: id, position: z.number().int().min(0).max(14) }).strict(),
    z.object({ role: z.literal('approver'), wallet_id: id, name: z.string().trim().min(1, 'name the approver').max(80) }).strict(),
  ]),
  'relay.join': z
    .object({
      code: z.string().trim().min(1, 'type the invitation code').max(60),
      name: z.string().trim().min(1, 'say your name').max(80),
      // A co-signer's software key signs the device's binding, used for this call only and dropped.
      secret: z.string().trim().max(400).optional(),
      passphrase: z.string().max(200).optional(),
      // Or the co-signer's Ledger signs it (the Bitcoin app's message signing, at the co-signer's path).
      ledger: z.boolean().optional(),
    })
    .refine((j) => !(j.ledger && j.secret), { message: 'bind with your key or with your Ledger, not both', path: ['secret'] }),
  'relay.confirmJoin': z.object({ room: z.string().regex(/^[0-9a-f]{32}$/), device: z.string().regex(/^[0-9a-f]{32}$/), same: z.boolean() }).strict(),
  'relay.sync': z.object({ wait: z.number().int().min(0).max(25).optional() }).strict(),
  'relay.sendRequest': z.object({ payment_id: id }).strict(),
  'relay.sign': z.object({ room: z.string().regex(/^[0-9a-f]{32}$/), payment_id: id, secret: z.string().trim().min(1, 'type the extended private key or the recovery words').max(400), passphrase: z.string().max(200).optional() }),
  'relay.decline': z.object({ room: z.string().regex(/^[0-9a-f]{32}$/), payment_id: id, reason: z.string().trim().min(1, 'say why').max(500) }).strict(),
  'relay.approve': z.object({ room: z.string().regex(/^[0-9a-f]{32}$/), payment_id: id, decision: z.enum(['approve', 'decline']), reason: z.string().trim().max(500).optional() }).strict(),
  'relay.approvals': z.object({ payment_id: id }).strict(),
  'relay.rule': z.object({ wallet_id: id }).strict(),
  'relay.setRule': z
    .object({ wallet_id: id, approvals: z.number().int().min(0).max(15), limit: z.string().trim().regex(/^\d{1,30}$/, 'the limit is a whole number of the smallest unit').nullable(), period: z.enum(['day', 'week', 'month']).nullable() })
    .strict()
    .refine((r) => (r.limit === null) === (r.period === null), { message: 'a spending limit needs its period (day, week or month), and a period its limit', path: ['limit'] }),
  // Only the room's owner (the treasurer) removes a member or rotates a member's device key.
  'relay.removeMember': z.object({ room: z.string().regex(/^[0-9a-f]{32}$/, 'room: 32 hex digits'), device: z.string().regex(/^[0-9a-f]{32}$/, 'device: 32 hex digits') }).strict(),
  'relay.rotateMember': z.object({ room: z.string().regex(/^[0-9a-f]{32}$/, 'room: 32 hex digits'), device: z.string().regex(/^[0-9a-f]{32}$/, 'device: 32 hex digits') }).strict(),
  // Only in place of a stored relay key that cannot be read (it is kept aside first).
  'relay.newKey': none,
  'cosigner.open': z.object({ text: FileText }),
  // The key (an xprv or a BIP39 mnemonic) is used for this one call and dropped: it is never
  // stored, logged or echoed.
  'cosigner.sign': z.object({
    text: FileText,
    secret: z.string().trim().min(1, 'type the extended private key or the recovery words').max(400),
    passphrase: z.string().max(200).optional(),
  }),
  // Ether accounts. A software key (generated here, or recovery words / a private key typed in)
  // goes to the desk's SecretStore and never comes back over the bridge.
  'accounts.list': none,
  'accounts.create': z.discriminatedUnion('kind', [
    z
      .object({
        kind: z.literal('software'),
        name: accountName,
        key: z.discriminatedUnion('source', [
          z.object({ source: z.literal('generate') }).strict(),
          z.object({ source: z.literal('mnemonic'), words: z.string().trim().min(1, 'type the recovery words').max(400), passphrase: z.string().max(200).optional() }).strict(),
          z.object({ source: z.literal('private_key'), private_key: z.string().trim().regex(/^(0x)?[0-9a-fA-F]{64}$/, 'a private key is 64 hex digits') }).strict(),
        ]),
      })
      .strict(),
    z
      .object({
        kind: z.literal('ledger'),
        name: accountName,
        address: etherAddress('the account address'),
        derivation_path: z.string().regex(/^m(\/[0-9]+'?)*$/, "derivation path looks like m/44'/60'/0'/0/0").optional(),
      })
      .strict(),
  ]),
  'accounts.get': z.object({ account_id: id }),
  // What the token contract reports of itself, shown before the person confirms following it.
  'accounts.tokenInfo': z.object({ contract: etherAddress('the token contract address') }),
  // decimals and symbol are the contract's: given here they only check it (a difference is refused);
  // symbol names a token whose contract has no symbol the desk shows.
  'accounts.addToken': z.object({
    account_id: id,
    contract: etherAddress('the token contract address'),
    symbol: z.string().trim().min(1, 'the token needs a symbol').max(12).optional(),
    decimals: z.number().int().min(0).max(255).optional(),
  }),
  'accounts.history': z.object({ account_id: id, limit: z.number().int().min(1).max(1000).default(50), offset: z.number().int().min(0).default(0) }),
  // propose -> (the person reads the decoded summary) -> confirm, or cancel; get follows a send.
  'accounts.send': z.discriminatedUnion('action', [
    z.object({
      action: z.literal('propose'),
      account_id: id,
      to: etherAddress('the recipient address'),
      /** wei, or the token's smallest unit */
      amount: UnitsIn,
      /** contract of a token the account follows; absent for Ether */
      token: z.string().trim().max(60).optional(),
      /** wei per gas; the service's choice when absent */
      gas_price: UnitsIn.optional(),
      gas_limit: UnitsIn.optional(),
    }),
    z.object({ action: z.literal('confirm'), send_id: id }),
    z.object({ action: z.literal('cancel'), send_id: id }),
    z.object({ action: z.literal('get'), send_id: id }),
  ]),
  // A co-signer's Ledger (main process only; the USB module loads on first use).
  'ledger.devices': none,
  'ledger.xpub': z
    .object({
      coin: z.enum(LEDGER_UTXO_COIN_NAMES),
      network: z.enum(NETWORK_NAMES),
      /** The account path to read; the desk's default (m/45'/coin type'/0') when absent. */
      path: z.string().trim().regex(/^m(\/[0-9]{1,9}'?){1,6}$/, "derivation path looks like m/45'/0'/0'").optional(),
      /** Without a path: the default for this script type (BIP48 m/48'/coin'/0'/2' or /1' for segwit, m/45'/coin'/0' for P2SH). */
      script_type: z.enum(MULTISIG_SCRIPT_TYPES).optional(),
    })
    .strict(),
  'ledger.registerWallet': z.object({ wallet_id: id }).strict(),
  'ledger.showAddress': z.object({ wallet_id: id, change: z.boolean().default(false), index: z.number().int().min(0).max(0x7fffffff) }).strict(),
  'ledger.signPayment': z.object({ payment_id: id }).strict(),
  // The audit log, newest first, a page at a time; the export has every entry the filter keeps.
  'audit.list': AuditFilter.extend({ limit: z.number().int().min(1).max(500).default(50), offset: z.number().int().min(0).default(0) }),
  'audit.export': AuditFilter,
  // Labels (BIP329 types, and 'payment': a payment's purpose, ref = its id); an empty label removes one.
  'labels.list': z.object({ wallet_id: id }).strict(),
  'labels.set': z
    .object({
      wallet_id: id,
      type: z.enum(['tx', 'addr', 'pubkey', 'input', 'output', 'xpub', 'payment']),
      ref: z.string().trim().min(1).max(200),
      label: z.string().trim().max(255, 'a label has at most 255 characters'),
      spendable: z.boolean().optional(),
    })
    .strict(),
  'labels.export': z.object({ wallet_id: id }).strict(),
  'labels.import': z.object({ wallet_id: id, file: PickedFile }).strict(),
  // The books: every confirmed transaction with its balance after and USD value (the chart), and as CSV for a date range.
  'books.series': z.object({ wallet_id: id }).strict(),
  'books.export': z.object({ wallet_id: id, from: day.optional(), to: day.optional() }).strict(),
} satisfies Record<Channel, z.ZodType>;

// ---- answers -----------------------------------------------------------------------------------

export type PaymentState = 'awaiting_signatures' | 'ready' | 'broadcast' | 'confirmed' | 'cancelled' | 'failed';

/**
 * What a wallet may spend now; reserved and frozen outputs apart (payments.spendable). Amounts sit
 * under the bridge's amount keys (balance, amount, miners_fee) so they arrive as exact bigints.
 */
export interface SpendableView {
  unit: Unit;
  /** Free outputs; unconfirmed_balance is the part of them still unconfirmed. */
  available: { balance: bigint; unconfirmed_balance: bigint };
  /** Outputs that payments awaiting signatures or ready spend, and those payments. */
  reserved: { amount: bigint; payments: string[] };
  frozen: { amount: bigint };
  send_all: { amount: bigint; miners_fee: bigint; outputs: number } | { refused: string } | null;
}

export interface Unit {
  ticker: string;
  decimals: number;
  /** The smallest unit's name, for fee rates: "sat", "litoshi", "duff", "zat", "wei". */
  smallest: string;
  /** How many decimals an amount typed may have, when fewer than `decimals` (Ether and tokens go to the service in GWEI: 9). */
  places?: number;
}

export interface ServiceStatus {
  mode: 'embedded' | 'remote';
  service_url: string;
  ok: boolean;
  message: string;
  /** index_final false: the coin's balances and history are not final yet (provisional on screen). */
  coins: { coin: string; network: string; tip_height: number | null; indexed_height: number | null; lag: number | null; error: string | null; index_final: boolean }[];
  /** The watch scans running on each chain, for this desk's wallets (a chain on the full index has none). */
  scans: ChainScanView[];
}

/** One chain's watch scan: the sync bar says how far it is. */
export type ChainScanView = ChainScan;

/** One coin of the table as the screens need it (shared/coins/coin-data.ts has the meaning of each field). */
export interface CoinView {
  coin: string;
  /** 'utxo': multi-signature wallets; 'evm': accounts (ethereum). */
  family: 'utxo' | 'evm';
  ticker: string;
  decimals: number;
  /** A Ledger app the desk reads co-signer keys from and signs on. */
  ledger: boolean;
  /** Payments export as PSBT files. */
  psbt: boolean;
  /** Caravan reads and writes its wallets. */
  caravan: boolean;
  segwit: boolean;
  bip125: boolean;
  /** The coin itself is a test chain (testnet3). */
  test_coin: boolean;
}

export interface ServiceSettings {
  mode: 'embedded' | 'remote';
  /** The embedded service was started by this desk (false: a service on 127.0.0.1 started beside it). */
  embedded_started_here: boolean;
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

/** A coin's chain as Settings shows it (never a password). */
export interface ChainView {
  coin: string;
  /** Where the embedded service's connection for this coin comes from; null: none. */
  source: 'settings' | 'file' | null;
  /** The choice saved in Settings; null when none (a file's coin shows no form values). */
  choice: ChainChoice | null;
  password_stored: boolean;
}

export interface ChainsView {
  /** The desk talks to the service it started itself, whose chains are set here. */
  embedded: boolean;
  /**
   * Null when this desk started a service of its own, whose chains Settings connects and tests;
   * else why none can be connected here and what to do (a desk talking to a service started
   * without it, e.g. a development desk), the words "Test connection" would refuse with.
   */
  not_here: string | null;
  /** The service the desk talks to now. */
  service_url: string;
  chains: ChainView[];
  /** Why the embedded service serves fewer chains than asked, when it does. */
  notice: string | null;
  /** How a node's password is kept. */
  secret_storage: { description: string; persistent: boolean; problem: string | null };
}

/** What answered at a chain backend ("Test connection"). */
export interface ChainTestView {
  kind: 'node-rpc' | 'electrum' | 'blockbook';
  software: string | null;
  chain: string | null;
  network: string | null;
  height: number;
  pruned: boolean | null;
  prune_height: number | null;
  block_filters: boolean | null;
  relays_replacements: boolean | null;
  certificate_sha256: string | null;
  notes: string[];
}

export interface RescanView {
  wallet_id: string;
  from_height: number;
  requested_at: string;
  message: string;
}

export interface CosignerView {
  name: string;
  xpub: string;
  fingerprint: string;
  derivation_path: string;
  /** The co-signer's kind of air-gapped signer; null: not said. Absent in a set-up file's draft. */
  device?: SignerDevice | null;
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
  /** How the wallet's addresses pay: p2sh (legacy), p2sh-p2wsh (nested segwit) or p2wsh (native segwit). */
  script_type: 'p2sh' | 'p2sh-p2wsh' | 'p2wsh';
  /** Keys sorted by BIP67 in every script; false: the co-signers' order. */
  sort_keys: boolean;
  /** The first block that can concern the wallet; null: unknown (read from the beginning). */
  birthday_height: number | null;
  birthday_source: 'tip' | 'file' | 'date' | 'genesis' | null;
  /** A vault with recovery paths (a wsh miniscript): its paths, coins' openings and files are under vaults.*. */
  vault: boolean;
  /** A vault's paths in one line ("2 of Alice, Bob, Carol now, or 1 of Lawyer after 51,840 blocks (about 90 days)"); null for an M-of-N wallet. */
  vault_paths: string | null;
}

export interface WalletFunds {
  balance: bigint;
  unconfirmed_balance: bigint;
  /** USD value of the confirmed balance at the service's rate (0 when it has none). */
  usd_balance: number;
}

/** A watched wallet's scan (the service's GET /watch) in words. */
export interface WatchView {
  /** unregistered: the service watches the coin but not this wallet yet. */
  state: 'scanning' | 'ready' | 'error' | 'unregistered';
  words: string;
  /** "history before block N is not available from this node", for a pruned node. */
  history_limit: string | null;
}

export interface WalletDetail extends WalletSummary {
  /** null: the service refused the balance query while its index catches up (HTTP 503). */
  funds: WalletFunds | null;
  /** null: the coin runs the full index (or is not served); else the scan of a watching service. */
  watch: WatchView | null;
  open_payments: number;
  /** Why the service cannot serve this wallet's coin and network (it does not list them), in words; null when it does. */
  unserved: string | null;
  /** While the desk is still finding which of the wallet's addresses are used (once a run): how far it is; the balance is partial until then. null once done. */
  scan: { checked: number; of: number } | null;
  /**
   * Why the wallet's figures (balance, history, unspent outputs, books) are not final yet, in words;
   * null once they are (main/core/wallets/figures-final.ts): every screen marks them by this alone.
   */
  not_final: string | null;
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
  /** The purpose of the desk's payment that made this transaction, if it has one (its label until the transaction gets its own). */
  purpose: string | null;
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
  /** Frozen: never picked automatically (a BIP329 output label with spendable false). */
  frozen: boolean;
  /** The unsent payment (awaiting signatures or ready) that already spends it, if any. */
  reserved_by: string | null;
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
  /** The treasurer's label of a batch recipient. */
  label?: string;
}

export interface PaymentSummary {
  id: string;
  wallet_id: string;
  wallet_name: string;
  /** The first recipient; a batch pays `recipients` of them, `amount` in all. */
  to: string;
  recipients: number;
  amount: bigint;
  state: PaymentState;
  /** One sentence: where the payment is and what happens next. */
  explanation: string;
  /** The fewest signatures any input has, and how many each needs (the threshold of `path`). */
  signed: number;
  required: number;
  /** "0 of 1 signature": `signed` of `required`, in words. */
  signatures: string;
  /** The path it is signed on: a vault's chosen path, or M of the N co-signers. */
  path: SigningPathView;
  created_at: string;
  updated_at: string;
  unit: Unit;
  /** What the payment is for (its 'payment' label); null when nobody said. */
  purpose: string | null;
  /** What it is beside a plain payment, in words ("Replaced by payment of …", "Speed-up of payment of … (child pays for parent)", "Refresh …"); null for a plain payment. */
  role: string | null;
  /** Replaced by a payment of the desk that was sent: shown as replaced, not as a failure. */
  replaced: boolean;
}

export interface PaymentDetail extends PaymentSummary {
  miners_fee: bigint;
  /** Virtual size of the signed transaction (weight / 4): estimated with the largest signatures until it is signed, then its real size. */
  vsize: number;
  /** miners_fee / vsize in the coin's smallest unit per vbyte, one decimal (before signing a lower bound: the real vsize is at most the estimate). */
  fee_rate: string;
  /** `vsize` and `fee_rate` are those of the signed transaction, not the estimate. */
  size_signed: boolean;
  /** The miners' fee as a share of what the recipients are paid, in percent ("0.02%"). */
  fee_share: string;
  /** The miners' fee in USD at today's rate; null when the service has no rate. */
  fee_usd: number | null;
  /** Every input signals BIP125 replaceability. */
  replaceable: boolean;
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
  replacement: ReplacementView;
}

/** How a payment stands to replacements (BIP125) and child-pays-for-parent. */
export interface ReplacementView {
  kind: 'payment' | 'bump' | 'cancel' | 'cpfp';
  /** The payment this one replaces. */
  replaces: string | null;
  /** The broadcast or confirmed payment that replaced this one. */
  replaced_by: string | null;
  /** The payment that dropped this one (shown as "dropped"): it confirmed, or it replaced this one's parent. */
  dropped_by: string | null;
  /** The transaction that dropped it when the desk holds no payment of it (its parent replaced from elsewhere). */
  dropped_by_txid: string | null;
  /** What can pull this payment through while it is stuck: a replacement, or a child from its change; null when nothing. */
  relief: 'replace' | 'cpfp' | null;
  /** Why it cannot be replaced, in words, when relief is not 'replace' and it is broadcast. */
  not_replaceable: string | null;
  /** The change output a child would spend (relief 'cpfp'). */
  change_output: { txid: string; vout: number } | null;
  /** Every bump or cancel proposed for this payment, oldest first; `refused`: the network's reason when it refused it at broadcast. */
  replacements: { id: string; kind: 'bump' | 'cancel'; state: PaymentState; refused: string | null }[];
  /** This replacement was refused by the network at broadcast (it stays ready): the reason. */
  refused: string | null;
  /** Dropped because the payment whose output it spends (a child's parent) was replaced: that payment. */
  dropped_parent: string | null;
  /** A child-pays-for-parent: the payment it speeds up (whose output it spends), when the desk holds it. */
  parent: string | null;
  /** The children proposed to speed this payment up (child-pays-for-parent), oldest first. */
  children: { id: string; state: PaymentState }[];
  /** Where a cancel or a child sends the coins: "vault" or "wallet". */
  home: 'vault' | 'wallet';
}

export interface FeeRatePresets {
  /** Units per vbyte for 1, 6 and 24 blocks, as the service estimates them (whole units: plain numbers). */
  presets: { blocks: number; fee_rate: number; source: string }[];
  fallback_fee_rate: number;
}

/** A coin's maximum miners' fee per payment, as Settings shows it. */
export interface MaxFeeView {
  coin: string;
  unit: 'coin' | 'usd';
  /** The amount as typed back: decimal text in the coin's unit or in dollars. */
  amount: string;
  /** The coin's ticker (mainnet), for the unit's name. */
  ticker: string;
  is_default: boolean;
  /** The rule in words: "at most $100.00 per payment (the default; 0.1 LTC where the service has no USD rate)". */
  words: string;
}

export interface CpfpView {
  payment: PaymentDetail;
  /** The fee each pays (miners_fee: a revived bigint key) and its virtual size; the parent's figures are its whole unconfirmed package (itself and `ancestors`). */
  parent: { miners_fee: bigint; vsize: number; ancestors: string[] };
  /** The child's own fee, also in USD at today's rate (null: the service has no rate). */
  child: { miners_fee: bigint; vsize: number; usd: number | null };
  /** (parent fee + child fee) / (parent vsize + child vsize), units per vbyte, two decimals. */
  package_rate: string;
  /** The parent is counted in the package (proven unconfirmed: the desk's own payment, or in your own node's mempool); false: the child pays for itself alone. */
  parent_counted: boolean;
  /** What the service calls unconfirmed but nothing proves, left out of the package, in words. */
  left_out: string[];
}

/** A field of a payment draft the desk refuses, and why, in words (amounts in the coin's unit). */
export interface FieldRefusal {
  /** The payments.propose input name: to, amount, miners_fee, operator.address, operator.fee_amount. */
  field: string;
  message: string;
}

/** The fee rates a proposal may use, and whether it will signal BIP125. */
export interface FeePresets {
  presets: { name: 'fast' | 'normal' | 'slow'; blocks: number; fee_rate: bigint; fallback: boolean }[];
  /** The coin signals replacements (its row's bip125): a payment asked replaceable signals BIP125. */
  bip125: boolean;
  /** The service's node relays replacements (its /status, else the coin network's default): only then is a bump offered; otherwise a child. */
  relayed: boolean;
  /** New payments from this wallet will signal replacement: bip125 and the desk setting on (never the service's word). */
  replaceable: boolean;
}

/** A batch's rows as read, and every bad row in words with its line number. */
export interface BatchCheck {
  rows: { line: number; to: string; amount: string; label: string }[];
  refusals: { line: number; message: string }[];
}

export interface DraftCheck {
  /** Empty when every field given is acceptable. */
  refusals: FieldRefusal[];
  /** What to know before paying, in words: a dropped payment to the same recipient that could still confirm. */
  warnings: string[];
}

export interface QrFramesView {
  /** 'ur' or 'bbqr' for a PSBT; a registration's code in words. */
  format: string;
  frames: string[];
  density?: 'high' | 'low';
  /** The PSBT was shown without its previous transactions. */
  short?: boolean;
  bytes?: number;
  /** A PSBT's format chosen from these devices (absent: asked for). */
  devices?: SignerDevice[];
  /** A PSBT: the format the desk preselects from the co-signers' devices, and why in words. */
  preferred?: 'ur' | 'bbqr';
  preferred_why?: string;
}

export type QrReadView =
  | { state: 'reading'; format: string; received: number; expected: number; percent: number; note: string | null }
  | { state: 'refused'; message: string }
  /** A PSBT read whole: pass it to payments.importSignatures as a file (every check of a PSBT file applies). */
  | { state: 'psbt'; name: string; text: string; note: string | null }
  /** `device`: the kind of signer the export names (a Coldcard's key file), to preset the co-signer's; null: it does not say. */
  | { state: 'key'; format: string; key: { xpub: string; fingerprint: string; derivation_path: string; script: string | null; device: SignerDevice | null } };

export interface ExportedFile {
  file_name: string;
  text: string;
  /** 'base64': `text` is the base64 of a binary file (a PSBT), to be saved as bytes. */
  encoding?: 'base64';
}

/** A recovery path's days as typed: "90 days (51,840 blocks on litecoin)". */
export interface TimelockView {
  days: number;
  blocks: number;
  words: string;
}

/** Who signs a payment (main/bridge/signing-path.ts): a vault's path, or M of the N co-signers. */
export interface SigningPathView {
  threshold: number;
  /** The holders of the path's keys. */
  keys: string[];
  /** The path opens this many blocks after a coin's block (0: at once). */
  blocks: number;
  /** 0: the main path (or M of N); i: the vault's i-th recovery path. */
  recovery: number;
  /** "main path", "recovery path", "recovery path 2", "co-signers". */
  name: string;
  /** "recovery path: 1 of 2 (Dave, Erin), open 144 blocks (about 0.3 days) after a coin's block". */
  words: string;
}

/** One spending path of a vault: "now: 2 of Alice, Bob, Carol"; "after 51,840 blocks (about 90 days): 1 of Lawyer". */
export interface VaultPathView {
  threshold: number;
  keys: string[];
  /** 0: the primary path, open at once. */
  blocks: number;
  words: string;
  /** The path as a payment on it is signed. */
  signing: SigningPathView;
}

/** When a recovery path opens for one of the vault's coins. */
export interface VaultCoinView {
  txid: string;
  vout: number;
  amount: bigint;
  /** The path's words, as in `paths`. */
  path: string;
  /** The path's blocks, as in `paths`. */
  path_blocks: number;
  /** The first block that may hold a spend on this path; null while the coin is unconfirmed. */
  opens_at_block: number | null;
  blocks_left: number;
  /** ISO date estimated from the coin's block interval; null while unconfirmed. */
  opens_around: string | null;
}

export interface VaultView {
  paths: VaultPathView[];
  coins: VaultCoinView[];
  unit: Unit;
  /** Why the coins could not be read (the service refused or is catching up); null when they were. */
  coins_unread: string | null;
  /** The coins to refresh: those whose soonest recovery path opens within `days` days (Settings), or is open, and that no unsent payment spends already. */
  refresh: { days: number; due: string[]; warning: string | null; headline: string | null };
}

/** A set-up file read into the new-wallet form, for the treasurer to review before creating. */
export interface SetupDraft {
  name: string;
  coin: string;
  network: string;
  m: number;
  cosigners: CosignerView[];
  /** The file's address type and key order: the form's selectors take them. */
  script_type: 'p2sh' | 'p2sh-p2wsh' | 'p2wsh';
  sort_keys: boolean;
  /** What was read and checked, one line each. */
  notes: string[];
  /** The wallet's first block where the file says it; null: the treasurer gives a date or the beginning. */
  birthday_height: number | null;
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
  /** The path the request asks signatures for (a vault's from its vault_path), and how many it needs. */
  signing: SigningPathView;
  inputs: { index: number; amount: bigint; path: string }[];
  outputs: (OutputView & { path: string | null })[];
  miners_fee: bigint;
  total_input_value: bigint;
  created_at: string;
  unit: Unit;
  /** The payment's purpose as the request states it (not signed); null when it gives none. */
  label: string | null;
  /** What leaves the wallet: every output but change, plus the miners' fee; `usd` at today's rate from this desk's service (null: it has none). */
  leaving: { amount: bigint; usd: number | null };
  /** Each lock on when the payment can be mined, in words (only a recovery path's wait passes the check); empty: none. */
  locks: string[];
}

export interface SignedFile extends ExportedFile {
  signer: string;
}

export interface TokenView {
  /** EIP-55 contract address. */
  contract: string;
  symbol: string;
  decimals: number;
  unit: Unit;
}

/** A token as its contract reports it, before it is followed. */
export interface TokenPreview {
  /** EIP-55 contract address. */
  contract: string;
  /** null: the contract has no name fit to show */
  name: string | null;
  /** null: the contract has no symbol fit to show */
  symbol: string | null;
  decimals: number;
  /** The contract's symbol is missing or not one the desk shows: the person types one to name it. */
  symbol_needed: boolean;
}

export interface AccountSummary {
  id: string;
  name: string;
  kind: 'software' | 'ledger';
  /** EIP-55. */
  address: string;
  chain_id: string;
  network: string;
  derivation_path: string | null;
  created_at: string;
  /** Ether's unit on this chain. */
  unit: Unit;
  tokens: TokenView[];
  /** Whether this desk can sign for the account now, and how (never the key itself). */
  can_sign: boolean;
  signing: string;
}

export interface AccountFunds {
  balance: bigint;
  unconfirmed_balance: bigint;
  /** 0 when the service has no rate (tokens have none). */
  usd_balance: number;
}

export type AccountSendState = 'proposed' | 'broadcast' | 'confirmed' | 'cancelled' | 'failed';

/** A send as this desk decoded it from the unsigned transaction, not as the service described it. */
export interface AccountSendView {
  id: string;
  account_id: string;
  account_name: string;
  from: string;
  to: string;
  /** null for Ether. */
  token: TokenView | null;
  amount: bigint;
  unit: Unit;
  /** gas limit x gas price, in wei: the most the miners can take. */
  fee_amount: bigint;
  fee_unit: Unit;
  gas_price: string;
  gas_limit: string;
  nonce: string;
  chain_id: string;
  /** Whom the transaction calls: the recipient (Ether) or the token contract. */
  tx_to: string;
  /** The hash signed (keccak256 of the EIP-155 payload), recomputed by this desk. */
  hash: string;
  state: AccountSendState;
  explanation: string;
  reason: string | null;
  txid: string | null;
  confirmations: number;
  created_at: string;
  updated_at: string;
}

export interface AccountDetail extends AccountSummary {
  ether: AccountFunds;
  token_balances: (TokenView & AccountFunds)[];
  /** Newest first. */
  sends: AccountSendView[];
}

export interface AccountHistoryView {
  total: number;
  entries: { txid: string; asset: string; amount: bigint; unit: Unit; confirmations: number; time: number }[];
}

export interface LedgerDevices {
  /** Identifiers of the Ledgers plugged in. */
  devices: string[];
  /** False when this build has no USB support (the message says so). */
  usb: boolean;
  message: string;
}

export interface LedgerXpub {
  xpub: string;
  fingerprint: string;
  derivation_path: string;
  app: string;
}

export interface LedgerRegistration {
  cosigner: string;
  policy_id: string;
  registered_at: string;
}

export interface LedgerAddress {
  address: string;
  path: string;
  cosigner: string;
}

export interface AuditEntryView {
  id: number;
  /** ISO 8601, UTC. */
  at: string;
  actor: string;
  action: string;
  wallet_id: string | null;
  wallet_name: string | null;
  payment_id: string | null;
  cosigner: string | null;
  detail: string;
  /** The file or device the action came from, if any. */
  source: string | null;
}

export interface AuditPage {
  /** How many entries the filter keeps (the page has at most `limit` of them). */
  total: number;
  entries: AuditEntryView[];
  /** The filter's choices. */
  wallets: { id: string; name: string }[];
  payments: { id: string; wallet_id: string; label: string }[];
  cosigners: string[];
}

export interface LabelView {
  type: 'tx' | 'addr' | 'pubkey' | 'input' | 'output' | 'xpub' | 'payment';
  ref: string;
  label: string;
  spendable: boolean | null;
}

export interface LabelImportView {
  imported: number;
  ignored: number;
  message: string;
}

/** One confirmed transaction of the books: the balance after it, in the coin and in USD that day. */
export interface BooksPoint {
  time: number;
  txid: string;
  amount: bigint;
  balance: bigint;
  /** USD value of the balance after, at that day's rate; null without a rate. */
  usd_value: number | null;
  label: string;
}

/** The relay as this desk sees it: its rooms and members, joins waiting for a code, and what waits for the person at it. */
export interface RelayStatusView {
  /** This desk's device id; null while its relay key cannot be read (`key_problem` says why). */
  device: string | null;
  /** Why the relay key stored on this computer cannot be used, in words; null when it can. */
  key_problem: RelayKeyProblemView | null;
  rooms: { room: string; wallet: string; wallet_id: string | null; role: 'owner' | 'cosigner' | 'approver'; members: { device: string; name: string; role: string; binding: 'owner' | 'key' | 'code'; me: boolean }[]; stuck: string | null }[];
  pending_joins: { room: string; device: string; name: string; comparison: string }[];
  /** Signing requests waiting for this desk's co-signer or approver: the badge counts them. */
  waiting: { room: string; seq: number; wallet: string; payment_id: string | null; sender: string; message: string; pays: string | null }[];
  /** The newest relay events (imports, refusals in words, declines, approvals). */
  recent: { room: string; seq: number; kind: string; status: string; message: string; received_at: string }[];
  /** What this desk sent, newest first: delivered once the service took it (it numbered it); `seen_by`: members who have sent a message after it, which the room's chain proves they took. */
  sent: { room: string; seq: number; wallet: string; kind: string; payment_id: string | null; /** The payment in words ("payment of 1.25 LTC to …"), its id where this desk does not hold it. */ payment: string | null; to: string[]; seen_by: string[]; sent_at: string }[];
}

/** The relay key stored on this computer cannot be read: what happened, what it means, what the treasurer can do. */
export interface RelayKeyProblemView {
  what: string;
  means: string;
  choices: string[];
}

/** What "Make a new relay key" did: `replaced` false when the stored key read again (nothing was replaced). */
export interface RelayNewKeyView {
  replaced: boolean;
  device: string;
  /** Where the unreadable value was kept aside, in words; null when nothing was stored any more. */
  set_aside: string | null;
  /** Each room it concerns and what to do there, in words. */
  rooms: string[];
}

export interface RelayApprovalsRule {
  approvals: number;
  limit: string | null;
  period: 'day' | 'week' | 'month' | null;
}

export interface RelayApprovalsView {
  needed: number;
  approved: string[];
  declined: string[];
  clear: boolean;
  words: string;
  entries: { approver: string; binding: string; decision: string; reason: string | null; at: string }[];
}

export interface Outputs {
  'service.status': ServiceStatus;
  /** Grows whenever the desk records a change (a payment confirmed in the background, too): screens reload when it moves. */
  'desk.changes': { revision: number };
  'coins.list': CoinView[];
  'settings.get': ServiceSettings;
  'settings.setService': ServiceSettings;
  'chains.list': ChainsView;
  'chains.test': ChainTestView;
  'chains.save': ChainsView;
  'chains.remove': ChainsView;
  'wallets.rescan': RescanView;
  'wallets.list': WalletSummary[];
  'wallets.create': WalletSummary;
  'wallets.get': WalletDetail;
  'wallets.setCosignerDevice': CosignerView;
  'wallets.receiveAddress': ReceiveAddress;
  'wallets.history': WalletHistory;
  'wallets.unspent': UnspentOutput[];
  'wallets.freezeOutput': UnspentOutput[];
  'wallets.readSetup': SetupDraft;
  'wallets.exportSetup': ExportedFile;
  'vaults.timelock': TimelockView;
  'vaults.create': WalletSummary;
  'vaults.get': VaultView;
  'vaults.export': ExportedFile;
  'vaults.refresh': PaymentDetail;
  'payments.list': PaymentSummary[];
  'payments.get': PaymentDetail;
  'payments.checkDraft': DraftCheck;
  'payments.propose': PaymentDetail;
  'payments.checkBatch': BatchCheck;
  'payments.feePresets': FeePresets;
  'payments.spendable': SpendableView;
  'settings.setReplaceable': { replaceable: boolean };
  'settings.vaultWarning': { days: number };
  'settings.maxFee': MaxFeeView;
  'payments.exportRequest': ExportedFile;
  'payments.exportPsbt': ExportedFile;
  'payments.importSignatures': ImportResult[];
  'qr.psbtFrames': QrFramesView;
  'qr.registration': QrFramesView;
  'qr.read': QrReadView;
  'payments.submit': PaymentDetail;
  'payments.cancel': PaymentDetail;
  'payments.feeEstimates': FeeRatePresets;
  'payments.replace': PaymentDetail;
  'payments.cpfp': CpfpView;
  'relay.status': RelayStatusView;
  'relay.invite': { code: string; name: string };
  'relay.join': { room: string; wallet: string; role: 'cosigner' | 'approver'; comparison: string; binding: 'key' | 'code' };
  'relay.confirmJoin': RelayStatusView;
  'relay.sync': { messages: string[]; stuck: string[] };
  'relay.sendRequest': { to: 'approvers' | 'cosigners' | 'everyone'; approvals: string };
  'relay.sign': { signer: string };
  'relay.decline': RelayStatusView;
  'relay.approve': RelayStatusView;
  'relay.approvals': RelayApprovalsView;
  'relay.rule': RelayApprovalsRule | null;
  'relay.setRule': RelayApprovalsRule;
  'relay.removeMember': RelayStatusView;
  'relay.rotateMember': { code: string; name: string };
  'relay.newKey': RelayNewKeyView;
  'cosigner.open': OpenedRequestView;
  'cosigner.sign': SignedFile;
  'ledger.devices': LedgerDevices;
  'ledger.xpub': LedgerXpub;
  'ledger.registerWallet': LedgerRegistration;
  'ledger.showAddress': LedgerAddress;
  /** The device's signatures, verified like an imported signature file. */
  'ledger.signPayment': ImportResult;
  'accounts.list': AccountSummary[];
  'accounts.create': AccountSummary;
  'accounts.get': AccountDetail;
  'accounts.tokenInfo': TokenPreview;
  'accounts.addToken': AccountSummary;
  'accounts.history': AccountHistoryView;
  'accounts.send': AccountSendView;
  'audit.list': AuditPage;
  /** A CSV file of the filtered entries. */
  'audit.export': ExportedFile;
  'labels.list': LabelView[];
  'labels.set': LabelView[];
  /** A BIP329 JSON lines file. */
  'labels.export': ExportedFile;
  'labels.import': LabelImportView;
  /** Oldest first; the last point's balance is the confirmed balance. */
  'books.series': BooksPoint[];
  /** A CSV file. */
  'books.export': ExportedFile;
}

export type Inputs = typeof inputs;
/** What a caller passes: amounts as bigint (or digit strings), optional fields omitted. */
export type BridgeInput<C extends Channel> = z.input<Inputs[C]>;
export type BridgeOutput<C extends Channel> = Outputs[C];

export interface BridgeFailure {
  /** A CoordinatorError code, 'bad_input', 'service' (the service failed), 'forbidden' or 'internal'. */
  code: string;
  message: string;
  /** The input field the refusal concerns, by its channel input name, when it concerns one. */
  field?: string;
  /** The wallet the refusal names (e.g. the one a new wallet would duplicate), to link to it. */
  wallet_id?: string;
}

export type BridgeResult<T> = { ok: true; value: T } | { ok: false; error: BridgeFailure };

/** What preload exposes in Electron and the HTTP client implements in web mode: one type. */
export interface Bridge {
  invoke<C extends Channel>(channel: C, input: BridgeInput<C>): Promise<BridgeResult<BridgeOutput<C>>>;
}
