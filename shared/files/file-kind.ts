/**
 * What a picked file is, told by its content alone: a file dropped in the wrong place is named
 * ("a BSMS wallet set-up file") and sent where it belongs, instead of failing a parser whose
 * message means nothing to a treasurer. Pure: the callers say where the file belongs.
 */
import { looksLikeColdcard } from './coldcard.ts';
import { looksLikePsbt } from './psbt.ts';
import { looksLikeSpecter } from './specter.ts';

// The "format" of the two files co-signers exchange (shared/files/signing-files.ts re-exports them).
export const SIGNING_REQUEST_FORMAT = 'countersign-signing-request';
export const SIGNATURE_FORMAT = 'countersign-signature';

export type FileKind =
  | 'empty'
  | 'binary'
  | 'signature'
  | 'signing-request'
  | 'psbt'
  /** A whole wallet: a BSMS descriptor record, an output descriptor, a Caravan, Specter or Coldcard file. */
  | 'wallet-setup'
  /** One co-signer's BSMS key record. */
  | 'bsms-key'
  | 'labels'
  /** JSON of no kind above (it may still be a malformed signature file: the caller's parser says). */
  | 'json'
  /** Text that starts like JSON but does not parse (cut short, or edited by hand). */
  | 'broken-json'
  | 'text';

export interface RecognisedFile {
  kind: FileKind;
  /** The kind in words, with its article: "a BSMS wallet set-up file (descriptor record)". */
  what: string;
}

// Control characters other than tab, line feed and carriage return, or what a text decoder makes
// of bytes that are not UTF-8: no text file of ours holds them.
function isBinary(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if ((c < 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) || c === 0xfffd) return true;
  }
  return false;
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

function jsonKind(json: unknown): RecognisedFile {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return { kind: 'json', what: 'a JSON file' };
  const format = 'format' in json ? json.format : undefined;
  if (format === SIGNATURE_FORMAT) return { kind: 'signature', what: 'a Countersign signature file' };
  if (format === SIGNING_REQUEST_FORMAT) return { kind: 'signing-request', what: 'a Countersign signing request' };
  if (looksLikeSpecter(json)) return { kind: 'wallet-setup', what: 'a Specter wallet file (a wallet set-up file)' };
  if ('quorum' in json && 'extendedPublicKeys' in json) return { kind: 'wallet-setup', what: 'a Caravan wallet file (a wallet set-up file)' };
  return { kind: 'json', what: 'a JSON file' };
}

/** BIP329: one JSON object per line, each with a "type" and a "ref". */
function isLabels(lines: readonly string[]): boolean {
  return lines.every((l) => {
    const parsed = parseJson(l);
    return parsed.ok && typeof parsed.value === 'object' && parsed.value !== null && 'type' in parsed.value && 'ref' in parsed.value;
  });
}

export function recogniseFile(raw: string): RecognisedFile {
  const text = raw.replace(/^\uFEFF/, '').trim();
  if (text === '') return { kind: 'empty', what: 'an empty file' };
  if (isBinary(text)) return { kind: 'binary', what: 'a binary file (not text)' };
  if (looksLikePsbt(text)) return { kind: 'psbt', what: 'a PSBT' };
  const lines = text.split(/\r?\n/).map((l) => l.trim()).filter((l) => l !== '');
  if (text.startsWith('{') || text.startsWith('[')) {
    const parsed = parseJson(text);
    if (parsed.ok) return jsonKind(parsed.value);
    if (lines.length > 1 && isLabels(lines)) return { kind: 'labels', what: 'a BIP329 labels file' };
    return { kind: 'broken-json', what: 'a file that is not valid JSON (cut short, or edited by hand)' };
  }
  if (text.startsWith('BSMS')) {
    return /^([0-9a-fA-F]{2})+$/.test(lines[1] ?? '')
      ? { kind: 'bsms-key', what: "a BSMS key record (one co-signer's key)" }
      : { kind: 'wallet-setup', what: 'a BSMS wallet set-up file (descriptor record)' };
  }
  if (/^[0-9a-fA-F]{64,}$/.test(text)) return { kind: 'wallet-setup', what: 'an encrypted BSMS record (a wallet set-up file)' };
  // In the order shared/files/setup-file.ts reads them: a descriptor line, else a Coldcard file.
  if (/^[a-z_]+\(/m.test(text) && !looksLikeColdcard(text)) return { kind: 'wallet-setup', what: 'an output descriptor (a wallet set-up file)' };
  if (looksLikeColdcard(text)) return { kind: 'wallet-setup', what: 'a Coldcard/Nunchuk/Electrum multisig file (a wallet set-up file)' };
  return { kind: 'text', what: 'a text file' };
}

/** Where each kind belongs in the desk, said to a treasurer who dropped it in the wrong place. */
const WHERE: Readonly<Record<FileKind, string>> = {
  empty: 'choose the file again: this one holds nothing',
  binary: 'a signature file is JSON text, a PSBT is base64 text or a binary PSBT; this is neither',
  signature: "import it on its payment's page, under the signatures",
  'signing-request': 'send it to a co-signer, who signs it (in Co-signer mode) and sends back the signature file to import here',
  psbt: "import it on its payment's page, under the signatures",
  'wallet-setup': 'import it under Wallets → New wallet → "Import set-up file"',
  'bsms-key': 'import it with the other co-signers\' key records under Wallets → New wallet → "Import set-up file"',
  labels: 'import it on the wallet\'s page, under "Labels file (BIP329)"',
  json: 'no "format" field says what it is',
  'broken-json': 'ask for the file again',
  text: 'it is neither JSON nor a PSBT',
};

/**
 * The refusal for a file that is not of the `expected` kind ("signature file"): what it is and
 * where it goes; null when it is of an `accepted` kind.
 */
export function misplacedFile(file: RecognisedFile, expected: string, accepted: readonly FileKind[]): string | null {
  if (accepted.includes(file.kind)) return null;
  return `not a ${expected}: it is ${file.what}; ${WHERE[file.kind]}`;
}
