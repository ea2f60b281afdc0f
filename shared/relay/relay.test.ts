// The relay's envelopes and room log: what a hostile relay could try (alter, replay, reorder,
// withhold, forge, inject a removed or unknown member) is refused in words, and nothing counts from it.
import { describe, expect, it } from 'vitest';
import { BIP32Factory } from 'bip32';
import * as ecc from 'tiny-secp256k1';
import { bytesToHex } from '../coins/bytes.ts';
import { signMessage, verifyMessage } from '../files/signed-message.ts';
import { deviceKeys, newDeviceSecret, type DeviceKeys } from './device.ts';
import { MAX_CONTENT_BYTES, openEnvelope, readEnvelope, sealEnvelope, ZERO_HASH } from './envelope.ts';
import { RelayRefusal } from './errors.ts';
import type { RelayContent, RosterMember } from './content.ts';
import { bindingMessage, comparisonCode, invitationFromCode, joinProof, joinProofHolds, newInvitation, openInvitation, sealInvitation } from './invitation.ts';
import { acceptMessage, composeJoin, composeMessage, newRoomView, type RoomView, type Step } from './room.ts';

const ROOM = 'a1'.repeat(16);
const member = (k: DeviceKeys, name: string, role: RosterMember['role'], binding: RosterMember['binding']): RosterMember => ({ sign: bytesToHex(k.public.sign), box: bytesToHex(k.public.box), role, binding, name });

function setUp() {
  const owner = deviceKeys(newDeviceSecret());
  const alice = deviceKeys(newDeviceSecret());
  const bob = deviceKeys(newDeviceSecret());
  const ownerM = member(owner, 'Treasurer', 'owner', 'owner');
  const roster: RelayContent = { kind: 'roster', wallet: 'Ops', members: [ownerM, member(alice, 'Alice', 'cosigner', 'key'), member(bob, 'Bob', 'cosigner', 'code')] };
  let ownerView = newRoomView(ROOM, ownerM);
  const log: Uint8Array[] = [];
  const post = (view: RoomView, from: DeviceKeys, content: RelayContent) => {
    const bytes = composeMessage(view, from, content, 1_700_000_000_000n + BigInt(log.length));
    log.push(bytes);
    return bytes;
  };
  const first = post(ownerView, owner, roster);
  ownerView = take(ownerView, first, owner).view;
  return { owner, alice, bob, ownerM, ownerView, log, post };
}

function take(view: RoomView, bytes: Uint8Array, me: DeviceKeys): Step {
  return acceptMessage(view, bytes, me);
}

function replay(view: RoomView, log: readonly Uint8Array[], me: DeviceKeys): RoomView {
  let v = view;
  for (const m of log) {
    const s = take(v, m, me);
    expect(s.outcome.kind, s.outcome.kind === 'refused' ? s.outcome.refusal.message : '').not.toBe('refused');
    v = s.view;
  }
  return v;
}

describe('relay envelope', () => {
  it('opens for each recipient and for no one else, and hides the length up to a power of two', () => {
    const a = deviceKeys(newDeviceSecret());
    const b = deviceKeys(newDeviceSecret());
    const c = deviceKeys(newDeviceSecret());
    const text = new TextEncoder().encode('pay 1.5 LTC to ltc1qexample');
    const sealed = sealEnvelope(a, { room: ROOM, seq: 1n, prev: ZERO_HASH, sentAt: 1n }, [a.public, b.public], text);
    expect(new TextDecoder().decode(openEnvelope(sealed, a.public, b).content!)).toBe('pay 1.5 LTC to ltc1qexample');
    expect(openEnvelope(sealed, a.public, c).content).toBeNull();
    const longer = sealEnvelope(a, { room: ROOM, seq: 1n, prev: ZERO_HASH, sentAt: 1n }, [b.public], new Uint8Array(900));
    expect(longer.length).toBe(sealEnvelope(a, { room: ROOM, seq: 1n, prev: ZERO_HASH, sentAt: 1n }, [b.public], new Uint8Array(10)).length);
    expect(readEnvelope(sealed).header).toMatchObject({ room: ROOM, seq: 1n, sender: a.public.id });
    expect(bytesToHex(sealed)).not.toContain(bytesToHex(text));
  });

  it('refuses a flipped bit anywhere, a signature by another key, and a message too large for the relay', () => {
    const a = deviceKeys(newDeviceSecret());
    const b = deviceKeys(newDeviceSecret());
    const sealed = sealEnvelope(a, { room: ROOM, seq: 1n, prev: ZERO_HASH, sentAt: 1n }, [b.public], new Uint8Array([1, 2, 3]));
    for (const at of [0, 20, 40, 90, 120, sealed.length - 100, sealed.length - 1]) {
      const bad = sealed.slice();
      bad[at]! ^= 1;
      expect(() => openEnvelope(bad, a.public, b), `byte ${at}`).toThrow(RelayRefusal);
    }
    expect(() => openEnvelope(sealed, b.public, b)).toThrow(/does not carry a valid signature/);
    expect(() => sealEnvelope(a, { room: ROOM, seq: 1n, prev: ZERO_HASH, sentAt: 1n }, [b.public], new Uint8Array(MAX_CONTENT_BYTES))).toThrow(/send it as a file/);
    expect(() => readEnvelope(sealed.subarray(0, 50))).toThrow(/malformed|truncated/);
  });
});

