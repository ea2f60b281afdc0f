// The relay's tables of the desk's SQLite store (migrations 14 and 16; main/core/relay): rooms with
// this desk's verified view of each, invitations made, joins waiting for a compared code, the inbox,
// what this desk sent, approvals of payments and each wallet's approval rule. Shares the
// CoordinatorStore's connection.
import type Database from 'better-sqlite3';
import type { RoomView } from '../../../shared/relay/room.ts';
import type { RosterMember } from '../../../shared/relay/content.ts';

export type RelayRole = 'owner' | 'cosigner' | 'approver';
export type InboxStatus = 'waiting' | 'imported' | 'refused' | 'noted' | 'done';

export interface RelayRoomRow {
  room: string;
  walletId: string | null;
  walletName: string;
  role: RelayRole;
  view: RoomView;
  stuck: string | null;
  createdAt: string;
}

export interface InboxRow {
  room: string;
  seq: number;
  sender: string;
  kind: string;
  paymentId: string | null;
  body: string | null;
  status: InboxStatus;
  message: string;
  receivedAt: string;
}

export interface OutboxRow {
  room: string;
  seq: number;
  kind: string;
  paymentId: string | null;
  /** The members' names it was sealed to (this desk left out). */
  recipients: string[];
  /** Members who have sent a message after it: the room's chain proves they took it. */
  seenBy: string[];
  sentAt: string;
}

export interface InvitationRow {
  id: string;
  room: string;
  key: Uint8Array;
  role: 'cosigner' | 'approver';
  name: string;
  xpub: string | null;
  usedBy: string | null;
  /** The device the invited member's new device replaces (a rotated key), or null. */
  replaces: string | null;
}

export interface ApprovalRow {
  paymentId: string;
  device: string;
  approver: string;
  binding: RosterMember['binding'];
  decision: 'approve' | 'decline';
  requestHash: string;
  reason: string | null;
  at: string;
}

export interface ApprovalRule {
  approvals: number;
  limit: bigint | null;
  period: 'day' | 'week' | 'month' | null;
}

export interface PendingJoin {
  room: string;
  device: string;
  signKey: string;
  boxKey: string;
  invitation: string;
  name: string;
  comparison: string;
}

// A view holds bigints (lastSeq); JSON keeps them as decimal text.
const viewToJson = (v: RoomView) => JSON.stringify({ ...v, lastSeq: v.lastSeq.toString() });
const viewFromJson = (s: string): RoomView => {
  const o = JSON.parse(s) as Omit<RoomView, 'lastSeq'> & { lastSeq: string };
  return { ...o, lastSeq: BigInt(o.lastSeq) };
};

interface RoomRaw {
  room: string;
  wallet_id: string | null;
  wallet_name: string;
  role: RelayRole;
  view: string;
  stuck: string | null;
  created_at: string;
}
const room = (r: RoomRaw): RelayRoomRow => ({ room: r.room, walletId: r.wallet_id, walletName: r.wallet_name, role: r.role, view: viewFromJson(r.view), stuck: r.stuck, createdAt: r.created_at });

export class RelayStore {
  constructor(private readonly db: Database.Database) {}

  addRoom(r: Omit<RelayRoomRow, 'stuck'>): void {
    this.db.prepare('INSERT INTO relay_rooms (room, wallet_id, wallet_name, role, view, stuck, created_at) VALUES (?, ?, ?, ?, ?, NULL, ?)').run(r.room, r.walletId, r.walletName, r.role, viewToJson(r.view), r.createdAt);
  }

  rooms(): RelayRoomRow[] {
    return (this.db.prepare('SELECT * FROM relay_rooms ORDER BY created_at').all() as RoomRaw[]).map(room);
  }

  room(id: string): RelayRoomRow | null {
    const r = this.db.prepare('SELECT * FROM relay_rooms WHERE room = ?').get(id) as RoomRaw | undefined;
    return r ? room(r) : null;
  }

