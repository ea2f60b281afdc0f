// The desk's side of the relay (issue 35): its device key, a room per wallet, invitations, joins,
// and the inbox. Every payload that arrives goes through the function the desk's file import uses
// (importPaymentFiles) or the one a co-signer's desk opens a request file with
// (openSigningRequest): the relay adds convenience, not trust. Files keep working beside it.
import { ApiClientError } from '../../../shared/api/client.ts';
import type { RelayClient } from '../../../shared/api/relay-client.ts';
import { fromBase64 } from '../../../shared/api/relay-client.ts';
import { bytesToHex, hexToBytes, parseXpub } from '../../../shared/coins/index.ts';
import { chainParams, isCoinName, isUtxoCoin, type CoinName, type NetworkName, type UtxoCoinName } from '../../../shared/coins/coin-table.ts';
import { signMessage, verifyMessage } from '../../../shared/files/signed-message.ts';
import { paymentHash } from '../../../shared/files/signing-files.ts';
import type { RelayContent, RosterMember } from '../../../shared/relay/content.ts';
import type { DeviceKeys, DevicePublic } from '../../../shared/relay/device.ts';
import { bindingMessage, comparisonCode, invitationFromCode, joinProof, joinProofHolds, newInvitation, openInvitation, sealInvitation } from '../../../shared/relay/invitation.ts';
import { memberDevice, newRoomView, type RoomView, type Step } from '../../../shared/relay/room.ts';
import { sendToRoom, syncRoom } from '../../../shared/relay/session.ts';
import { CoordinatorError } from '../errors.ts';
import { signMessageOnLedger } from '../ledger/message.ts';
import type { LedgerConnector } from '../ledger/transport.ts';
import { importPaymentFiles } from '../payments/files.ts';
import { openSigningRequest, writeSigningRequest } from '../payments/signing-request.ts';
import { paymentName, paymentNames } from '../payments/words.ts';
import type { ExaminedSecretStore } from '../secrets.ts';
import { cosignerPrivateKey, type SoftwareKey } from '../software-signer.ts';
import type { ApprovalRule, RelayRoomRow } from '../store/relay-store.ts';
import { coinAmount } from '../units.ts';
import { requireWallet, walletParams, type CoreDeps } from '../wallets/wallets.ts';
import { approvalNeeded, approvalState, periodStart, type ApprovalState } from './approvals.ts';
import { RelayKeyring } from './keyring.ts';

export interface RelayDeps extends CoreDeps {
  relay: RelayClient;
  keys: RelayKeyring;
  now?: () => Date;
}

/** The device key this desk uses in a room (its own key, unless its key there was rotated). */
const deviceIn = (deps: Pick<RelayDeps, 'keys'>, room: string): DeviceKeys => deps.keys.forRoom(room);

const nowOf = (deps: Pick<RelayDeps, 'now'>) => (deps.now ? deps.now() : new Date());
const stamp = (deps: Pick<RelayDeps, 'now'>) => nowOf(deps).toISOString();

/** The desk's device keys: made once and kept in its SecretStore (safeStorage on Electron); never remade over a kept value it cannot read. */
export function relayKeys(secrets: ExaminedSecretStore): RelayKeyring {
  return new RelayKeyring(secrets);
}

/** What a room this desk joined says once the desk has a new relay key, until it joins again. */
const rejoinWords = (wallet: string): string => `the room of ${wallet} knows this desk by its old relay key: ask its treasurer to remove this desk's old device and invite it again (Rotate key gives the invitation)`;

/** A room this desk made with a relay key it no longer has: closed, so the wallet gets a new room. */
const closedRoom = (r: RelayRoomRow): boolean => r.role === 'owner' && r.walletId === null;

/**
 * The treasurer's explicit choice when the stored relay key cannot be read: the stored value kept
 * aside, a new key, and each room told what it means (the rooms know this desk by its old key).
 */
