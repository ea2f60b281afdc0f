// The relay on the service, on SQLite and PostgreSQL: three desks exchange sealed messages; the
// service refuses what is not a room's next message from a current member; long polls wake; old
// messages expire; and a copy of the database holds no amount, address, script, PSBT or name.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClientError } from '../../shared/api/client.ts';
import { fromBase64 } from '../../shared/api/relay-client.ts';
import { deviceKeys, newDeviceSecret } from '../../shared/relay/device.ts';
import { sealEnvelope } from '../../shared/relay/envelope.ts';
import { composeMessage } from '../../shared/relay/room.ts';
import { sendToRoom, syncRoom } from '../../shared/relay/session.ts';
import { signedRequestHeaders } from '../../shared/relay/request.ts';
import { STORE_KINDS } from '../store/test-stores.ts';
import { admit, type Desk, invite, joinRoom, openRoom, type RelayService, startRelayService } from '../../dev/relay-testing/relay-kit.ts';

// What a real exchange carries, each of which must appear nowhere in the database.
const SECRETS = {
  amount: '123456789',
  address: 'rltc1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080',
  script: '0014751e76e8199196d454941c45d1b3a323f1433bd6',
  psbt: 'cHNidP8BAHECAAAAAf',
  name: 'Alice Whitfield',
  wallet: 'Operations Reserve',
};

async function refusedWith(p: Promise<unknown>): Promise<{ status: number; message: string }> {
  try {
    await p;
  } catch (err) {
    if (err instanceof ApiClientError) return { status: err.status, message: err.message };
    throw err;
  }
  throw new Error('expected a refusal');
}

