// The relay's use cases on the service (docs/api-decisions.md §13): rooms, their devices,
// invitations and sealed messages. The service checks what it can without reading anything: a
// message's signature against its sender's device key, its place in the room's chain (sequence
// number and previous hash) and the sizes; it never holds a key that opens a message.
import { bytesToHex, equalBytes, hexToBytes } from '../../shared/coins/bytes.ts';
import { type DevicePublic, devicePublic } from '../../shared/relay/device.ts';
import { envelopeSignedBy, readEnvelope, ZERO_HASH } from '../../shared/relay/envelope.ts';
import { RelayRefusal } from '../../shared/relay/errors.ts';
import { REQUEST_WINDOW_MS, requestSignatureHolds } from '../../shared/relay/request.ts';
import type { Store } from '../store/database.ts';
import { ApiError, badRequest, notFound } from '../errors.ts';
import { RoomWaiters } from './waiters.ts';

export interface RelayLimits {
  /** Messages are deleted this long after they arrive (default 30 days). */
  messageTtlMs: number;
  maxMembers: number;
  /** Messages a room keeps at once; a sender beyond it waits for old ones to expire (429). */
  maxMessagesPerRoom: number;
  maxRoomsPerKey: number;
  maxOpenInvitations: number;
  /** Long polls held at once by this process; more answer at once. */
  maxWaiters: number;
  /** While a long poll waits, how often it looks in the store for messages another instance took. */
  pollMs: number;
}

export const DEFAULT_RELAY_LIMITS: RelayLimits = {
  messageTtlMs: 30 * 24 * 3600_000,
  maxMembers: 64,
  maxMessagesPerRoom: 10_000,
  maxRoomsPerKey: 1_000,
  maxOpenInvitations: 20,
  maxWaiters: 2_000,
  pollMs: 1_000,
};

/** The device-signature headers of a request (shared/relay/request.ts). */
export interface RequestAuth {
  method: string;
  url: string;
  device: string | undefined;
  time: string | undefined;
  signature: string | undefined;
}

export interface MemberRow {
  device: string;
  sign_key: string;
  box_key: string;
  joined_at: number;
  removed_at: number | null;
  owner: boolean;
}

const num = (v: number | bigint | string): number => Number(v);
const secs = (ms: number | bigint | string): number => Math.floor(num(ms) / 1000);
const NO_ROOM = (room: string) => notFound(`no relay room ${room}`);
const NOT_MEMBER = 'this device is not a member of the room (never admitted, or removed)';

function refusal(err: unknown): ApiError {
  if (err instanceof RelayRefusal) return new ApiError(err.kind === 'too_large' ? 413 : 400, err.message);
  throw err;
}

export class Relay {
  readonly waiters = new RoomWaiters();
  private lastSweep = 0;

  constructor(
    private readonly store: Store,
    readonly limits: RelayLimits = DEFAULT_RELAY_LIMITS,
    private readonly now: () => number = Date.now,
  ) {}

  /** Whether the headers carry a fresh signature of `device`'s key over this request. */
  private checkSignature(auth: RequestAuth, sign: Uint8Array, device: string): void {
    if (!auth.device || !auth.time || !auth.signature) throw new ApiError(401, 'this relay request needs the device headers X-Relay-Device, X-Relay-Time and X-Relay-Signature');
    if (auth.device !== device) throw new ApiError(403, `X-Relay-Device names ${auth.device}, not the device this request is about`);
    const time = Number(auth.time);
    if (!Number.isSafeInteger(time) || Math.abs(time - this.now()) > REQUEST_WINDOW_MS) throw new ApiError(401, `X-Relay-Time is more than ${REQUEST_WINDOW_MS / 60_000} minutes from the service's clock: check the device's clock`);
    let signature: Uint8Array;
    try {
      signature = hexToBytes(auth.signature, 'X-Relay-Signature');
    } catch {
      throw new ApiError(401, 'X-Relay-Signature is not hex');
    }
    if (!requestSignatureHolds(sign, auth.method, auth.url, auth.time, signature)) throw new ApiError(401, 'X-Relay-Signature does not verify with the device key: refused');
  }