export function replaceRelayKey(deps: Pick<RelayDeps, 'store' | 'keys' | 'actor'>): { replaced: boolean; device: string; setAside: string | null; rooms: string[] } {
  const done = deps.keys.replaceUnreadable();
  const device = deps.keys.desk.public.id;
  if (!done.replaced) return { replaced: false, device, setAside: null, rooms: [] };
  const rooms: string[] = [];
  for (const r of deps.store.relay.rooms()) {
    if (closedRoom(r)) continue;
    if (r.role === 'owner') {
      const words = `this desk made the room of ${r.walletName} with its old relay key, which it no longer has, and only that key changes the room's members: the room is closed to this desk; inviting to ${r.walletName} makes it a new room, and every member joins that one`;
      deps.store.relay.closeOwnedRoom(r.room, words);
      rooms.push(`${r.walletName}: ${words}`);
    } else {
      const words = rejoinWords(r.walletName);
      deps.store.relay.saveView(r.room, r.view, words);
      rooms.push(`${r.walletName}: ${words}`);
    }
  }
  const aside = done.setAside ? ` (the unreadable value is kept aside: ${done.setAside})` : '';
  deps.store.audit(deps.actor, 'relay.new_key', `the relay key stored on this computer could not be read, and a new one was made on request${aside}; device ${device}${rooms.length ? `; ${rooms.join('; ')}` : ''}`);
  return { replaced: true, device, setAside: done.setAside, rooms };
}

const me = (keys: DeviceKeys, name: string, role: RosterMember['role'], binding: RosterMember['binding']): RosterMember => ({ sign: bytesToHex(keys.public.sign), box: bytesToHex(keys.public.box), role, binding, name });

/** The treasurer's room for a wallet: made on first use, with a roster of the treasurer alone. */
export async function openWalletRoom(deps: RelayDeps, walletId: string, treasurer = 'Treasurer'): Promise<RelayRoomRow> {
  const existing = deps.store.relay.ownedRoom(walletId);
  if (existing) return existing;
  const w = requireWallet(deps, walletId);
  const device = deps.keys.desk;
  const { room } = await deps.relay.createRoom(device);
  const owner = me(device, treasurer, 'owner', 'owner');
  const sent = await sendToRoom(deps.relay, newRoomView(room, owner), device, { kind: 'roster', wallet: w.name, members: [owner] });
  deps.store.relay.addRoom({ room, walletId, walletName: w.name, role: 'owner', view: sent.view, createdAt: stamp(deps) });
  deps.store.audit(deps.actor, 'relay.room', `wallet ${w.name}: relay room ${room} opened`, null, { walletId });
  return deps.store.relay.room(room)!;
}

/** An invitation to the wallet's room, for co-signer `position` or a named approver: the code to pass on out of band. */
export async function inviteToWallet(deps: RelayDeps, walletId: string, who: { role: 'cosigner'; position: number } | { role: 'approver'; name: string }): Promise<{ code: string; name: string }> {
  const room = await openWalletRoom(deps, walletId);
  const w = requireWallet(deps, walletId);
  const cosigner = who.role === 'cosigner' ? deps.store.cosigners(walletId).find((c) => c.position === who.position) : undefined;
  if (who.role === 'cosigner' && !cosigner) throw new CoordinatorError('not_found', `wallet ${w.name} has no co-signer ${who.position + 1}`);
  return invite(deps, room, { role: who.role, name: cosigner ? cosigner.name : (who as { name: string }).name, cosigner });
}

async function invite(deps: RelayDeps, room: RelayRoomRow, who: { role: 'cosigner' | 'approver'; name: string; cosigner: { name: string; xpub: string; derivationPath: string } | undefined; replaces?: { device: string; name: string } }): Promise<{ code: string; name: string }> {
  const w = requireWallet(deps, room.walletId!);
  const { cosigner, name } = who;
  const inv = newInvitation();
  const o = room.view.owner;
  const sealed = sealInvitation(inv, {
    room: room.room,
    owner: { sign: o.sign, box: o.box },
    role: who.role,
    wallet: w.name,
    coin: w.coin,
    network: w.network,
    ...(cosigner ? { xpub: cosigner.xpub, path: cosigner.derivationPath } : {}),
  });
  await deps.relay.invite(deviceIn(deps, room.room), room.room, inv.id, sealed);
  deps.store.relay.addInvitation({ id: inv.id, room: room.room, key: inv.key, role: who.role, name, xpub: cosigner?.xpub ?? null, replaces: who.replaces?.device ?? null, createdAt: stamp(deps) });
  const as = who.role === 'cosigner' ? 'co-signer' : 'approver';
  const words = who.replaces ? `${name} invited to join the relay again with a new device key (as ${as}); the old device is removed once the new one is admitted` : `${name} invited to the relay as ${as}`;
  deps.store.audit(deps.actor, who.replaces ? 'relay.rotate' : 'relay.invite', `wallet ${w.name}: ${words}`, null, { walletId: w.id, ...(cosigner ? { cosigner: cosigner.name } : {}) });
  return { code: inv.code, name };
}