describe('room log', () => {
  it('members read each other in order; each sees its signing request and signature', () => {
    const { owner, alice, bob, ownerView, log, post } = setUp();
    const aliceView = replay(newRoomView(ROOM, setUpOwner(ownerView)), log, alice);
    post(ownerView, owner, { kind: 'signing-request', payment: 'p1', text: 'request' });
    const ov = replay(ownerView, log.slice(1), owner);
    const av = replay(aliceView, log.slice(1), alice);
    const bytes = post(av, alice, { kind: 'signatures', payment: 'p1', text: 'sig' });
    const s = take(ov, bytes, owner);
    expect(s.outcome).toMatchObject({ kind: 'content', sender: { name: 'Alice' }, content: { kind: 'signatures', text: 'sig' } });
    const bv = replay(newRoomView(ROOM, setUpOwner(ownerView)), log, bob);
    expect(bv.lastSeq).toBe(3n);
  });

  it('refuses a replayed, a reordered, a withheld-before and an altered message, in words, and counts nothing', () => {
    const { owner, alice, ownerView, log, post } = setUp();
    post(ownerView, owner, { kind: 'signing-request', payment: 'p1', text: 'request' });
    let av = replay(newRoomView(ROOM, setUpOwner(ownerView)), log, alice);
    const ov = replay(ownerView, log.slice(1), owner);
    const m3 = post(ov, owner, { kind: 'declined', payment: 'p0', reason: 'r' });
    const ov3 = take(ov, m3, owner).view;
    const m4 = post(ov3, owner, { kind: 'declined', payment: 'p0', reason: 's' });

    const replayed = take(av, log[1]!, alice);
    expect(replayed.outcome.kind === 'refused' && replayed.outcome.refusal.message).toMatch(/already received.*replay/);
    expect(replayed.advanced).toBe(false);

    const early = take(av, m4, alice);
    expect(early.outcome.kind === 'refused' && early.outcome.refusal.message).toMatch(/message 3 is missing before message 4/);

    const altered = m3.slice();
    altered[altered.length - 70]! ^= 0x40;
    const a = take(av, altered, alice);
    expect(a.outcome.kind === 'refused' && a.outcome.refusal.kind).toBe('forged');
    expect(a.view).toBe(av);

    // the relay swaps in another message numbered 3 but chained elsewhere (sent on a forked view)
    const forked = composeMessage({ ...ov, lastHash: '00'.repeat(32) }, owner, { kind: 'declined', payment: 'p9', reason: 'x' }, 1n);
    const f = take(av, forked, alice);
    expect(f.outcome.kind === 'refused' && f.outcome.refusal.message).toMatch(/does not follow the message this desk received/);

    av = take(av, m3, alice).view;
    expect(take(av, m4, alice).outcome.kind).toBe('content');
  });

  it('counts nothing from a removed member, or from a device never admitted, and only the owner sets the roster', () => {
    const { owner, alice, bob, ownerM, ownerView, log, post } = setUp();
    let ov = ownerView;
    let bv = replay(newRoomView(ROOM, ownerM), log, bob);
    const av = replay(newRoomView(ROOM, ownerM), log, alice);
    // Alice posts a roster (only the owner may)
    const fake = post(av, alice, { kind: 'roster', wallet: 'Ops', members: [ownerM, member(alice, 'Alice', 'approver', 'key')] });
    const fk = take(bv, fake, bob);
    expect(fk.outcome.kind === 'refused' && fk.outcome.refusal.message).toMatch(/only the room's owner may/);
    bv = fk.view;
    ov = take(ov, fake, owner).view;
    // the owner removes Bob... (roster without him)
    const removal = post(ov, owner, { kind: 'roster', wallet: 'Ops', members: [ownerM, member(alice, 'Alice', 'cosigner', 'key')] });
    ov = take(ov, removal, owner).view;
    bv = take(bv, removal, bob).view;
    // ...and Bob, removed, still sends a signature: the owner counts nothing from it
    const late = post(bv, bob, { kind: 'signatures', payment: 'p1', text: 'sig' });
    const l = take(ov, late, owner);
    expect(l.outcome.kind === 'refused' && l.outcome.refusal.message).toMatch(/Bob's device, removed from this room at message 3: nothing from it counts/);
    // a device never admitted
    const stranger = deviceKeys(newDeviceSecret());
    const s = take(l.view, post(l.view, stranger, { kind: 'signatures', payment: 'p1', text: 'sig' }), owner);
    expect(s.outcome.kind).toBe('passed');
    // an approval from a co-signer does not count as an approver's
    const ap = take(s.view, post(s.view, owner, { kind: 'approval', payment: 'p1', request: '00'.repeat(32), decision: 'approve' }), owner);
    expect(ap.outcome.kind === 'refused' && ap.outcome.refusal.message).toMatch(/not an approver/);
  });

  it('an invitee joins: the owner reads the join, proof and key binding check out; a wrong code fails', () => {
    const { owner, ownerM, ownerView, log } = setUp();
    const inv = newInvitation();
    expect(inv.code).toMatch(/^([0-9A-Z]{4}-){5}[0-9A-Z]{4}$/);
    const sealed = sealInvitation(inv, { room: ROOM, owner: { sign: ownerM.sign, box: ownerM.box }, role: 'cosigner', wallet: 'Ops', coin: 'litecoin' });
    const typed = invitationFromCode(inv.code.toLowerCase().replace(/-/g, ' '));
    expect(typed.id).toBe(inv.id);
    const opened = openInvitation(typed, sealed);
    expect(opened.ownerDevice.id).toBe(owner.public.id);
    expect(() => openInvitation(newInvitation(), sealed)).toThrow(/does not open with this code/);
    const tampered = sealed.slice();
    tampered[30]! ^= 1;
    expect(() => openInvitation(typed, tampered)).toThrow(/altered/);
    expect(() => invitationFromCode('ABC')).toThrow(/24 characters/);

    const carol = deviceKeys(newDeviceSecret());
    const root = BIP32Factory(ecc).fromSeed(new Uint8Array(32).fill(7)).derivePath("m/48'/1'/0'/2'");
    const signature = signMessage(bindingMessage(ROOM, carol.public), root.privateKey!);
    const cv = replay(newRoomView(ROOM, ownerM), log, carol);
    const join = composeJoin(cv, carol, { kind: 'join', invitation: inv.id, proof: bytesToHex(joinProof(typed, ROOM, carol.public)), name: 'Carol', binding: { kind: 'key', xpub: root.neutered().toBase58(), signature } }, 5n);
    const s = acceptMessage(ownerView, join, owner, new Map([[carol.public.id, carol.public]]));
    expect(s.outcome.kind).toBe('join');
    if (s.outcome.kind !== 'join') return;
    expect(joinProofHolds(inv, ROOM, s.outcome.candidate, Uint8Array.from(Buffer.from(s.outcome.content.proof, 'hex')))).toBe(true);
    expect(joinProofHolds(newInvitation(), ROOM, s.outcome.candidate, Uint8Array.from(Buffer.from(s.outcome.content.proof, 'hex')))).toBe(false);
    expect(verifyMessage(bindingMessage(ROOM, s.outcome.candidate), signature, root.publicKey)).toEqual({ ok: true });
    // the binding signature does not carry over to another device
    expect(verifyMessage(bindingMessage(ROOM, owner.public), signature, root.publicKey).ok).toBe(false);
    // both screens show the same comparison code; another device gives another
    expect(comparisonCode(ROOM, owner.public, carol.public)).toMatch(/^\d{4} \d{4} \d{4}$/);
    expect(comparisonCode(ROOM, owner.public, carol.public)).not.toBe(comparisonCode(ROOM, owner.public, deviceKeys(newDeviceSecret()).public));
  });
});

function setUpOwner(view: RoomView): RosterMember {
  return view.owner;
}

it('refusals are RelayRefusal with a kind', () => {
  expect(new RelayRefusal('x', 'replayed').kind).toBe('replayed');
});
