// What travels inside a relay envelope, as JSON. The service never sees it. Payment payloads are the
// very texts a file would hold (signing request, signature file, PSBT), so the desk imports them
// through the same checks as a file.
import { z } from 'zod';
import { RelayRefusal } from './errors.ts';

const Hex = (bytes: number) => z.string().regex(new RegExp(`^[0-9a-f]{${bytes * 2}}$`));
const PaymentId = z.string().min(1).max(100);

export const RosterMember = z.object({
  sign: Hex(32),
  box: Hex(32),
  role: z.enum(['owner', 'cosigner', 'approver']),
  /** How the owner tied this device to the person: its wallet key signed it, the two compared a code, or it is the owner. */
  binding: z.enum(['owner', 'key', 'code']),
  name: z.string().min(1).max(100),
  /** A co-signer's key in the wallet (its xpub), when the member is a co-signer. */
  xpub: z.string().max(200).optional(),
});
export type RosterMember = z.infer<typeof RosterMember>;

export const RelayContent = z.discriminatedUnion('kind', [
  /** The owner's list of members: only the room's owner may send one; the newest one counts. */
  z.object({ kind: z.literal('roster'), wallet: z.string().max(100), members: z.array(RosterMember).min(1).max(64) }),
  /** A new device asks the owner to be admitted: `proof` is keyed by the invitation's secret. */
  z.object({
    kind: z.literal('join'),
    invitation: Hex(32),
    proof: Hex(32),
    name: z.string().min(1).max(100),
    binding: z.discriminatedUnion('kind', [z.object({ kind: z.literal('key'), xpub: z.string().max(200), signature: z.string().max(200) }), z.object({ kind: z.literal('code') })]),
  }),
  z.object({ kind: z.literal('signing-request'), payment: PaymentId, text: z.string().max(400_000) }),
  z.object({ kind: z.literal('psbt'), payment: PaymentId, base64: z.string().max(400_000) }),
  z.object({ kind: z.literal('signatures'), payment: PaymentId, text: z.string().max(400_000) }),
  z.object({ kind: z.literal('declined'), payment: PaymentId, reason: z.string().max(1000) }),
  /** An approver's decision on a payment; `request` is the payment hash of the signing request it checked (SHA-256 of its unsigned transaction). */
  z.object({ kind: z.literal('approval'), payment: PaymentId, request: Hex(32), decision: z.enum(['approve', 'decline']), reason: z.string().max(1000).optional() }),
]);
export type RelayContent = z.infer<typeof RelayContent>;

export function encodeContent(content: RelayContent): Uint8Array {
  return new TextEncoder().encode(JSON.stringify(RelayContent.parse(content)));
}

export function decodeContent(bytes: Uint8Array): RelayContent {
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    throw new RelayRefusal('the message content is not JSON', 'malformed');
  }
  const parsed = RelayContent.safeParse(json);
  if (!parsed.success) throw new RelayRefusal(`the message content is not one the desk knows: ${parsed.error.issues[0]?.message ?? 'invalid'}`, 'malformed');
  return parsed.data;
}
