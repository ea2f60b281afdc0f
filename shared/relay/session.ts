// A desk's conversation with one room through the relay: read what is new into its verified view
// (acceptMessage decides what counts), and send a message as the room's next, again after reading
// when another member sent first. No state of its own: the view goes in and comes out.
import { ApiClientError } from '../api/client.ts';
import { fromBase64, type RelayClient } from '../api/relay-client.ts';
import type { DeviceKeys, DevicePublic } from './device.ts';
import { devicePublicFromHex } from './device.ts';
import type { RelayContent, RosterMember } from './content.ts';
import { RelayRefusal } from './errors.ts';
import { acceptMessage, composeJoin, composeMessage, type JoinContent, memberDevice, type RoomView, type Step } from './room.ts';

export interface Synced {
  view: RoomView;
  steps: Step[];
  /** A message refused without moving on: the desk reads nothing after it until it is resolved. */
  stuck: RelayRefusal | null;
}

const MAX_PAGES = 50;

/** Reads the room's new messages into the view. `wait`: seconds of long poll for the first page. */
export async function syncRoom(client: RelayClient, view: RoomView, me: DeviceKeys, wait = 0): Promise<Synced> {
  const steps: Step[] = [];
  let v = view;
  let candidates: Map<string, DevicePublic> | null = null;
  const iAmOwner = memberDevice(view.owner).id === me.public.id;
  for (let page = 0; page < MAX_PAGES; page++) {
    const answer = await client.messages(me, v.room, v.lastSeq, page === 0 ? wait : 0);
    if (answer.oldest_seq !== null && answer.messages.length > 0 && BigInt(answer.messages[0]!.seq) > v.lastSeq + 1n && BigInt(answer.oldest_seq) > v.lastSeq + 1n) {
      const refusal = new RelayRefusal(`messages ${v.lastSeq + 1n} to ${answer.oldest_seq - 1} expired on the relay before this desk read them: ask the sender to send again, or read them from files`, 'withheld');
      return { view: v, steps, stuck: refusal };
    }
    for (const m of answer.messages) {
      if (iAmOwner && candidates === null && !(m.sender in v.roster)) {
        const state = await client.room(me, v.room);
        candidates = new Map(state.members.filter((d) => d.removed_at === null).map((d) => [d.device, devicePublicFromHex(d.sign_key, d.box_key)]));
      }
      const step = acceptMessage(v, fromBase64(m.envelope), me, candidates ?? new Map());
      steps.push(step);
      if (!step.advanced) return { view: v, steps, stuck: step.outcome.kind === 'refused' ? step.outcome.refusal : null };
      v = step.view;
    }
    if (answer.messages.length === 0 || BigInt(answer.head_seq) <= v.lastSeq) break;
  }
  return { view: v, steps, stuck: null };
}

/**
 * Sends `content` as the room's next message. When another member took that place first the
 * service answers 409: the desk reads the new messages and seals the message again.
 */
export async function sendToRoom(
  client: RelayClient,
  view: RoomView,
  me: DeviceKeys,
  content: RelayContent | { join: JoinContent },
  now: () => number = Date.now,
  to?: (m: RosterMember) => boolean,
): Promise<Synced> {
  let synced: Synced = { view, steps: [], stuck: null };
  for (let attempt = 0; attempt < 5; attempt++) {
    const v = synced.view;
    const bytes = 'join' in content ? composeJoin(v, me, content.join, BigInt(now())) : composeMessage(v, me, content, BigInt(now()), to);
    try {
      await client.post(v.room, bytes);
    } catch (err) {
      if (err instanceof ApiClientError && err.status === 409) {
        const more = await syncRoom(client, v, me);
        synced = { view: more.view, steps: [...synced.steps, ...more.steps], stuck: more.stuck };
        if (more.stuck) return synced;
        continue;
      }
      throw err;
    }
    const own = acceptMessage(v, bytes, me);
    // A join is not yet from a member: the chain still moves past it.
    return { view: own.advanced ? own.view : v, steps: [...synced.steps, own], stuck: null };
  }
  throw new RelayRefusal('the room was busy: five other messages came first; try again', 'malformed');
}
