// The two file formats co-signers exchange with the desk (docs/file-formats.md), as zod schemas:
// signing requests and signatures. Every file read from disk goes through these before anything
// else looks at it.
import { z } from 'zod';
import { bytesToHex, COIN_NAMES, NETWORK_NAMES, sha256 } from '../coins/index.ts';
import { MAX_VAULT_KEYS } from '../coins/miniscript-limits.ts';
import { MULTISIG_SCRIPT_TYPES } from '../coins/multisig-script.ts';
import { misplacedFile, recogniseFile, SIGNATURE_FORMAT, SIGNING_REQUEST_FORMAT, type FileKind } from './file-kind.ts';
import { fieldProblem } from '../api/words.ts';

const hex = (what: string) => z.string().regex(/^([0-9a-f]{2})+$/, `${what} must be lower-case hex`);
const units = z.string().regex(/^[0-9]{1,30}$/, 'amounts are whole numbers of the smallest unit, as a string of digits');
const relPath = z.string().regex(/^[01]\/[0-9]{1,10}$/, 'paths below the xpubs are 0/i (receive) or 1/i (change)');

/** A file's payment_hash: SHA-256 of the unsigned transaction, binding a signature file to it. */
export const paymentHash = (unsignedTx: Uint8Array): string => bytesToHex(sha256(unsignedTx));

export { SIGNATURE_FORMAT, SIGNING_REQUEST_FORMAT };

export const RequestCosigner = z.object({
  name: z.string().min(1),
  xpub: z.string().min(1),
  fingerprint: z.string().regex(/^[0-9a-f]{8}$/, 'fingerprint must be 8 hex digits'),
  derivation_path: z.string().min(1),
});

export const RequestInput = z.object({
  index: z.number().int().nonnegative(),
  amount: units,
  path: relPath,
  /** The multisig script the signatures check: the redeem script (p2sh) or the witness script (segwit types). */
  redeem_script: hex('redeem_script'),
  /** Optional (absent: p2sh); must be the wallet's script type. */
  script_type: z.enum(MULTISIG_SCRIPT_TYPES).optional(),
  /** Segwit inputs: the witness script (equal to redeem_script), signed with BIP143 over `amount`. */
  witness_script: hex('witness_script').optional(),
  hash: hex('hash'),
  /** The transaction this input spends from, so a co-signer can check the amount offline. */
  previous_tx: hex('previous_tx').optional(),
});

export const RequestOutput = z.object({
  address: z.string().min(1),
  amount: units,
  purpose: z.enum(['payment', 'operator_fee', 'change']),
  /** Change only: where below the xpubs the change address is, so a co-signer can re-derive it. */
  path: relPath.optional(),
});

/** Version 1: each input carries its previous transaction, as many times as inputs spend from it. */
export const SigningRequestV1 = z.object({
  format: z.literal(SIGNING_REQUEST_FORMAT),
  version: z.literal(1),
  request_id: z.string().min(1),
  payment_hash: hex('payment_hash'),
  coin: z.enum(COIN_NAMES),
  network: z.enum(NETWORK_NAMES),
  wallet: z
    .object({
    name: z.string(),
    m: z.number().int().min(1).max(MAX_VAULT_KEYS),
    cosigners: z.array(RequestCosigner).min(1).max(MAX_VAULT_KEYS),
    /** Optional: how the wallet's addresses pay (absent: p2sh, as in every file written before). */
    script_type: z.enum(MULTISIG_SCRIPT_TYPES).optional(),
    /** Optional: BIP67 key order in every script (absent: false, the co-signers' order). */
    sort_keys: z.boolean().optional(),
    /** A miniscript vault (issue 27): its BIP388 descriptor template over the co-signers in order (@0 is the first). */
    vault_template: z.string().min(1).max(10_000).optional(),
  })
    // An M-of-N wallet has at most 15 co-signers; a vault's paths together may hold more.
    .refine((w) => w.vault_template !== undefined || (w.m <= 15 && w.cosigners.length <= 15), { message: 'an M-of-N wallet has at most 15 co-signers (M <= N <= 15)', path: ['cosigners'] }),
  /** A vault payment: the path spent, by the blocks after which it opens (0: the primary path). */
  vault_path: z.number().int().min(0).max(0xffff).optional(),
  /**
   * Optional: the spend signals replacement (BIP125 nSequence 0xfffffffd) or is final (0xffffffff);
   * the co-signer accepts exactly that. Absent (files written before it, and recovery-path spends,
   * whose nSequence is the path's older()): either is accepted.
   */
  replaceable: z.boolean().optional(),
  unsigned_tx: hex('unsigned_tx'),
  inputs: z.array(RequestInput).min(1),
  outputs: z.array(RequestOutput).min(1),
  miners_fee: units,
  created_at: z.string(),
  /** Optional: the payment's purpose as the treasurer wrote it, for the co-signer to read; not part of what is signed. */
  label: z.string().max(1000).optional(),
});
export type SigningRequestV1 = z.infer<typeof SigningRequestV1>;