describe.each(STORE_KINDS)('relay on %s', (kind) => {
  let clock = Date.now();
  let svc: RelayService;
  beforeAll(async () => {
    svc = await startRelayService(kind, { now: () => clock, limits: { messageTtlMs: 3_600_000, pollMs: 50 } });
  });
  afterAll(async () => {
    await svc?.dispose();
  });

  let owner: Desk;
  let alice: Desk;
  let bob: Desk;

  it('a treasurer and two co-signers join a room and exchange a signing request and signatures', async () => {
    const c = svc.client(() => clock);
    owner = await openRoom(c, 'Treasurer');
    const invA = await invite(c, owner);
    const invB = await invite(c, owner);
    alice = await joinRoom(c, invA.code, SECRETS.name);
    bob = await joinRoom(c, invB.code, 'Bob');
    owner = await admit(c, owner, [invA, invB]);
    expect(Object.values(owner.view.roster).map((m) => m.name).sort()).toEqual([SECRETS.name, 'Bob', 'Treasurer']);
    // the invitation code works once
    expect((await refusedWith(c.invitation(invA.id))).status).toBe(404);

    const request = `signing request: pay ${SECRETS.amount} to ${SECRETS.address} (script ${SECRETS.script}) from ${SECRETS.wallet}`;
    owner.view = (await sendToRoom(c, owner.view, owner.keys, { kind: 'signing-request', payment: 'p1', text: request })).view;
    const a = await syncRoom(c, alice.view, alice.keys);
    alice.view = a.view;
    expect(a.stuck).toBeNull();
    expect(a.steps.map((s) => s.outcome.kind === 'content' && s.outcome.content.kind)).toContain('signing-request');
    const b = await syncRoom(c, bob.view, bob.keys);
    bob.view = b.view;
    // both answer at once: one takes the place, the other reads it and sends again (409 inside)
    const [sa, sb] = await Promise.all([
      sendToRoom(c, alice.view, alice.keys, { kind: 'psbt', payment: 'p1', base64: SECRETS.psbt + 'A'.repeat(200) }),
      sendToRoom(c, bob.view, bob.keys, { kind: 'signatures', payment: 'p1', text: `signatures for ${SECRETS.amount}` }),
    ]);
    alice.view = sa.view;
    bob.view = sb.view;
    const o = await syncRoom(c, owner.view, owner.keys);
    owner.view = o.view;
    const got = o.steps.flatMap((s) => (s.outcome.kind === 'content' ? [`${s.outcome.sender.name}:${s.outcome.content.kind}`] : []));
    expect(got.sort()).toEqual([`${SECRETS.name}:psbt`, 'Bob:signatures']);
  });

  it('a long poll is answered when a message comes', async () => {
    const c = svc.client(() => clock);
    const waiting = syncRoom(c, bob.view, bob.keys, 20);
    await new Promise((r) => setTimeout(r, 100));
    owner.view = (await sendToRoom(c, owner.view, owner.keys, { kind: 'declined', payment: 'p0', reason: 'duplicate' })).view;
    const s = await waiting;
    expect(s.steps.some((x) => x.outcome.kind === 'content' && x.outcome.content.kind === 'declined')).toBe(true);
    bob.view = s.view;
  });

  it('refuses what is not the room\'s next message from a current member, in words', async () => {
    const c = svc.client(() => clock);
    const room = owner.view.room;
    owner.view = (await syncRoom(c, owner.view, owner.keys)).view;
    // a replay of an old message
    const old = await c.messages(owner.keys, room, 0n);
    const replay = await refusedWith(c.post(room, fromBase64(old.messages[1]!.envelope)));
    expect(replay).toMatchObject({ status: 409 });
    expect(replay.message).toMatch(/the room is at message \d+/);
    // an altered one
    const next = composeMessage(owner.view, owner.keys, { kind: 'declined', payment: 'p2', reason: 'x' }, 1n);
    const altered = next.slice();
    altered[altered.length - 80]! ^= 1;
    expect(await refusedWith(c.post(room, altered))).toMatchObject({ status: 400, message: expect.stringMatching(/signature does not verify/) });
    // a stranger's device, well formed and signed by itself
    const stranger = deviceKeys(newDeviceSecret());
    const fromStranger = sealEnvelope(stranger, { room, seq: owner.view.lastSeq + 1n, prev: Uint8Array.from(Buffer.from(owner.view.lastHash, 'hex')), sentAt: 1n }, [owner.keys.public], new Uint8Array(3));
    expect(await refusedWith(c.post(room, fromStranger))).toMatchObject({ status: 403, message: expect.stringMatching(/not a member/) });
    // reading without the device's signature, or with another key's
    expect((await refusedWith(c.messages(stranger, room, 0n))).status).toBe(403);
    const res = await fetch(`${svc.url}/relay/rooms/${room}/messages`, { headers: { 'x-api-key': svc.apiKey } });
    expect(res.status).toBe(401);
    const forged = signedRequestHeaders(stranger, 'GET', `/relay/rooms/${room}/messages`, clock);
    const res2 = await fetch(`${svc.url}/relay/rooms/${room}/messages`, { headers: { 'x-api-key': svc.apiKey, ...forged, 'x-relay-device': alice.keys.public.id } });
    expect(res2.status).toBe(401);
    // no API key at all
    expect((await fetch(`${svc.url}/relay/invitations/${'0'.repeat(64)}`)).status).toBe(401);
    // a body too large
    const big = await fetch(`${svc.url}/relay/rooms/${room}/messages`, { method: 'POST', headers: { 'x-api-key': svc.apiKey, 'content-type': 'application/json' }, body: JSON.stringify({ envelope: 'A'.repeat(1_600_000) }) });
    expect(big.status).toBe(413);
  });

  it('a removed member can neither send nor read, and its late message counts for nothing at the desks', async () => {
    const c = svc.client(() => clock);
    const room = owner.view.room;
    // Bob prepares a message before he is removed
    bob.view = (await syncRoom(c, bob.view, bob.keys)).view;
    const members = Object.values(owner.view.roster).filter((m) => m.name !== 'Bob');
    owner.view = (await sendToRoom(c, owner.view, owner.keys, { kind: 'roster', wallet: 'w', members })).view;
    await c.remove(owner.keys, room, bob.keys.public.id);
    bob.view = (await syncRoom(c, bob.view, bob.keys).catch(() => ({ view: bob.view }))).view;
    const late = composeMessage(bob.view, bob.keys, { kind: 'signatures', payment: 'p1', text: 'late' }, 1n);
    expect(await refusedWith(c.post(room, late))).toMatchObject({ status: 403 });
    expect((await refusedWith(c.messages(bob.keys, room, 0n))).status).toBe(403);
    // only the owner removes
    expect((await refusedWith(c.remove(alice.keys, room, owner.keys.public.id))).status).toBe(403);
  });

  it('two instances on one PostgreSQL share the rooms; a long poll on one wakes for a post on the other', async () => {
    if (kind !== 'postgres') return;
    const other = await svc.sibling();
    try {
      const c2 = other.client(() => clock);
      alice.view = (await syncRoom(c2, alice.view, alice.keys)).view;
      const waiting = syncRoom(c2, alice.view, alice.keys, 20);
      await new Promise((r) => setTimeout(r, 100));
      owner.view = (await sendToRoom(svc.client(() => clock), owner.view, owner.keys, { kind: 'declined', payment: 'p3', reason: 'elsewhere' })).view;
      const s = await waiting;
      expect(s.steps.some((x) => x.outcome.kind === 'content' && x.outcome.content.kind === 'declined' && x.outcome.content.reason === 'elsewhere')).toBe(true);
      alice.view = s.view;
    } finally {
      await other.dispose();
    }
  });

  it('a copy of the database holds no amount, address, script, PSBT or name', async () => {
    const bytes = Buffer.from(await svc.databaseBytes());
    expect(bytes.length).toBeGreaterThan(1000);
    for (const [what, text] of Object.entries(SECRETS)) {
      expect(bytes.includes(Buffer.from(text)), `${what} in the clear`).toBe(false);
      expect(bytes.includes(Buffer.from(text.toLowerCase())), `${what} in lower case`).toBe(false);
    }
    expect(bytes.includes(Buffer.from(SECRETS.script, 'hex')), 'script bytes').toBe(false);
    expect(bytes.includes(Buffer.from('psbt\xff', 'latin1')), 'PSBT magic').toBe(false);
    expect(bytes.includes(Buffer.from('Treasurer')), 'a name').toBe(false);
  });

  it('messages expire after the configured time; a desk that comes back late is told in words', async () => {
    const c = svc.client(() => clock);
    const late = { ...alice.view };
    owner.view = (await sendToRoom(c, owner.view, owner.keys, { kind: 'declined', payment: 'p4', reason: 'r' })).view;
    clock += 2 * 3_600_000;
    // the next post sweeps what has expired
    owner.view = (await sendToRoom(c, owner.view, owner.keys, { kind: 'declined', payment: 'p5', reason: 'r' })).view;
    const s = await syncRoom(c, late, alice.keys);
    expect(s.stuck?.message).toMatch(/expired on the relay before this desk read them/);
    const kept = await c.messages(owner.keys, owner.view.room, 0n);
    expect(kept.messages.map((m) => m.seq)).toEqual([Number(owner.view.lastSeq)]);
    const rows = await svc.service.store.db.selectFrom('relay_messages').select('seq').where('room', '=', owner.view.room).execute();
    expect(rows.map((r) => Number(r.seq))).toEqual([Number(owner.view.lastSeq)]);
  });
});