/** The member of a room this desk owns, or why not. */
function ownedMember(deps: RelayDeps, roomId: string, device: string): { room: RelayRoomRow; member: RosterMember } {
  const room = deps.store.relay.room(roomId);
  if (!room || room.role !== 'owner' || !room.walletId) throw new CoordinatorError('not_found', 'this desk owns no such relay room: only the treasurer who made it removes members or rotates their keys');
  const member = room.view.roster[device];
  if (!member) throw new CoordinatorError('not_found', `no member of the room of ${room.walletName} has device ${device}`);
  if (member.role === 'owner') throw new CoordinatorError('refused', "the room's owner cannot be removed or rotated: a new owner makes a new room");
  return { room, member };
}

/**
 * Removes a member's device: a roster without it (nothing is sealed to it from then on, and the
 * desks count nothing it sends), then the service refuses its reads and posts.
 */
export async function removeMember(deps: RelayDeps, roomId: string, device: string): Promise<{ name: string; atSeq: number }> {
  const { room, member } = ownedMember(deps, roomId, device);
  const members = Object.entries(room.view.roster).filter(([id]) => id !== device).map(([, m]) => m);
  const view = await sendAndKeep(deps, room, { kind: 'roster', wallet: room.walletName, members });
  await deps.relay.remove(deviceIn(deps, roomId), roomId, device);
  deps.store.audit(deps.actor, 'relay.remove', `${member.name} removed from the relay room of wallet ${room.walletName} at message ${view.lastSeq}: nothing from that device counts any more`, null, { walletId: room.walletId!, ...(member.role === 'cosigner' ? { cosigner: member.name } : {}) });
  return { name: member.name, atSeq: Number(view.lastSeq) };
}

/**
 * Rotates a member's device key: an invitation for the same person, role and wallet key; when their
 * new device is admitted (by key or by a compared code), the old one is removed.
 */
export async function rotateMember(deps: RelayDeps, roomId: string, device: string): Promise<{ code: string; name: string }> {
  const { room, member } = ownedMember(deps, roomId, device);
  const cosigner = member.role === 'cosigner' ? deps.store.cosigners(room.walletId!).find((c) => c.xpub === member.xpub) : undefined;
  if (member.role === 'cosigner' && !cosigner) throw new CoordinatorError('not_found', `${member.name}'s key is no longer one of wallet ${room.walletName}'s co-signers`);
  return invite(deps, room, { role: member.role === 'approver' ? 'approver' : 'cosigner', name: member.name, cosigner, replaces: { device, name: member.name } });
}

/**
 * A co-signer's or approver's desk joins by the code it was given. With the co-signer's software
 * key, the key signs the device (bound by key); without, both screens compare `comparison`.
 */
/** Signs the relay's binding message with the co-signer's key in the wallet (the xpub's key, at `path` below the device's master key). */
export type BindingSigner = (invited: { coin: CoinName; network: NetworkName; xpub: string; path: string }, message: string) => Promise<string>;

/** The co-signer's software key (used for this call and dropped) signs the binding. */
export const softwareBinding =
  (key: SoftwareKey): BindingSigner =>
  async (inv, message) =>
    signMessage(message, cosignerPrivateKey(chainParams(inv.coin as UtxoCoinName, inv.network), key, inv.xpub, inv.path));

/** The co-signer's Ledger signs the binding at the co-signer's path (the Bitcoin app's message signing). */
export const ledgerBinding =
  (connector: LedgerConnector): BindingSigner =>
  (inv, message) =>
    signMessageOnLedger(connector, inv.coin, inv.network, inv.path, message);

