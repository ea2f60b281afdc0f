// How large a file the desk takes, in one place for every way a file comes in: the renderer's
// picker and drop zones (before reading it), the bridge's schemas (both transports), and the web
// bridge's body limit. Pure; in shared/api so the renderer can import it.

/**
 * The largest file, in bytes: what a signing request or PSBT of 1,000 inputs needs (the most a
 * treasurer picks by coin control, main/bridge/contract.ts), each input spending a transaction of its
 * own of a realistic 10,000 bytes (a batch withdrawal of ~250 outputs, as the 21 KB-in-hex one of
 * issue 32; a single payment is ~250 bytes), with 15-key scripts:
 *   signing request (version 2), per input: previous transaction 2 x 10,000 hex + 64 txid + ~10
 *   of JSON = 20,074; the input's entry, 250 of names and spacing + 64 hash + 64 txid + 2 x 2 x 513
 *   (redeem and witness script) = 2,430; its part of the unsigned transaction, 36 + 4 + 565 bytes
 *   of scriptSig, in hex = 1,210: 23,714 characters, x 1,000 = 23.7 MB.
 *   PSBT, per input: 10,000 (NON_WITNESS_UTXO) + 45 (WITNESS_UTXO) + 513 (script) + 15 x 60
 *   (key origins) + 15 x 110 (signatures) + ~20 of keys = 13,128 bytes, x 1,000 = 13.1 MB
 *   (17.5 MB as base64).
 * So 24 MiB (25.2 MB). Files are read whole into memory; nothing the desk writes comes near it.
 */
export const MAX_FILE_BYTES = 24 * 1024 * 1024;

/** Files picked together (a treasurer dropping several co-signers' PSBTs at once): two of the largest. */
export const MAX_PICKED_BYTES = 2 * MAX_FILE_BYTES;

/**
 * The same limits on the text the bridge carries: a text file's UTF-8 decodes to no more UTF-16
 * units than it has bytes, a binary PSBT travels as base64 (4 characters per 3 bytes).
 */
export const textLimitOf = (bytes: number): number => 4 * Math.ceil(bytes / 3);
export const MAX_FILE_TEXT = textLimitOf(MAX_FILE_BYTES);
export const MAX_PICKED_TEXT = textLimitOf(MAX_PICKED_BYTES);

/**
 * The web bridge's largest request body: the picked files' text escaped in JSON (quotes and line
 * breaks take two bytes: at most twice the text of the ASCII files the desk reads) and the rest of
 * the call.
 */
export const MAX_BRIDGE_BODY_BYTES = 2 * MAX_PICKED_TEXT + 1024 * 1024;

const mb = (bytes: number): string => `${Math.round(bytes / 1e5) / 10} MB`;

/** The refusal of a file above the limit; `size` in bytes when known. */
export function fileTooLarge(name: string | null, size?: number): string {
  const what = name === null ? 'this file' : `"${name}"`;
  return `${what} is ${size === undefined ? 'larger than' : `${mb(size)}, more than`} the ${mb(MAX_FILE_BYTES)} the desk reads: no signing request, signature file, PSBT or set-up file is that large (one of 1,000 inputs fits)`;
}

/** The refusal of files picked together above the limit. */
export function filesTooLarge(size?: number): string {
  return `the files chosen together are ${size === undefined ? 'larger than' : `${mb(size)}, more than`} the ${mb(MAX_PICKED_BYTES)} the desk reads at once: choose fewer at a time (each may be up to ${mb(MAX_FILE_BYTES)})`;
}
