// What the legacy-protocol apps (the Zcash app among them) return for one input. Its own module
// so the generic signer (legacy-sign.ts) and the Zcash one (zcash-sign.ts) share it without
// importing each other.
export interface LegacySignature {
  inputIndex: number;
  /** DER, without the hash type byte. */
  signature: Uint8Array;
}