  /** The room the treasurer's desk owns for a wallet. */
  ownedRoom(walletId: string): RelayRoomRow | null {
    const r = this.db.prepare("SELECT * FROM relay_rooms WHERE wallet_id = ? AND role = 'owner'").get(walletId) as RoomRaw | undefined;
    return r ? room(r) : null;
  }

  /**
   * A room this desk owned with a relay key it no longer has: no longer the wallet's room (inviting
   * makes the wallet a new one), its joins dropped (only the old key could admit them), `stuck` saying why.
   */
  closeOwnedRoom(id: string, stuck: string): void {
    this.db.transaction(() => {
      this.db.prepare("UPDATE relay_rooms SET wallet_id = NULL, stuck = ? WHERE room = ? AND role = 'owner'").run(stuck, id);
      this.db.prepare('DELETE FROM relay_pending_joins WHERE room = ?').run(id);
    })();
  }

  saveView(id: string, view: RoomView, stuck: string | null): void {
    this.db.prepare('UPDATE relay_rooms SET view = ?, stuck = ? WHERE room = ?').run(viewToJson(view), stuck, id);
  }

  addInvitation(i: Omit<InvitationRow, 'usedBy' | 'replaces'> & { replaces?: string | null; createdAt: string }): void {
    this.db.prepare('INSERT INTO relay_invitations (id, room, key, role, name, xpub, created_at, used_by, replaces) VALUES (?, ?, ?, ?, ?, ?, ?, NULL, ?)').run(i.id, i.room, i.key, i.role, i.name, i.xpub, i.createdAt, i.replaces ?? null);
  }

  invitation(id: string): InvitationRow | null {
    const r = this.db.prepare('SELECT id, room, key, role, name, xpub, used_by, replaces FROM relay_invitations WHERE id = ?').get(id) as
      | { id: string; room: string; key: Buffer; role: 'cosigner' | 'approver'; name: string; xpub: string | null; used_by: string | null; replaces: string | null }
      | undefined;
    return r ? { id: r.id, room: r.room, key: new Uint8Array(r.key), role: r.role, name: r.name, xpub: r.xpub, usedBy: r.used_by, replaces: r.replaces } : null;
  }

  useInvitation(id: string, device: string): void {
    this.db.prepare('UPDATE relay_invitations SET used_by = ? WHERE id = ?').run(device, id);
  }