export async function joinByCode(deps: Pick<RelayDeps, 'store' | 'relay' | 'keys' | 'now' | 'actor'>, code: string, name: string, signer?: BindingSigner): Promise<{ room: string; wallet: string; role: 'cosigner' | 'approver'; comparison: string; binding: 'key' | 'code' }> {
  // The key first: a desk that cannot read its relay key says so before it reads the code.
  deps.keys.requireReadable();
  const secret = invitationFromCode(code);
  const found = await deps.relay.invitation(secret.id);
  const opened = openInvitation(secret, fromBase64(found.sealed));
  if (opened.room !== found.room) throw new CoordinatorError('tampered', 'the invitation names another room than the service says: refused');
  // A desk already in the room joins again with a new key (the treasurer rotated its key there).
  const already = deps.store.relay.room(opened.room);
  if (already?.role === 'owner') throw new CoordinatorError('refused', 'this desk owns that room: an invitation to it is for someone else');
  const fresh = already ? deps.keys.fresh(opened.room) : null;
  const device = fresh ? fresh.keys : deps.keys.forRoom(opened.room);
  let binding: RelayContent & { kind: 'join' } extends { binding: infer B } ? B : never = { kind: 'code' };
  if (signer && opened.xpub) {
    if (!isCoinName(opened.coin) || !isUtxoCoin(opened.coin)) throw new CoordinatorError('malformed', `the invitation is for coin ${opened.coin}, which this desk does not know`);
    const network = (opened.network ?? 'mainnet') as NetworkName;
    const message = bindingMessage(opened.room, device.public);
    const signature = await signer({ coin: opened.coin, network, xpub: opened.xpub, path: opened.path ?? 'm' }, message);
    // Checked here as the treasurer's desk will: a key that is not the co-signer's is named now, not refused silently there.
    const check = verifyMessage(message, signature, parseXpub(chainParams(opened.coin, network), opened.xpub).publicKey);
    if (!check.ok) throw new CoordinatorError('foreign', `the binding was not signed by the co-signer's key the invitation names (${check.why}): use the device that holds that key, or join without it and compare the code`);
    binding = { kind: 'key', xpub: opened.xpub, signature };
  }
  await deps.relay.join(device, secret.id);
  const owner: RosterMember = { sign: opened.owner.sign, box: opened.owner.box, role: 'owner', binding: 'owner', name: 'Treasurer' };
  const synced = await syncRoom(deps.relay, newRoomView(opened.room, owner), device);
  const sent = await sendToRoom(deps.relay, synced.view, device, { join: { kind: 'join', invitation: secret.id, proof: bytesToHex(joinProof(secret, opened.room, device.public)), name, binding } }, () => nowOf(deps).getTime());
  fresh?.keep();
  if (already) deps.store.relay.saveView(opened.room, sent.view, null);
  else deps.store.relay.addRoom({ room: opened.room, walletId: null, walletName: opened.wallet, role: opened.role, view: sent.view, createdAt: stamp(deps) });
  deps.store.relay.addOutbox({ room: opened.room, seq: Number(sent.view.lastSeq), kind: 'join', paymentId: null, recipients: ['Treasurer'], sentAt: stamp(deps) });
  const how = binding.kind === 'key' ? 'bound by key' : 'to be verified by code';
  deps.store.audit(deps.actor, 'relay.join', already ? `joined the relay room of wallet ${opened.wallet} again with a new device key (${how})` : `joined the relay room of wallet ${opened.wallet} as ${opened.role === 'cosigner' ? 'co-signer' : 'approver'} (${how})`);
  return { room: opened.room, wallet: opened.wallet, role: opened.role, comparison: comparisonCode(opened.room, opened.ownerDevice, device.public), binding: binding.kind };
}

async function sendAndKeep(deps: RelayDeps, room: RelayRoomRow, content: RelayContent, to: (m: RosterMember) => boolean = () => true): Promise<RoomView> {
  const device = deviceIn(deps, room.room);
  const sent = await sendToRoom(deps.relay, room.view, device, content, () => nowOf(deps).getTime(), to);
  // The view first: what the steps do (an admission) sends from it.
  deps.store.relay.saveView(room.room, sent.view, sent.stuck?.message ?? null);
  // The members it was sealed to (as composeMessage picks them: a new roster goes to the members it adds too).
  const members = content.kind === 'roster' ? [...Object.values(room.view.roster), ...content.members] : Object.values(sent.view.roster);
  const recipients = [...new Set(members.filter((m) => m.sign !== bytesToHex(device.public.sign) && to(m)).map((m) => m.name))];
  deps.store.relay.addOutbox({ room: room.room, seq: Number(sent.view.lastSeq), kind: content.kind, paymentId: 'payment' in content ? content.payment : null, recipients, sentAt: stamp(deps) });
  await handleSteps(deps, room, sent.steps.slice(0, -1));
  return sent.view;
}

