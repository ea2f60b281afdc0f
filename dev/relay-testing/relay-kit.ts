// Services with the relay on a fresh SQLite file or PostgreSQL schema, listening on a port of their
// own, and the desks' side of a room as plain functions: for the relay's tests and its bench.
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { ApiClient } from '../../shared/api/client.ts';
import { RelayClient } from '../../shared/api/relay-client.ts';
import { bytesToHex, hexToBytes } from '../../shared/coins/bytes.ts';
import type { RosterMember } from '../../shared/relay/content.ts';
import { type DeviceKeys, deviceKeys, newDeviceSecret } from '../../shared/relay/device.ts';
import { invitationFromCode, joinProof, joinProofHolds, newInvitation, openInvitation, sealInvitation, type InvitationSecret } from '../../shared/relay/invitation.ts';
import { newRoomView, type RoomView } from '../../shared/relay/room.ts';
import { sendToRoom, syncRoom } from '../../shared/relay/session.ts';
import { createService, type Service } from '../../service/service.ts';
import { createApiKey } from '../../service/store/api-keys.ts';
import { TEST_POSTGRES_URL, type SqlStoreKind } from '../../service/store/test-stores.ts';
import type { RelayLimits } from '../../service/relay/relay.ts';

export interface RelayService {
  service: Service;
  url: string;
  apiKey: string;
  client(now?: () => number): RelayClient;
  /** Another instance on the same PostgreSQL schema (only for 'postgres'). */
  sibling(): Promise<RelayService>;
  /** Every byte the database holds: the SQLite file and its WAL copied, or every row of the PostgreSQL schema. */
  databaseBytes(): Promise<Uint8Array>;
  dispose(): Promise<void>;
}

export async function startRelayService(kind: SqlStoreKind, options: { now?: () => number; limits?: Partial<RelayLimits> } = {}): Promise<RelayService> {
  const dir = mkdtempSync(join(tmpdir(), 'countersign-relay-'));
  const schema = `cs_relay_${randomBytes(6).toString('hex')}`;
  const database = kind === 'sqlite' ? { sqlite: join(dir, 'service.sqlite') } : { postgres: TEST_POSTGRES_URL, schema };
  const open = async (apiKey?: string): Promise<RelayService> => {
    let service: Service;
    try {
      service = await createService({ database, coins: {}, auth: { required: true }, log: { level: 'silent' }, listen: { host: '127.0.0.1', port: 0 } }, { relay: { ...(options.now ? { now: options.now } : {}), ...(options.limits ? { limits: options.limits } : {}) } });
    } catch (err) {
      if (kind === 'postgres') throw new Error(`PostgreSQL is required for the relay's tests and is not usable at ${TEST_POSTGRES_URL} (${err instanceof Error ? err.message : String(err)})`, { cause: err });
      throw err;
    }
    const key = apiKey ?? (await createApiKey(service.store, 'relay test')).key;
    const url = await service.listen();
    const self: RelayService = {
      service,
      url,
      apiKey: key,
      client: (now) => new RelayClient(new ApiClient({ baseUrl: url, apiKey: key }), now),
      sibling: () => open(key),
      async databaseBytes() {
        if (kind === 'sqlite') {
          const copy = join(dir, 'copy.sqlite');
          const path = database.sqlite!;
          copyFileSync(path, copy);
          const wal = (() => {
            try {
              return readFileSync(`${path}-wal`);
            } catch {
              return new Uint8Array();
            }
          })();
          return new Uint8Array(Buffer.concat([readFileSync(copy), wal]));
        }
        const tables = await sql<{ table_name: string }>`select table_name from information_schema.tables where table_schema = ${schema}`.execute(service.store.db);
        const parts: Buffer[] = [];
        for (const t of tables.rows) {
          const rows = await sql<Record<string, unknown>>`select * from ${sql.table(`${schema}.${t.table_name}`)}`.execute(service.store.db);
          for (const r of rows.rows) for (const v of Object.values(r)) parts.push(Buffer.isBuffer(v) ? v : Buffer.from(String(v)));
        }
        return new Uint8Array(Buffer.concat(parts));
      },
      dispose: async () => {
        await service.close();
      },
    };
    return self;
  };
  const first = await open();
  const dispose = first.dispose;
  first.dispose = async () => {
    if (kind === 'postgres') await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(first.service.store.db).catch(() => undefined);
    await dispose();
    rmSync(dir, { recursive: true, force: true });
  };
  return first;
}

export interface Desk {
  keys: DeviceKeys;
  view: RoomView;
  name: string;
}

export const rosterEntry = (k: DeviceKeys, name: string, role: RosterMember['role'], binding: RosterMember['binding']): RosterMember => ({ sign: bytesToHex(k.public.sign), box: bytesToHex(k.public.box), role, binding, name });

/** The treasurer's desk makes a room and sends the first roster (itself alone). */
export async function openRoom(client: RelayClient, name: string): Promise<Desk> {
  const keys = deviceKeys(newDeviceSecret());
  const { room } = await client.createRoom(keys);
  const owner = rosterEntry(keys, name, 'owner', 'owner');
  const sent = await sendToRoom(client, newRoomView(room, owner), keys, { kind: 'roster', wallet: 'w', members: [owner] });
  return { keys, view: sent.view, name };
}

export async function invite(client: RelayClient, owner: Desk, role: 'cosigner' | 'approver' = 'cosigner'): Promise<InvitationSecret> {
  const inv = newInvitation();
  const o = owner.view.owner;
  await client.invite(owner.keys, owner.view.room, inv.id, sealInvitation(inv, { room: owner.view.room, owner: { sign: o.sign, box: o.box }, role, wallet: 'Operations', coin: 'litecoin' }));
  return inv;
}

/** An invitee's desk: opens the invitation by its code, joins, reads the room, and asks the owner to admit it (by code comparison). */
export async function joinRoom(client: RelayClient, code: string, name: string): Promise<Desk> {
  const keys = deviceKeys(newDeviceSecret());
  const secret = invitationFromCode(code);
  const found = await client.invitation(secret.id);
  const opened = openInvitation(secret, hexToBytes(Buffer.from(found.sealed, 'base64').toString('hex')));
  await client.join(keys, secret.id);
  const owner: RosterMember = { sign: opened.owner.sign, box: opened.owner.box, role: 'owner', binding: 'owner', name: 'owner' };
  let { view } = await syncRoom(client, newRoomView(opened.room, owner), keys);
  view = (await sendToRoom(client, view, keys, { join: { kind: 'join', invitation: secret.id, proof: bytesToHex(joinProof(secret, opened.room, keys.public)), name, binding: { kind: 'code' } } })).view;
  return { keys, view, name };
}

/** The owner reads the joins, checks each proof against the invitations it made, and admits them in a new roster. */
export async function admit(client: RelayClient, owner: Desk, invitations: readonly InvitationSecret[]): Promise<Desk> {
  const synced = await syncRoom(client, owner.view, owner.keys);
  let view = synced.view;
  const members = Object.values(view.roster);
  for (const s of synced.steps) {
    if (s.outcome.kind !== 'join') continue;
    const { candidate, content } = s.outcome;
    const inv = invitations.find((i) => i.id === content.invitation);
    if (!inv || !joinProofHolds(inv, view.room, candidate, hexToBytes(content.proof))) continue;
    members.push({ sign: bytesToHex(candidate.sign), box: bytesToHex(candidate.box), role: 'cosigner', binding: 'code', name: content.name });
  }
  view = (await sendToRoom(client, view, owner.keys, { kind: 'roster', wallet: 'w', members })).view;
  return { ...owner, view };
}