  addPendingJoin(j: PendingJoin, at: string): void {
    this.db
      .prepare('INSERT OR REPLACE INTO relay_pending_joins (room, device, sign_key, box_key, invitation, name, comparison, received_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
      .run(j.room, j.device, j.signKey, j.boxKey, j.invitation, j.name, j.comparison, at);
  }

  pendingJoins(): PendingJoin[] {
    return (this.db.prepare('SELECT * FROM relay_pending_joins ORDER BY received_at').all() as { room: string; device: string; sign_key: string; box_key: string; invitation: string; name: string; comparison: string }[]).map((r) => ({
      room: r.room,
      device: r.device,
      signKey: r.sign_key,
      boxKey: r.box_key,
      invitation: r.invitation,
      name: r.name,
      comparison: r.comparison,
    }));
  }

  dropPendingJoin(roomId: string, device: string): void {
    this.db.prepare('DELETE FROM relay_pending_joins WHERE room = ? AND device = ?').run(roomId, device);
  }

  addInbox(i: InboxRow): void {
    this.db
      .prepare('INSERT OR IGNORE INTO relay_inbox (room, seq, sender, kind, payment_id, body, status, message, received_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)')
      .run(i.room, i.seq, i.sender, i.kind, i.paymentId, i.body, i.status, i.message, i.receivedAt);
  }

  inbox(status?: InboxStatus): InboxRow[] {
    const rows = (status ? this.db.prepare('SELECT * FROM relay_inbox WHERE status = ? ORDER BY received_at, seq').all(status) : this.db.prepare('SELECT * FROM relay_inbox ORDER BY received_at, seq').all()) as {
      room: string;
      seq: number;
      sender: string;
      kind: string;
      payment_id: string | null;
      body: string | null;
      status: InboxStatus;
      message: string;
      received_at: string;
    }[];
    return rows.map((r) => ({ room: r.room, seq: r.seq, sender: r.sender, kind: r.kind, paymentId: r.payment_id, body: r.body, status: r.status, message: r.message, receivedAt: r.received_at }));
  }

  setInboxStatus(roomId: string, seq: number, status: InboxStatus, message: string): void {
    this.db.prepare('UPDATE relay_inbox SET status = ?, message = ? WHERE room = ? AND seq = ?').run(status, message, roomId, seq);
  }

  addOutbox(o: Omit<OutboxRow, 'seenBy'>): void {
    this.db.prepare('INSERT OR IGNORE INTO relay_outbox (room, seq, kind, payment_id, recipients, seen_by, sent_at) VALUES (?, ?, ?, ?, ?, ?, ?)').run(o.room, o.seq, o.kind, o.paymentId, JSON.stringify(o.recipients), '[]', o.sentAt);
  }

  /** What this desk sent, newest first. */
  outbox(limit = 50): OutboxRow[] {
    const rows = this.db.prepare('SELECT * FROM relay_outbox ORDER BY sent_at DESC, seq DESC LIMIT ?').all(limit) as { room: string; seq: number; kind: string; payment_id: string | null; recipients: string; seen_by: string; sent_at: string }[];
    return rows.map((r) => ({ room: r.room, seq: r.seq, kind: r.kind, paymentId: r.payment_id, recipients: JSON.parse(r.recipients) as string[], seenBy: JSON.parse(r.seen_by) as string[], sentAt: r.sent_at }));
  }

  /** `member` sent message `seq` of the room: it took every message before it, so each one this desk sent is seen by it. */
  markSeen(roomId: string, member: string, seq: number): void {
    const rows = this.db.prepare('SELECT seq, recipients, seen_by FROM relay_outbox WHERE room = ? AND seq < ?').all(roomId, seq) as { seq: number; recipients: string; seen_by: string }[];
    const update = this.db.prepare('UPDATE relay_outbox SET seen_by = ? WHERE room = ? AND seq = ?');
    for (const r of rows) {
      const seen = JSON.parse(r.seen_by) as string[];
      if (!(JSON.parse(r.recipients) as string[]).includes(member) || seen.includes(member)) continue;
      update.run(JSON.stringify([...seen, member]), roomId, r.seq);
    }
  }

  /** An approver's newest decision on a payment replaces its earlier one. */
  putApproval(a: ApprovalRow): void {
    this.db
      .prepare('INSERT OR REPLACE INTO payment_approvals (payment_id, device, approver, binding, decision, request_hash, reason, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
      .run(a.paymentId, a.device, a.approver, a.binding, a.decision, a.requestHash, a.reason, a.at);
  }

  approvals(paymentId: string): ApprovalRow[] {
    return (
      this.db.prepare('SELECT * FROM payment_approvals WHERE payment_id = ? ORDER BY at').all(paymentId) as {
        payment_id: string;
        device: string;
        approver: string;
        binding: RosterMember['binding'];
        decision: 'approve' | 'decline';
        request_hash: string;
        reason: string | null;
        at: string;
      }[]
    ).map((r) => ({ paymentId: r.payment_id, device: r.device, approver: r.approver, binding: r.binding, decision: r.decision, requestHash: r.request_hash, reason: r.reason, at: r.at }));
  }

  setRule(walletId: string, rule: ApprovalRule): void {
    this.db.prepare('INSERT OR REPLACE INTO wallet_approval_rules (wallet_id, approvals, limit_amount, period) VALUES (?, ?, ?, ?)').run(walletId, rule.approvals, rule.limit === null ? null : rule.limit.toString(), rule.period);
  }

  rule(walletId: string): ApprovalRule | null {
    const r = this.db.prepare('SELECT approvals, limit_amount, period FROM wallet_approval_rules WHERE wallet_id = ?').get(walletId) as { approvals: number; limit_amount: string | null; period: ApprovalRule['period'] } | undefined;
    return r ? { approvals: r.approvals, limit: r.limit_amount === null ? null : BigInt(r.limit_amount), period: r.period } : null;
  }
}
