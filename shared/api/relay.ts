// The relay's requests and answers (docs/api-decisions.md §13): rooms, devices, invitations and
// sealed messages. Everything the service keeps is here: public keys, hashes, times, ciphertext.
import { z } from 'zod';

const hex = (bytes: number, what: string) => z.string().regex(new RegExp(`^[0-9a-f]{${bytes * 2}}$`), `${what}: ${bytes * 2} lowercase hex characters`);
const ext = { 'x-countersign-extension': true } as const;
export const RoomId = hex(16, 'room');
export const DeviceIdText = hex(16, 'device');
const base64 = (max: number) => z.string().max(max).regex(/^[A-Za-z0-9+/]*={0,2}$/, 'base64');

export const RelayDeviceKeys = z
  .object({ sign_key: hex(32, 'sign_key').describe('Ed25519 public key'), box_key: hex(32, 'box_key').describe('X25519 public key') })
  .strict()
  .meta(ext);
export const RoomParams = z.object({ room: RoomId });
export const MemberParams = z.object({ room: RoomId, device: DeviceIdText });
export const InvitationParams = z.object({ id: hex(32, 'invitation id') });

export const RoomCreated = z.object({ room: RoomId, device: DeviceIdText }).meta(ext);
export const RelayMember = z.object({
  device: DeviceIdText,
  sign_key: z.string(),
  box_key: z.string(),
  joined_at: z.number().int().describe('unix seconds'),
  removed_at: z.number().int().nullable(),
  owner: z.boolean(),
});
export const RoomState = z
  .object({
    room: RoomId,
    head_seq: z.number().int().describe('the sequence number of the newest message (0: none yet)'),
    head_hash: z.string().describe('SHA-256 of the newest message (zeros before the first): the prev of the next one'),
    oldest_seq: z.number().int().nullable().describe('the oldest message still kept (older ones expired); null: none kept'),
    members: z.array(RelayMember),
  })
  .meta(ext);

export const NewInvitation = z
  .object({
    id: hex(32, 'id').describe("SHA-256 of the invitation code's bytes under the relay's label: the service never sees the code"),
    sealed: base64(8_000).describe('what the invitee needs, sealed with a key from the code'),
    expires_in_hours: z.number().int().min(1).max(24 * 30).default(72),
  })
  .strict()
  .meta(ext);
export const InvitationAnswer = z.object({ id: z.string(), room: RoomId, sealed: z.string(), expires_at: z.number().int() }).meta(ext);
export const Joined = z.object({ room: RoomId, device: DeviceIdText }).meta(ext);
export const Removed = z.object({ device: DeviceIdText, removed_at: z.number().int() }).meta(ext);

export const PostMessage = z.object({ envelope: base64(1_400_000).describe('the sealed and signed envelope (shared/relay/envelope.ts), base64') }).strict().meta(ext);
export const MessagePosted = z.object({ seq: z.number().int(), hash: z.string() }).meta(ext);
export const MessagesQuery = z.object({
  after: z.coerce.number().int().min(0).default(0).describe('answer messages with a higher sequence number'),
  wait: z.coerce.number().int().min(0).max(30).default(0).describe('long poll: wait up to this many seconds for a message when there is none yet'),
  limit: z.coerce.number().int().min(1).max(500).default(100),
});
export const RelayMessage = z.object({ seq: z.number().int(), sender: DeviceIdText, created_at: z.number().int(), envelope: z.string() });
export const MessagesAnswer = z
  .object({
    messages: z.array(RelayMessage),
    head_seq: z.number().int(),
    oldest_seq: z.number().int().nullable().describe('when after + 1 is below it, the messages between expired'),
  })
  .meta(ext);