/** Admits a member in a new roster; `replaces`: the device of theirs it takes the place of (a rotated key), dropped in the same roster and removed on the service. */
async function admit(deps: RelayDeps, room: RelayRoomRow, member: RosterMember, replaces: string | null): Promise<void> {
  const current = deps.store.relay.room(room.room)!;
  const members = [...Object.entries(current.view.roster).filter(([id, m]) => m.sign !== member.sign && id !== replaces).map(([, m]) => m), member];
  const view = await sendAndKeep(deps, current, { kind: 'roster', wallet: current.walletName, members });
  const how = `${member.binding === 'key' ? "bound by the co-signer's key" : 'verified by code'}`;
  const old = replaces ? current.view.roster[replaces] : undefined;
  if (replaces) await deps.relay.remove(deviceIn(deps, room.room), room.room, replaces).catch(() => undefined);
  const detail = old
    ? `${member.name}'s key rotated in the relay room of wallet ${current.walletName}: the new device admitted, ${how}; the old device removed at message ${view.lastSeq}, nothing from it counts any more`
    : `${member.name} admitted to the relay room of wallet ${current.walletName} as ${member.role === 'cosigner' ? 'co-signer' : 'approver'}, ${how}`;
  deps.store.audit(deps.actor, old ? 'relay.rotated' : 'relay.admit', detail, null, { ...(current.walletId ? { walletId: current.walletId } : {}) });
}

/** The treasurer confirms (or not) that both screens showed the same code for a waiting join. */
export async function confirmJoin(deps: RelayDeps, roomId: string, device: string, same: boolean): Promise<void> {
  const pending = deps.store.relay.pendingJoins().find((j) => j.room === roomId && j.device === device);
  if (!pending) throw new CoordinatorError('not_found', 'no join waits for a code comparison from that device');
  const room = deps.store.relay.room(roomId)!;
  deps.store.relay.dropPendingJoin(roomId, device);
  if (!same) {
    await deps.relay.remove(deviceIn(deps, roomId), roomId, device);
    deps.store.audit(deps.actor, 'relay.refuse', `${pending.name}'s join refused: the codes differed`);
    return;
  }
  const inv = deps.store.relay.invitation(pending.invitation)!;
  await admit(deps, room, { sign: pending.signKey, box: pending.boxKey, role: inv.role, binding: 'code', name: inv.name, ...(inv.xpub ? { xpub: inv.xpub } : {}) }, inv.replaces);
}

export interface RelayReport {
  /** Results of the payloads this sync imported or refused, in words. */
  messages: string[];
  stuck: string[];
}

function spentInPeriod(deps: RelayDeps, walletId: string, paymentId: string, since: Date): bigint {
  return deps.store
    .payments(walletId)
    .filter((p) => p.id !== paymentId && p.kind === 'payment' && p.state !== 'cancelled' && p.state !== 'failed' && p.droppedBy === null && new Date(p.createdAt) >= since)
    .reduce((sum, p) => sum + p.amount, 0n);
}

/** Whether a payment needs approvals before its co-signers are asked, and how far they are. */
export function paymentApprovals(deps: Pick<RelayDeps, 'store' | 'now'>, paymentId: string): ApprovalState {
  const p = deps.store.payment(paymentId);
  if (!p) throw new CoordinatorError('not_found', `no payment ${paymentId}`);
  const rule = deps.store.relay.rule(p.walletId);
  const since = rule?.period ? periodStart(rule.period, nowOf(deps)) : new Date(0);
  const needed = approvalNeeded(rule, p.amount, rule?.period ? spentInPeriod(deps as RelayDeps, p.walletId, p.id, since) : 0n);
  return approvalState(rule, needed, deps.store.relay.approvals(paymentId), paymentHash(p.unsignedTx));
}

/**
 * Sends the payment's signing request through the wallet's room: to the approvers while the
 * wallet's rule wants approvals, to the co-signers once they are in (the approvers have decided),
 * and to everyone when the payment needs no approval.
 */
export async function relaySigningRequest(deps: RelayDeps, paymentId: string): Promise<{ to: 'approvers' | 'cosigners' | 'everyone'; approvals: ApprovalState }> {
  const p = deps.store.payment(paymentId);
  if (!p) throw new CoordinatorError('not_found', `no payment ${paymentId}`);
  const room = deps.store.relay.ownedRoom(p.walletId);
  if (!room) throw new CoordinatorError('not_found', 'this wallet has no relay room yet: invite its co-signers first');
  const approvals = paymentApprovals(deps, paymentId);
  const text = await writeSigningRequest(deps, paymentId);
  const to = !approvals.clear ? 'approvers' : approvals.needed > 0 ? 'cosigners' : 'everyone';
  if (to === 'approvers' && !Object.values(room.view.roster).some((m) => m.role === 'approver')) {
    throw new CoordinatorError('refused', `this payment needs ${approvals.needed} approval${approvals.needed === 1 ? '' : 's'} before its co-signers are asked, and no approver is in the wallet's room yet: invite one on the Relay page`);
  }
  await sendAndKeep(deps, room, { kind: 'signing-request', payment: paymentId, text }, to === 'everyone' ? undefined : (m) => m.role === to.slice(0, -1));
  const whom = { approvers: 'the approvers', cosigners: 'the co-signers', everyone: 'the co-signers and approvers' }[to];
  deps.store.audit(deps.actor, 'relay.request', `${paymentNames(deps, [paymentId])}: signing request sent by relay to ${whom}`, 'relay', { paymentId, walletId: p.walletId });
  return { to, approvals };
}

