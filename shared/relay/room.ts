// A desk's verified view of one room's log, and the one step that takes the next message into it.
// Each message names the hash of the message before it and its place (sequence number) in the room,
// and is signed by its sender: so a desk that takes messages only through acceptMessage() notices
// a message altered, replayed, reordered or withheld by the relay, and counts nothing from a device
// the room's owner has not admitted or has removed. Pure: the view goes in and comes out.
import { bytesToHex, hexToBytes } from '../coins/bytes.ts';
import { type DeviceKeys, type DevicePublic, devicePublicFromHex } from './device.ts';
import { type PublicEnvelope, ZERO_HASH, openEnvelope, readEnvelope, sealEnvelope } from './envelope.ts';
import { RelayRefusal } from './errors.ts';
import { type RelayContent, type RosterMember, decodeContent, encodeContent } from './content.ts';

export interface RoomView {
  room: string;
  /** The owner's device (from the invitation, or this desk's own when it made the room). */
  owner: RosterMember;
  /** The members of the owner's newest roster, by device id. */
  roster: Record<string, RosterMember>;
  /** Devices dropped from a roster: their later messages count for nothing. */
  removed: Record<string, { name: string; atSeq: string }>;
  lastSeq: bigint;
  /** Hash of the last message taken (hex); zeros before the first. */
  lastHash: string;
}

export type JoinContent = Extract<RelayContent, { kind: 'join' }>;

export type Outcome =
  | { kind: 'content'; sender: RosterMember & { id: string }; content: RelayContent }
  /** For the owner: a device asks to be admitted (its proof and binding are checked by the caller). */
  | { kind: 'join'; candidate: DevicePublic; content: JoinContent }
  /** The chain moved past a message with nothing in it for this desk. */
  | { kind: 'passed'; why: string }
  | { kind: 'refused'; refusal: RelayRefusal };

export interface Step {
  seq: bigint;
  /** The view after the step (the same view when the message was refused without moving on). */
  view: RoomView;
  outcome: Outcome;
  /** Whether the chain moved past this message. */
  advanced: boolean;
}

export function newRoomView(room: string, owner: RosterMember): RoomView {
  const id = memberDevice(owner).id;
  return { room, owner, roster: { [id]: owner }, removed: {}, lastSeq: 0n, lastHash: bytesToHex(ZERO_HASH) };
}

export function memberDevice(m: Pick<RosterMember, 'sign' | 'box'>): DevicePublic {
  return devicePublicFromHex(m.sign, m.box);
}

function refused(view: RoomView, seq: bigint, refusal: RelayRefusal): Step {
  return { seq, view, outcome: { kind: 'refused', refusal }, advanced: false };
}

function advance(view: RoomView, envelope: PublicEnvelope): RoomView {
  return { ...view, lastSeq: envelope.header.seq, lastHash: bytesToHex(envelope.hash) };
}

function applyRoster(view: RoomView, seq: bigint, members: readonly RosterMember[]): RoomView {
  const roster: Record<string, RosterMember> = {};
  for (const m of members) roster[memberDevice(m).id] = m;
  // The owner cannot be dropped by a roster: a new owner is a new room.
  roster[memberDevice(view.owner).id] = view.owner;
  const removed = { ...view.removed };
  for (const [id, m] of Object.entries(view.roster)) if (!(id in roster)) removed[id] = { name: m.name, atSeq: seq.toString() };
  for (const id of Object.keys(roster)) delete removed[id];
  return { ...view, roster, removed };
}

/**
 * Takes the next message of the room. `candidates` are device keys the service says have joined
 * (used only by the owner, only to read a join request, which it then checks on its own).
 */