const txid = z.string().regex(/^[0-9a-f]{64}$/, 'a txid is 64 lower-case hex digits');

/**
 * Version 2 (issue 32): each previous transaction once, in a table keyed by txid, each input naming
 * the one it spends from: a wallet whose inputs come from one large transaction no longer repeats it.
 */
export const SigningRequestV2 = SigningRequestV1.extend({
  version: z.literal(2),
  inputs: z.array(RequestInput.omit({ previous_tx: true }).extend({ previous_txid: txid })).min(1),
  previous_transactions: z.record(txid, hex('previous_transactions')),
});
export type SigningRequestV2 = z.infer<typeof SigningRequestV2>;

/** The version the desk writes. */
export const SIGNING_REQUEST_VERSION = 2;

/** Either version, told apart by `version`; another version is refused naming the ones read. */
export const SigningRequest = z.discriminatedUnion('version', [SigningRequestV1, SigningRequestV2], {
  error: (issue) => {
    if (issue.code !== 'invalid_union') return undefined;
    const version = (issue.input as { version?: unknown } | undefined)?.version;
    return version === undefined ? 'it names no version: this desk reads signing requests of version 1 and 2' : `this desk reads signing requests of version 1 and 2, not ${JSON.stringify(version).slice(0, 20)}: the file was written by a newer desk, or altered`;
  },
});
export type SigningRequest = z.infer<typeof SigningRequest>;

export const SignatureFileV1 = z.object({
  format: z.literal(SIGNATURE_FORMAT),
  version: z.literal(1),
  request_id: z.string().min(1),
  payment_hash: hex('payment_hash'),
  signer: z.object({ name: z.string().optional(), xpub: z.string().min(1) }),
  signatures: z
    .array(z.object({ input_index: z.number().int().nonnegative(), public_key: hex('public_key'), signature: hex('signature') }))
    .min(1, 'a signature file carries at least one signature'),
  created_at: z.string(),
});
export type SignatureFileV1 = z.infer<typeof SignatureFileV1>;

/**
 * Parses JSON text with a schema; any problem is one sentence naming the field. A file of another
 * kind altogether (a wallet set-up file, a PSBT, a binary file) is named, with where it goes:
 * never the JSON parser's own message.
 */
export function parseFile<S extends z.ZodType>(schema: S, what: string, text: string, kind: FileKind): { ok: true; value: z.output<S> } | { ok: false; message: string } {
  // JSON of no known kind is left to the schema, which names the field at fault.
  const misplaced = misplacedFile(recogniseFile(text), what, [kind, 'json']);
  if (misplaced !== null) return { ok: false, message: misplaced };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { ok: false, message: `not a ${what}: it is not JSON` };
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    // A file of another kind altogether: say so rather than name a field.
    if (issue?.path.join('.') === 'format') {
      const format = json !== null && typeof json === 'object' && 'format' in json ? json.format : undefined;
      return { ok: false, message: typeof format === 'string' ? `not a ${what}: it is a "${format.slice(0, 60)}" file` : `not a ${what}: it has no "format" field saying it is one` };
    }
    return { ok: false, message: `malformed ${what}: ${fieldProblem(issue)}` };
  }
  return { ok: true, value: parsed.data };
}