/** A co-signer's desk sends its signature file (made from a request it opened) back through the room. */
export async function relaySignatures(deps: RelayDeps, roomId: string, paymentId: string, signatureFile: string): Promise<void> {
  const room = deps.store.relay.room(roomId);
  if (!room) throw new CoordinatorError('not_found', `this desk is in no relay room ${roomId}`);
  await sendAndKeep(deps, room, { kind: 'signatures', payment: paymentId, text: signatureFile });
  markDone(deps, roomId, paymentId, `payment ${paymentId}: you signed it and sent the signatures back by relay`);
}

export async function relayDecline(deps: RelayDeps, roomId: string, paymentId: string, reason: string): Promise<void> {
  const room = deps.store.relay.room(roomId);
  if (!room) throw new CoordinatorError('not_found', `this desk is in no relay room ${roomId}`);
  await sendAndKeep(deps, room, { kind: 'declined', payment: paymentId, reason });
  markDone(deps, roomId, paymentId, `payment ${paymentId}: you declined it: ${reason}`);
}

/** An approver's decision on a request it received, naming the payment hash of the request it checked. */
export async function relayApproval(deps: RelayDeps, roomId: string, paymentId: string, decision: 'approve' | 'decline', reason?: string): Promise<void> {
  const room = deps.store.relay.room(roomId);
  if (!room || room.role !== 'approver') throw new CoordinatorError('not_found', 'this desk is no approver in that room');
  const item = deps.store.relay.inbox().find((i) => i.room === roomId && i.paymentId === paymentId && i.kind === 'signing-request');
  if (!item?.body) throw new CoordinatorError('not_found', `no signing request for payment ${paymentId} arrived here`);
  const opened = openSigningRequest(item.body);
  await sendAndKeep(deps, room, { kind: 'approval', payment: paymentId, request: opened.request.payment_hash, decision, ...(reason ? { reason } : {}) });
  markDone(deps, roomId, paymentId, decision === 'approve' ? `payment ${paymentId}: you approved it, signed by this desk's device` : `payment ${paymentId}: you declined to approve it${reason ? `: ${reason}` : ''}`);
}

function markDone(deps: Pick<RelayDeps, 'store'>, roomId: string, paymentId: string, message: string): void {
  for (const i of deps.store.relay.inbox('waiting')) if (i.room === roomId && i.paymentId === paymentId) deps.store.relay.setInboxStatus(roomId, i.seq, 'done', message);
}

/** Reads every room's new messages and acts on them. `wait`: seconds of long poll on the first room. */
export async function syncRelay(deps: RelayDeps, wait = 0): Promise<RelayReport> {
  const report: RelayReport = { messages: [], stuck: [] };
  // A key that cannot be read refuses here in words, before any room is marked stuck for it.
  deps.keys.requireReadable();
  for (const [i, room] of deps.store.relay.rooms().filter((r) => !closedRoom(r)).entries()) {
    let synced: Awaited<ReturnType<typeof syncRoom>>;
    try {
      synced = await syncRoom(deps.relay, room.view, deviceIn(deps, room.room), i === 0 ? wait : 0);
    } catch (err) {
      // One room the desk cannot read (removed from it, or the service down) holds up no other room.
      const refused = err instanceof ApiClientError && err.status === 403;
      // After a new relay key the service refuses it until the desk joins again: the words keep saying why.
      const words =
        refused && room.stuck === rejoinWords(room.walletName)
          ? room.stuck
          : refused
          ? `the service refuses this desk's device in the room of ${room.walletName}: the treasurer removed it or rotated its key; ask them for a new invitation if that is a mistake`
          : `the relay could not be read: ${err instanceof Error ? err.message : String(err)}`;
      deps.store.relay.saveView(room.room, room.view, words);
      report.stuck.push(`${room.walletName}: ${words}`);
      continue;
    }
    // The view first: what the steps do (an admission) sends from it.
    deps.store.relay.saveView(room.room, synced.view, synced.stuck?.message ?? null);
    report.messages.push(...(await handleSteps(deps, room, synced.steps)));
    if (synced.stuck) report.stuck.push(`${room.walletName}: ${synced.stuck.message}`);
  }
  return report;
}