  private keysFromBody(body: { sign_key: string; box_key: string }): DevicePublic {
    try {
      return devicePublic(hexToBytes(body.sign_key), hexToBytes(body.box_key));
    } catch (err) {
      throw refusal(err);
    }
  }

  private async room(room: string) {
    const row = await this.store.db.selectFrom('relay_rooms').selectAll().where('id', '=', room).executeTakeFirst();
    if (!row) throw NO_ROOM(room);
    return row;
  }

  /** The member's row (not removed), or 403: a removed device and a stranger get the same words. */
  private async member(room: string, device: string | undefined) {
    if (!device) throw new ApiError(401, 'this relay request needs the header X-Relay-Device');
    const row = await this.store.db.selectFrom('relay_devices').selectAll().where('room', '=', room).where('device', '=', device).executeTakeFirst();
    if (!row || row.removed_at !== null) throw new ApiError(403, NOT_MEMBER);
    return row;
  }

  /** A device's request about its room: the device must be a current member and have signed the request. */
  private async asMember(room: string, auth: RequestAuth) {
    await this.room(room);
    const m = await this.member(room, auth.device);
    this.checkSignature(auth, m.sign_key, m.device);
    return m;
  }

  async createRoom(apiKey: string, keys: { sign_key: string; box_key: string }, auth: RequestAuth): Promise<{ room: string; device: string }> {
    const device = this.keysFromBody(keys);
    this.checkSignature(auth, device.sign, device.id);
    const count = await this.store.db.selectFrom('relay_rooms').select((eb) => eb.fn.countAll<number | bigint | string>().as('n')).where('api_key', '=', apiKey).executeTakeFirstOrThrow();
    if (num(count.n) >= this.limits.maxRoomsPerKey) throw new ApiError(429, `this API key has made ${this.limits.maxRoomsPerKey} relay rooms, the most it may`);
    const room = bytesToHex(crypto.getRandomValues(new Uint8Array(16)));
    const now = this.now();
    await this.store.db.transaction().execute(async (trx) => {
      await trx.insertInto('relay_rooms').values({ id: room, owner_device: device.id, api_key: apiKey, created_at: now, head_seq: 0, head_hash: ZERO_HASH }).execute();
      await trx.insertInto('relay_devices').values({ room, device: device.id, sign_key: device.sign, box_key: device.box, joined_at: now, removed_at: null }).execute();
    });
    return { room, device: device.id };
  }

  async roomState(room: string, auth: RequestAuth) {
    const r = await this.room(room);
    await this.asMember(room, auth);
    const members = await this.store.db.selectFrom('relay_devices').selectAll().where('room', '=', room).orderBy('joined_at').execute();
    return {
      room,
      head_seq: num(r.head_seq),
      head_hash: bytesToHex(r.head_hash),
      oldest_seq: await this.oldest(room),
      members: members.map((m): MemberRow => ({
        device: m.device,
        sign_key: bytesToHex(m.sign_key),
        box_key: bytesToHex(m.box_key),
        joined_at: secs(m.joined_at),
        removed_at: m.removed_at === null ? null : secs(m.removed_at),
        owner: m.device === r.owner_device,
      })),
    };
  }

  private async asOwner(room: string, auth: RequestAuth) {
    const r = await this.room(room);
    const m = await this.asMember(room, auth);
    if (m.device !== r.owner_device) throw new ApiError(403, "only the room's owner may do this");
    return r;
  }

