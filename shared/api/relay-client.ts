// The relay's client: the desk and the tests reach rooms, invitations and messages through it.
// Requests about a room carry the device's signature (shared/relay/request.ts) over the path as
// written here, relative to the service's base URL.
import { bytesToHex } from '../coins/bytes.ts';
import type { DeviceKeys } from '../relay/device.ts';
import { signedRequestHeaders } from '../relay/request.ts';
import type { ApiClient } from './client.ts';
import { InvitationAnswer, Joined, MessagePosted, MessagesAnswer, Removed, RoomCreated, RoomState } from './relay.ts';

const keysBody = (keys: DeviceKeys) => ({ sign_key: bytesToHex(keys.public.sign), box_key: bytesToHex(keys.public.box) });
const base64 = (bytes: Uint8Array): string => {
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
};
export const fromBase64 = (text: string): Uint8Array => Uint8Array.from(atob(text), (c) => c.charCodeAt(0));

export class RelayClient {
  constructor(
    private readonly api: Pick<ApiClient, 'send'>,
    private readonly now: () => number = Date.now,
  ) {}

  private signed(keys: DeviceKeys, method: string, path: string) {
    return signedRequestHeaders(keys, method, path, this.now());
  }

  createRoom(keys: DeviceKeys) {
    const path = '/relay/rooms';
    return this.api.send(RoomCreated, 'POST', path, keysBody(keys), this.signed(keys, 'POST', path));
  }

  room(keys: DeviceKeys, room: string) {
    const path = `/relay/rooms/${room}`;
    return this.api.send(RoomState, 'GET', path, undefined, this.signed(keys, 'GET', path));
  }

  invite(keys: DeviceKeys, room: string, id: string, sealed: Uint8Array, expiresInHours = 72) {
    const path = `/relay/rooms/${room}/invitations`;
    return this.api.send(InvitationAnswer.pick({ id: true, expires_at: true }), 'POST', path, { id, sealed: base64(sealed), expires_in_hours: expiresInHours }, this.signed(keys, 'POST', path));
  }

  invitation(id: string) {
    return this.api.send(InvitationAnswer, 'GET', `/relay/invitations/${id}`);
  }

  join(keys: DeviceKeys, id: string) {
    const path = `/relay/invitations/${id}/join`;
    return this.api.send(Joined, 'POST', path, keysBody(keys), this.signed(keys, 'POST', path));
  }

  remove(keys: DeviceKeys, room: string, device: string) {
    const path = `/relay/rooms/${room}/members/${device}`;
    return this.api.send(Removed, 'DELETE', path, undefined, this.signed(keys, 'DELETE', path));
  }

  post(room: string, envelope: Uint8Array) {
    return this.api.send(MessagePosted, 'POST', `/relay/rooms/${room}/messages`, { envelope: base64(envelope) });
  }

  /** `wait` seconds of long poll (0: answer at once). */
  messages(keys: DeviceKeys, room: string, after: bigint, wait = 0, limit = 100) {
    const path = `/relay/rooms/${room}/messages?after=${after}&wait=${wait}&limit=${limit}`;
    return this.api.send(MessagesAnswer, 'GET', path, undefined, this.signed(keys, 'GET', path), (wait + 30) * 1000);
  }
}
