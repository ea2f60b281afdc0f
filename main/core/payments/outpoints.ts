// An output a spend takes, and the one key the desk compares outputs by (the spend pipeline, the
// vault path check and the replacement code all need it; kept apart so they need not import each other).
export interface Outpoint {
  txid: string;
  vout: number;
}

/** A hash or key as the service may write it ("0x", either case), as this desk compares it. */
export const hexOf = (h: string): string => h.trim().toLowerCase().replace(/^0x/, '');

/** "txid:vout", the txid in lower case without "0x". */
export const outpointKey = (o: Outpoint): string => `${hexOf(o.txid)}:${o.vout}`;