  async createInvitation(room: string, body: { id: string; sealed: string; expires_in_hours: number }, auth: RequestAuth): Promise<{ id: string; expires_at: number }> {
    await this.asOwner(room, auth);
    const now = this.now();
    const open = await this.store.db
      .selectFrom('relay_invitations')
      .select((eb) => eb.fn.countAll<number | bigint | string>().as('n'))
      .where('room', '=', room)
      .where('used_at', 'is', null)
      .where('expires_at', '>', now)
      .executeTakeFirstOrThrow();
    if (num(open.n) >= this.limits.maxOpenInvitations) throw new ApiError(429, `this room has ${this.limits.maxOpenInvitations} open invitations, the most it may: wait for some to be used or to expire`);
    const expires = now + body.expires_in_hours * 3600_000;
    const sealed = Buffer.from(body.sealed, 'base64');
    if (sealed.length < 40) throw badRequest('sealed: too short to be a sealed invitation');
    const inserted = await this.store.db
      .insertInto('relay_invitations')
      .values({ id: body.id, room, sealed, created_at: now, expires_at: expires, used_at: null })
      .onConflict((oc) => oc.column('id').doNothing())
      .executeTakeFirst();
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 0) throw new ApiError(409, 'an invitation with this id exists already: make a new code');
    return { id: body.id, expires_at: secs(expires) };
  }

  private async openInvitation(id: string) {
    const row = await this.store.db.selectFrom('relay_invitations').selectAll().where('id', '=', id).executeTakeFirst();
    // One answer for unknown, used and expired: the id is a secret's hash, nothing to learn by guessing.
    if (!row || row.used_at !== null || num(row.expires_at) <= this.now()) throw notFound('no open invitation with this code: it is mistyped, used already, or expired');
    return row;
  }

  async invitation(id: string) {
    const row = await this.openInvitation(id);
    return { id, room: row.room, sealed: Buffer.from(row.sealed).toString('base64'), expires_at: secs(row.expires_at) };
  }

  /** The invitee's device enters the room; the owner admits it to the roster after checking its proof. */
  async join(id: string, keys: { sign_key: string; box_key: string }, auth: RequestAuth): Promise<{ room: string; device: string }> {
    const device = this.keysFromBody(keys);
    this.checkSignature(auth, device.sign, device.id);
    const inv = await this.openInvitation(id);
    const now = this.now();
    await this.store.db.transaction().execute(async (trx) => {
      const used = await trx.updateTable('relay_invitations').set({ used_at: now }).where('id', '=', id).where('used_at', 'is', null).executeTakeFirst();
      if (Number(used.numUpdatedRows) === 0) throw notFound('no open invitation with this code: it is mistyped, used already, or expired');
      const count = await trx.selectFrom('relay_devices').select((eb) => eb.fn.countAll<number | bigint | string>().as('n')).where('room', '=', inv.room).where('removed_at', 'is', null).executeTakeFirstOrThrow();
      if (num(count.n) >= this.limits.maxMembers) throw new ApiError(409, `the room has ${this.limits.maxMembers} members, the most it may`);
      const existing = await trx.selectFrom('relay_devices').select('removed_at').where('room', '=', inv.room).where('device', '=', device.id).executeTakeFirst();
      if (existing) throw new ApiError(409, existing.removed_at === null ? 'this device is in the room already' : 'this device was removed from the room: a removed device key does not come back; make a new one');
      await trx.insertInto('relay_devices').values({ room: inv.room, device: device.id, sign_key: device.sign, box_key: device.box, joined_at: now, removed_at: null }).execute();
    });
    return { room: inv.room, device: device.id };
  }

  async removeMember(room: string, device: string, auth: RequestAuth): Promise<{ device: string; removed_at: number }> {
    const r = await this.asOwner(room, auth);
    if (device === r.owner_device) throw new ApiError(409, "the owner's device cannot be removed: make a new room");
    const now = this.now();
    const done = await this.store.db.updateTable('relay_devices').set({ removed_at: now }).where('room', '=', room).where('device', '=', device).where('removed_at', 'is', null).executeTakeFirst();
    if (Number(done.numUpdatedRows) === 0) throw notFound(`no current member ${device} in this room`);
    return { device, removed_at: secs(now) };
  }

  /**
   * Takes a message if it is the room's next: signed by a current member, numbered head + 1 and
   * naming the head's hash. Two senders at once: one wins, the other gets 409 and sends again
   * after reading (its desk renumbers and seals the message anew).
   */
  async post(room: string, envelopeBase64: string): Promise<{ seq: number; hash: string }> {
    const bytes = new Uint8Array(Buffer.from(envelopeBase64, 'base64'));
    let envelope;
    try {
      envelope = readEnvelope(bytes);
    } catch (err) {
      throw refusal(err);
    }
    const h = envelope.header;
    if (h.room !== room) throw badRequest(`the envelope is for room ${h.room}, not ${room}`);
    const r = await this.room(room);
    const m = await this.member(room, h.sender);
    if (!envelopeSignedBy(envelope, devicePublic(m.sign_key, m.box_key))) throw badRequest("the envelope's signature does not verify with its sender's device key: refused");
    const head = BigInt(r.head_seq);
    if (h.seq !== head + 1n || !equalBytes(h.prev, r.head_hash)) {
      throw new ApiError(409, `the room is at message ${head}; this one is numbered ${h.seq}${h.seq === head + 1n ? ' but names another previous message' : ''}: read the new messages and send again`);
    }
    const kept = await this.store.db.selectFrom('relay_messages').select((eb) => eb.fn.countAll<number | bigint | string>().as('n')).where('room', '=', room).executeTakeFirstOrThrow();
    if (num(kept.n) >= this.limits.maxMessagesPerRoom) throw new ApiError(429, `the room keeps ${this.limits.maxMessagesPerRoom} messages, the most it may; older ones expire after ${Math.round(this.limits.messageTtlMs / 86_400_000)} days`);
    const now = this.now();
    await this.store.db.transaction().execute(async (trx) => {
      // Compare-and-set on the head: of two senders at once exactly one moves it.
      const moved = await trx
        .updateTable('relay_rooms')
        .set({ head_seq: h.seq, head_hash: envelope.hash })
        .where('id', '=', room)
        .where('head_seq', '=', head)
        .executeTakeFirst();
      if (Number(moved.numUpdatedRows) === 0) throw new ApiError(409, `another message took place ${h.seq} first: read the new messages and send again`);
      await trx.insertInto('relay_messages').values({ room, seq: h.seq, sender: h.sender, created_at: now, expires_at: now + this.limits.messageTtlMs, envelope: bytes }).execute();
    });
    this.waiters.wake(room);
    await this.sweep(now);
    return { seq: Number(h.seq), hash: bytesToHex(envelope.hash) };
  }

  private async oldest(room: string): Promise<number | null> {
    const row = await this.store.db.selectFrom('relay_messages').select((eb) => eb.fn.min('seq').as('seq')).where('room', '=', room).where('expires_at', '>', this.now()).executeTakeFirst();
    return row?.seq === null || row?.seq === undefined ? null : num(row.seq as number | bigint | string);
  }

  private async page(room: string, after: number, limit: number) {
    const rows = await this.store.db
      .selectFrom('relay_messages')
      .select(['seq', 'sender', 'created_at', 'envelope'])
      .where('room', '=', room)
      .where('seq', '>', after)
      .where('expires_at', '>', this.now())
      .orderBy('seq')
      .limit(limit)
      .execute();
    return rows.map((m) => ({ seq: num(m.seq), sender: m.sender, created_at: secs(m.created_at), envelope: Buffer.from(m.envelope).toString('base64') }));
  }

  /** Messages after `after`; with `waitS`, a long poll until one comes, the wait ends or the client leaves. */
  async messages(room: string, q: { after: number; wait: number; limit: number }, auth: RequestAuth, gone: AbortSignal) {
    await this.asMember(room, auth);
    const deadline = this.now() + q.wait * 1000;
    let messages = await this.page(room, q.after, q.limit);
    while (messages.length === 0 && this.now() < deadline && !gone.aborted && this.waiters.size < this.limits.maxWaiters) {
      await this.waiters.wait(room, Math.min(this.limits.pollMs, deadline - this.now()), gone);
      messages = await this.page(room, q.after, q.limit);
    }
    const r = await this.room(room);
    return { messages, head_seq: num(r.head_seq), oldest_seq: await this.oldest(room) };
  }

  /** Deletes expired messages and invitations, at most once a minute per process. */
  async sweep(now = this.now(), force = false): Promise<void> {
    if (!force && now - this.lastSweep < 60_000) return;
    this.lastSweep = now;
    await this.store.db.deleteFrom('relay_messages').where('expires_at', '<=', now).execute();
    await this.store.db.deleteFrom('relay_invitations').where('expires_at', '<=', now).execute();
  }
}