async function handleSteps(deps: RelayDeps, room: RelayRoomRow, steps: readonly Step[]): Promise<string[]> {
  const words: string[] = [];
  const at = stamp(deps);
  const inbox = (seq: bigint, sender: string, kind: string, paymentId: string | null, body: string | null, status: 'waiting' | 'imported' | 'refused' | 'noted', message: string) => {
    deps.store.relay.addInbox({ room: room.room, seq: Number(seq), sender, kind, paymentId, body, status, message, receivedAt: at });
    words.push(message);
  };
  for (const step of steps) {
    const o = step.outcome;
    if (o.kind === 'passed') continue;
    if (o.kind === 'refused') {
      inbox(step.seq, '', 'refused', null, null, 'refused', `relay message ${step.seq}: ${o.refusal.message}`);
      continue;
    }
    if (o.kind === 'join') {
      words.push(...(await handleJoin(deps, room, o.candidate, o.content)));
      continue;
    }
    const c = o.content;
    const from = o.sender.name;
    const source = `relay: ${from}, message ${step.seq}`;
    // A member's message names the hash of the one before it: it took every earlier message, ours too.
    if (o.sender.id !== deviceIn(deps, room.room).public.id) deps.store.relay.markSeen(room.room, from, Number(step.seq));
    if (c.kind === 'signatures' || c.kind === 'psbt') {
      if (room.role !== 'owner') continue;
      // The same function as the desk's file import: the relay adds convenience, not trust.
      const [result] = importPaymentFiles(deps, [{ name: source, text: c.kind === 'psbt' ? c.base64 : c.text }]);
      inbox(step.seq, from, c.kind, result!.paymentId ?? c.payment, null, result!.status === 'refused' ? 'refused' : 'imported', result!.message);
    } else if (c.kind === 'signing-request') {
      if (room.role === 'owner') continue;
      // The same offline checks as a request file, before it is listed as waiting.
      try {
        const opened = openSigningRequest(c.text);
        inbox(step.seq, from, c.kind, opened.request.request_id, c.text, 'waiting', `${room.walletName}: a signing request waits for you`);
      } catch (err) {
        inbox(step.seq, from, c.kind, c.payment, null, 'refused', `${source}: the signing request was refused: ${err instanceof Error ? err.message : String(err)}`);
      }
    } else if (c.kind === 'declined') {
      if (room.role !== 'owner') continue;
      inbox(step.seq, from, c.kind, c.payment, null, 'noted', `${from} declined the ${paymentNames(deps, [c.payment])}: ${c.reason}`);
      deps.store.audit(deps.actor, 'relay.declined', `${paymentNames(deps, [c.payment])}: ${from} declined to sign: ${c.reason}`, source, { paymentId: c.payment });
    } else if (c.kind === 'approval') {
      if (room.role !== 'owner') continue;
      const p = deps.store.payment(c.payment);
      if (!p || p.walletId !== room.walletId) {
        inbox(step.seq, from, c.kind, c.payment, null, 'refused', `${source}: an approval of payment ${c.payment}, which is no payment of this wallet`);
      } else if (paymentHash(p.unsignedTx) !== c.request) {
        inbox(step.seq, from, c.kind, c.payment, null, 'refused', `${source}: the approval names another transaction than the ${paymentName(deps, p)}: not counted`);
      } else {
        deps.store.relay.putApproval({ paymentId: p.id, device: o.sender.id, approver: from, binding: o.sender.binding, decision: c.decision, requestHash: c.request, reason: c.reason ?? null, at });
        const detail = `${paymentName(deps, p)}: ${c.decision === 'approve' ? 'approved' : 'declined'} by ${from}${o.sender.binding === 'code' ? ' (verified by code)' : ''}${c.reason ? `: ${c.reason}` : ''}`;
        deps.store.audit(deps.actor, c.decision === 'approve' ? 'relay.approval' : 'relay.approval_declined', detail, source, { paymentId: p.id, walletId: p.walletId });
        inbox(step.seq, from, c.kind, p.id, null, 'noted', detail);
        if (c.decision === 'approve') words.push(...(await askCosignersOnceApproved(deps, room, p.id)));
      }
    }
  }
  return words;
}