export function acceptMessage(view: RoomView, bytes: Uint8Array, me: DeviceKeys, candidates: ReadonlyMap<string, DevicePublic> = new Map()): Step {
  let envelope: PublicEnvelope;
  try {
    envelope = readEnvelope(bytes);
  } catch (err) {
    return refused(view, view.lastSeq + 1n, err instanceof RelayRefusal ? err : new RelayRefusal(String(err), 'malformed'));
  }
  const { seq, room, sender, prev } = envelope.header;
  if (room !== view.room) return refused(view, seq, new RelayRefusal(`message ${seq} belongs to another room: refused`, 'wrong_room'));
  if (seq <= view.lastSeq) return refused(view, seq, new RelayRefusal(`message ${seq} was already received (this desk is at message ${view.lastSeq}): a replay, refused`, 'replayed'));
  if (seq > view.lastSeq + 1n) {
    const missing = seq === view.lastSeq + 2n ? `message ${view.lastSeq + 1n} is` : `messages ${view.lastSeq + 1n} to ${seq - 1n} are`;
    return refused(view, seq, new RelayRefusal(`${missing} missing before message ${seq}: the relay withheld or lost them; refused until they come`, 'withheld'));
  }
  if (bytesToHex(prev) !== view.lastHash) {
    return refused(view, seq, new RelayRefusal(`message ${seq} does not follow the message this desk received before it: the relay altered, swapped or withheld messages; refused`, 'reordered'));
  }
  const member = view.roster[sender];
  const ownerId = memberDevice(view.owner).id;
  const iAmOwner = me.public.id === ownerId;
  if (!member) {
    const gone = view.removed[sender];
    if (gone) {
      // Its hash still links the chain, so the desk moves past it; nothing in it counts.
      return { seq, view: advance(view, envelope), advanced: true, outcome: { kind: 'refused', refusal: new RelayRefusal(`message ${seq} is from ${gone.name}'s device, removed from this room at message ${gone.atSeq}: nothing from it counts`, 'not_member') } };
    }
    const candidate = candidates.get(sender);
    if (iAmOwner && candidate) {
      let opened: ReturnType<typeof openEnvelope>;
      try {
        opened = openEnvelope(bytes, candidate, me);
      } catch (err) {
        return refused(view, seq, err instanceof RelayRefusal ? err : new RelayRefusal(String(err), 'forged'));
      }
      const next = advance(view, envelope);
      if (!opened.content) return { seq, view: next, advanced: true, outcome: { kind: 'passed', why: `message ${seq} from a device not yet admitted is not sealed to this desk` } };
      let content: RelayContent;
      try {
        content = decodeContent(opened.content);
      } catch (err) {
        return { seq, view: next, advanced: true, outcome: { kind: 'refused', refusal: err as RelayRefusal } };
      }
      if (content.kind !== 'join') return { seq, view: next, advanced: true, outcome: { kind: 'refused', refusal: new RelayRefusal(`message ${seq} is a ${content.kind} from a device not admitted to this room: nothing from it counts`, 'not_member') } };
      return { seq, view: next, advanced: true, outcome: { kind: 'join', candidate, content } };
    }
    return { seq, view: advance(view, envelope), advanced: true, outcome: { kind: 'passed', why: `message ${seq} is from a device this desk has not seen admitted (a join for the owner): nothing from it counts` } };
  }
  let opened: ReturnType<typeof openEnvelope>;
  try {
    opened = openEnvelope(bytes, memberDevice(member), me);
  } catch (err) {
    return refused(view, seq, err instanceof RelayRefusal ? err : new RelayRefusal(String(err), 'forged'));
  }
  let next = advance(view, envelope);
  if (!opened.content) return { seq, view: next, advanced: true, outcome: { kind: 'passed', why: `message ${seq} from ${member.name} is for other members` } };
  let content: RelayContent;
  try {
    content = decodeContent(opened.content);
  } catch (err) {
    return { seq, view: next, advanced: true, outcome: { kind: 'refused', refusal: err as RelayRefusal } };
  }
  if (content.kind === 'roster') {
    if (sender !== ownerId) return { seq, view: next, advanced: true, outcome: { kind: 'refused', refusal: new RelayRefusal(`message ${seq}: ${member.name} sent a member list, which only the room's owner may: ignored`, 'not_member') } };
    next = applyRoster(next, seq, content.members);
  }
  if (content.kind === 'approval' && member.role !== 'approver') {
    return { seq, view: next, advanced: true, outcome: { kind: 'refused', refusal: new RelayRefusal(`message ${seq}: ${member.name} is not an approver of this wallet; the approval does not count`, 'not_member') } };
  }
  return { seq, view: next, advanced: true, outcome: { kind: 'content', sender: { ...member, id: sender }, content } };
}

/**
 * The next message of the room from this desk: sealed to every member of the newest roster (this
 * desk included, so it reads its own messages back), numbered after the last message taken. A
 * removed member is in no roster, so nothing sent after its removal is sealed to it. `to` narrows
 * the recipients (a request for the approvers only, before the co-signers are asked).
 */
export function composeMessage(view: RoomView, me: DeviceKeys, content: RelayContent, sentAt: bigint, to: (m: RosterMember) => boolean = () => true): Uint8Array {
  // A new roster also goes to the members it adds, so they learn who is in the room.
  const members = (content.kind === 'roster' ? [...Object.values(view.roster), ...content.members] : Object.values(view.roster)).filter(to);
  const recipients = [...new Map([...members.map(memberDevice), me.public].map((d) => [d.id, d])).values()];
  return sealEnvelope(me, { room: view.room, seq: view.lastSeq + 1n, prev: hexToBytes(view.lastHash), sentAt }, recipients, encodeContent(content));
}

/** A join request, sealed to the owner only (this desk is not yet in any roster). */
export function composeJoin(view: RoomView, me: DeviceKeys, content: JoinContent, sentAt: bigint): Uint8Array {
  return sealEnvelope(me, { room: view.room, seq: view.lastSeq + 1n, prev: hexToBytes(view.lastHash), sentAt }, [memberDevice(view.owner), me.public], encodeContent(content));
}