/** Once the approvals a payment needs are in, its request goes on to the co-signers: they are asked only then. */
async function askCosignersOnceApproved(deps: RelayDeps, room: RelayRoomRow, paymentId: string): Promise<string[]> {
  const current = deps.store.relay.room(room.room)!;
  const cosigners = new Set(Object.values(current.view.roster).filter((m) => m.role === 'cosigner').map((m) => m.name));
  const requests = deps.store.relay.outbox(1_000).filter((o) => o.room === room.room && o.paymentId === paymentId && o.kind === 'signing-request');
  if (requests.length === 0 || requests.some((o) => o.recipients.some((n) => cosigners.has(n))) || !paymentApprovals(deps, paymentId).clear) return [];
  try {
    await relaySigningRequest(deps, paymentId);
    return [`${paymentNames(deps, [paymentId])}: approved; its signing request went on to the co-signers by relay`];
  } catch (err) {
    return [`${paymentNames(deps, [paymentId])}: approved, but its signing request could not go on to the co-signers: ${err instanceof Error ? err.message : String(err)}`];
  }
}

/** A wallet's approval rule, set by the treasurer: `approvals` approvals for every payment, or only above `limit` per `period`. */
export function setApprovalRule(deps: Pick<RelayDeps, 'store' | 'actor'>, walletId: string, rule: ApprovalRule): ApprovalRule {
  const w = requireWallet(deps, walletId);
  if ((rule.limit === null) !== (rule.period === null)) throw new CoordinatorError('malformed', 'a spending limit needs its period (day, week or month), and a period its limit', { field: 'limit' });
  if (rule.limit !== null && rule.limit <= 0n) throw new CoordinatorError('malformed', 'the spending limit is more than zero', { field: 'limit' });
  deps.store.relay.setRule(walletId, rule);
  const words =
    rule.approvals === 0 ? 'no approval needed' : `${rule.approvals} approval${rule.approvals === 1 ? '' : 's'} ${rule.limit !== null ? `above ${coinAmount(walletParams(w), rule.limit)} spent per ${rule.period}` : 'for every payment'}`;
  deps.store.audit(deps.actor, 'relay.rule', `wallet ${w.name}: approval rule set: ${words}`, null, { walletId });
  return rule;
}

async function handleJoin(deps: RelayDeps, room: RelayRoomRow, candidate: DevicePublic, content: Extract<RelayContent, { kind: 'join' }>): Promise<string[]> {
  const inv = deps.store.relay.invitation(content.invitation);
  if (!inv || inv.room !== room.room || (inv.usedBy !== null && inv.usedBy !== candidate.id) || !joinProofHolds(inv, room.room, candidate, hexToBytes(content.proof))) {
    await deps.relay.remove(deviceIn(deps, room.room), room.room, candidate.id).catch(() => undefined);
    return [`a device asked to join the room of ${room.walletName} without a valid invitation proof: removed`];
  }
  deps.store.relay.useInvitation(inv.id, candidate.id);
  const member = { sign: bytesToHex(candidate.sign), box: bytesToHex(candidate.box), role: inv.role, name: inv.name, ...(inv.xpub ? { xpub: inv.xpub } : {}) };
  if (content.binding.kind === 'key') {
    const w = room.walletId ? requireWallet(deps, room.walletId) : null;
    const ok = w !== null && inv.xpub !== null && content.binding.xpub === inv.xpub && verifyMessage(bindingMessage(room.room, candidate), content.binding.signature, parseXpub(walletParams(w), inv.xpub).publicKey).ok;
    if (ok) {
      await admit(deps, room, { ...member, binding: 'key' }, inv.replaces);
      return [`${inv.name} joined the room of ${room.walletName}${inv.replaces ? ' with a new device key' : ''}, bound by the co-signer's key`];
    }
  }
  const owner = memberDevice(room.view.owner);
  deps.store.relay.addPendingJoin({ room: room.room, device: candidate.id, signKey: member.sign, boxKey: member.box, invitation: inv.id, name: inv.name, comparison: comparisonCode(room.room, owner, candidate) }, stamp(deps));
  return [`${inv.name} asks to join the room of ${room.walletName}: compare the code on both screens`];
}
