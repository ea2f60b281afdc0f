// Issue 35's proof at the desks' core, on litecoind -regtest through one service: a treasurer and
// two co-signers and an approver, each desk with its own store and device key. Invitations; a
// co-signer bound by its key, one and the approver by a compared code; a spending rule asks the
// approver first, and the co-signers only once it approved; one signature by relay and one by file
// complete one payment, which confirms. A relayed signature that was altered is refused in the file
// importer's own words. Then bob's key is rotated (his new device counts, his old one is refused)
// and the approver removed (her approval counts for nothing), each refused in words.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RelayClient } from '../../../shared/api/relay-client.ts';
import { acceptMessage, composeMessage } from '../../../shared/relay/room.ts';
import { sendToRoom } from '../../../shared/relay/session.ts';
import { testCosigner } from '../../../dev/desk-testing/keys.ts';
import { fundWallet, startWalletDesk, type WalletDesk } from '../../../dev/desk-testing/regtest.ts';
import { appAndVersion, replay, Session } from '../../../dev/ledger-testing/apdu.ts';
import { importPaymentFiles } from '../payments/files.ts';
import { progress } from '../payments/payments.ts';
import { proposePayment } from '../payments/propose.ts';
import { paymentName } from '../payments/words.ts';
import { refreshConfirmations, submitPayment } from '../payments/submit.ts';
import { signRequest } from '../software-signer.ts';
import { openStore, type CoordinatorStore } from '../store/store.ts';
import { MemorySecretStore } from '../secrets.ts';
import { RelayKeyring } from './keyring.ts';
import { confirmJoin, inviteToWallet, joinByCode, paymentApprovals, relayApproval, relayDecline, relayKeys, relaySignatures, relaySigningRequest, ledgerBinding, removeMember, rotateMember, setApprovalRule, softwareBinding, syncRelay, type RelayDeps } from './relay.ts';

const COIN = 100_000_000n;
const [alice, bob] = [testCosigner('alice'), testCosigner('bob')];

let wd: WalletDesk;
let dir: string;
let treasurer: RelayDeps;
let aliceDesk: RelayDeps;
let bobDesk: RelayDeps;
let dana: RelayDeps;
const stores: CoordinatorStore[] = [];

function otherDesk(name: string): RelayDeps {
  const store = openStore(join(dir, `${name}.sqlite`));
  stores.push(store);
  return { store, api: wd.desk.api, actor: name, relay: new RelayClient(wd.desk.api), keys: relayKeys(new MemorySecretStore()) };
}

beforeAll(async () => {
  wd = await startWalletDesk('Treasury');
  dir = mkdtempSync(join(tmpdir(), 'countersign-relay-desks-'));
  treasurer = { ...wd.deps, relay: new RelayClient(wd.desk.api), keys: relayKeys(new MemorySecretStore()) };
  aliceDesk = otherDesk('alice');
  bobDesk = otherDesk('bob');
  dana = otherDesk('dana');
  await fundWallet(wd.desk, wd.deps, wd.walletId, 3n * COIN);
}, 120_000);
afterAll(async () => {
  for (const s of stores) s.close();
  await wd?.dispose();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('co-signers anywhere', () => {
  it("the device key is made once and kept in the secret store, with a room's own key after a rotation", () => {
    const secrets = new MemorySecretStore();
    const first = new RelayKeyring(secrets);
    expect(new RelayKeyring(secrets).desk.public.id).toBe(first.desk.public.id);
    const fresh = first.fresh('ab'.repeat(16));
    // not kept until the room took it
    expect(new RelayKeyring(secrets).forRoom('ab'.repeat(16)).public.id).toBe(first.desk.public.id);
    fresh.keep();
    const again = new RelayKeyring(secrets);
    expect(again.forRoom('ab'.repeat(16)).public.id).toBe(fresh.keys.public.id);
    expect(again.forRoom('cd'.repeat(16)).public.id).toBe(first.desk.public.id);
  });

  it('invitations: alice bound by her key, bob and the approver by a compared code', async () => {
    const a = await inviteToWallet(treasurer, wd.walletId, { role: 'cosigner', position: 0 });
    // alice's Ledger runs the Litecoin app, whose message format the desk does not check: refused before anything is sent
    const litecoinApp = replay(appAndVersion(new Session(), 'Litecoin', '2.4.1'));
    await expect(joinByCode(aliceDesk, a.code, 'alice', ledgerBinding(litecoinApp.connector))).rejects.toThrow("the Litecoin app 2.4.1 signs messages in its own coin's format, which the desk does not check");
    litecoinApp.done();
    expect(aliceDesk.store.relay.rooms()).toEqual([]);
    const joinedA = await joinByCode(aliceDesk, a.code, 'alice', softwareBinding({ xprv: alice.accountXprv }));
    expect(joinedA.binding).toBe('key');
    const b = await inviteToWallet(treasurer, wd.walletId, { role: 'cosigner', position: 1 });
    const joinedB = await joinByCode(bobDesk, b.code, 'bob');
    const d = await inviteToWallet(treasurer, wd.walletId, { role: 'approver', name: 'Dana (CFO)' });
    const joinedD = await joinByCode(dana, d.code, 'Dana');

    const report = await syncRelay(treasurer);
    expect(report.messages).toContain("alice joined the room of Treasury, bound by the co-signer's key");
    const pending = treasurer.store.relay.pendingJoins();
    expect(pending.map((p) => p.name).sort()).toEqual(['Dana (CFO)', 'bob']);
    // both screens show the same code
    expect(pending.find((p) => p.name === 'bob')!.comparison).toBe(joinedB.comparison);
    expect(pending.find((p) => p.name === 'Dana (CFO)')!.comparison).toBe(joinedD.comparison);
    for (const p of pending) await confirmJoin(treasurer, p.room, p.device, true);
    const roster = Object.values(treasurer.store.relay.ownedRoom(wd.walletId)!.view.roster);
    expect(roster.map((m) => `${m.name}:${m.role}:${m.binding}`).sort()).toEqual(['Dana (CFO):approver:code', 'Treasurer:owner:owner', 'alice:cosigner:key', 'bob:cosigner:code']);
    for (const desk of [aliceDesk, bobDesk, dana]) expect((await syncRelay(desk)).stuck).toEqual([]);
  });

  it('above the spending rule the approver is asked first; one signature by relay and one by file complete the payment', async () => {
    expect(() => setApprovalRule(treasurer, wd.walletId, { approvals: 1, limit: COIN / 2n, period: null })).toThrow('a spending limit needs its period (day, week or month), and a period its limit');
    setApprovalRule(treasurer, wd.walletId, { approvals: 1, limit: COIN / 2n, period: 'day' });
    expect(treasurer.store.auditTrail.all().map((e) => e.detail)).toContain('wallet Treasury: approval rule set: 1 approval above 0.5 LTC (regtest) spent per day');
    const to = await wd.desk.node.newAddress('legacy');
    const p = await proposePayment(wd.deps, wd.walletId, { to, amount: COIN, minersFee: 10_000n });
    expect(paymentApprovals(treasurer, p.id)).toMatchObject({ needed: 1, clear: false });
    expect((await relaySigningRequest(treasurer, p.id)).to).toBe('approvers');
    // the co-signers are not asked yet: nothing waits for them
    await syncRelay(aliceDesk);
    expect(aliceDesk.store.relay.inbox('waiting')).toEqual([]);
    await syncRelay(dana);
    const forDana = dana.store.relay.inbox('waiting');
    expect(forDana.map((i) => [i.paymentId, i.message])).toEqual([[p.id, 'Treasury: a signing request waits for you']]);
    await relayApproval(dana, forDana[0]!.room, p.id, 'approve');
    // the approval reaches the treasurer's desk, which asks the co-signers at once
    expect((await syncRelay(treasurer)).messages).toContain(`${paymentName(treasurer, p)}: approved; its signing request went on to the co-signers by relay`);
    expect(paymentApprovals(treasurer, p.id)).toMatchObject({ clear: true, words: 'approved by Dana (CFO) (verified by code)' });
    expect(treasurer.store.auditTrail.all().map((e) => `${e.action}: ${e.detail}`)).toContain(`relay.approval: ${paymentName(treasurer, p)}: approved by Dana (CFO) (verified by code)`);
    // what the treasurer sent: the request to Dana alone, which she has seen (she answered after it), then to the co-signers
    const requests = treasurer.store.relay.outbox().filter((o) => o.kind === 'signing-request' && o.paymentId === p.id).reverse();
    expect(requests.map((o) => [o.recipients, o.seenBy])).toEqual([
      [['Dana (CFO)'], ['Dana (CFO)']],
      [['alice', 'bob'], []],
    ]);
    // the approver is not asked again
    await syncRelay(dana);
    expect(dana.store.relay.inbox('waiting')).toEqual([]);
    await syncRelay(aliceDesk);
    const forAlice = aliceDesk.store.relay.inbox('waiting');
    expect(forAlice).toHaveLength(1);
    // alice signs on her desk and answers by relay
    const signed = signRequest(forAlice[0]!.body!, { xprv: alice.accountXprv });
    // an altered answer first: refused in the file importer's words, nothing counted
    await relaySignatures(aliceDesk, forAlice[0]!.room, p.id, signed.file.replace(/"signature": "30/, '"signature": "31'));
    let report = await syncRelay(treasurer);
    expect(report.messages.join('\n')).toMatch(/relay: alice, message \d+: /);
    expect(progress(wd.deps, p.id).complete).toBe(false);
    await relaySignatures(aliceDesk, forAlice[0]!.room, p.id, signed.file);
    report = await syncRelay(treasurer);
    expect(report.messages.join('\n')).toMatch(/1 signature by alice imported|signatures? by alice imported/);
    // bob is offline: his signature comes as a file, into the same payment
    await syncRelay(bobDesk);
    const bobFile = signRequest(bobDesk.store.relay.inbox('waiting')[0]!.body!, { xprv: bob.accountXprv });
    const [fromFile] = importPaymentFiles(wd.deps, [{ name: 'bob.json', text: bobFile.file }]);
    expect(fromFile!.status).toBe('imported');
    expect(progress(wd.deps, p.id).complete).toBe(true);
    const sent = await submitPayment(wd.deps, p.id);
    expect(sent.state).toBe('broadcast');
    await wd.desk.mine(1);
    await refreshConfirmations(wd.deps, p.id);
    expect(wd.store.payment(p.id)!.state).toBe('confirmed');
    const inbox = treasurer.store.relay.inbox();
    expect(inbox.filter((i) => i.kind === 'signatures').map((i) => i.status)).toEqual(['refused', 'imported']);
  }, 120_000);
  it("rotates bob's key: his new device counts, his old one is refused; a removed approver's approval counts for nothing", async () => {
    const room = treasurer.store.relay.ownedRoom(wd.walletId)!;
    const oldBob = bobDesk.keys.forRoom(room.room);
    const oldBobView = bobDesk.store.relay.room(room.room)!.view;
    const { code } = await rotateMember(treasurer, room.room, oldBob.public.id);
    // bob's desk joins again: it is in the room already, so it makes a new key for it
    const joined = await joinByCode(bobDesk, code, 'bob');
    const newBob = bobDesk.keys.forRoom(room.room);
    expect(newBob.public.id).not.toBe(oldBob.public.id);
    expect(bobDesk.keys.desk.public.id).toBe(oldBob.public.id);
    expect((await syncRelay(treasurer)).messages).toContain('bob asks to join the room of Treasury: compare the code on both screens');
    const pending = treasurer.store.relay.pendingJoins().find((j) => j.name === 'bob')!;
    expect(pending.comparison).toBe(joined.comparison);
    await confirmJoin(treasurer, pending.room, pending.device, true);
    const roster = treasurer.store.relay.ownedRoom(wd.walletId)!.view.roster;
    expect(Object.keys(roster)).toContain(newBob.public.id);
    expect(Object.keys(roster)).not.toContain(oldBob.public.id);
    expect(treasurer.store.auditTrail.all().map((e) => e.detail).join('\n')).toMatch(/bob's key rotated in the relay room of wallet Treasury: the new device admitted, verified by code; the old device removed at message \d+, nothing from it counts any more/);

    // the new key works: bob's decline reaches the treasurer and is noted
    expect((await syncRelay(bobDesk)).stuck).toEqual([]);
    const paid = wd.store.payments(wd.walletId)[0]!;
    await relayDecline(bobDesk, room.room, paid.id, 'testing my new key');
    expect((await syncRelay(treasurer)).messages).toContain(`bob declined the ${paymentName(treasurer, paid)}: testing my new key`);

    // the old key: the service refuses it in words, and had a hostile relay taken it, the desk would count nothing from it
    await expect(sendToRoom(bobDesk.relay, oldBobView, oldBob, { kind: 'declined', payment: paid.id, reason: 'old key' })).rejects.toThrow('this device is not a member of the room (never admitted, or removed)');
    const view = treasurer.store.relay.ownedRoom(wd.walletId)!.view;
    const forged = composeMessage(view, oldBob, { kind: 'signatures', payment: paid.id, text: '{}' }, BigInt(Date.now()));
    const step = acceptMessage(view, forged, treasurer.keys.desk);
    expect(step.outcome.kind === 'refused' && step.outcome.refusal.message).toMatch(/^message \d+ is from bob's device, removed from this room at message \d+: nothing from it counts$/);

    // the approver is removed; a new payment above the rule waits for an approval her old device can no longer give
    const danaId = Object.entries(treasurer.store.relay.ownedRoom(wd.walletId)!.view.roster).find(([, m]) => m.role === 'approver')![0];
    const removed = await removeMember(treasurer, room.room, danaId);
    expect(treasurer.store.auditTrail.all().map((e) => e.detail)).toContain(`Dana (CFO) removed from the relay room of wallet Treasury at message ${removed.atSeq}: nothing from that device counts any more`);
    const p = await proposePayment(wd.deps, wd.walletId, { to: await wd.desk.node.newAddress('legacy'), amount: COIN, minersFee: 10_000n });
    await expect(relaySigningRequest(treasurer, p.id)).rejects.toThrow("this payment needs 1 approval before its co-signers are asked, and no approver is in the wallet's room yet: invite one on the Relay page");
    const danaView = dana.store.relay.room(room.room)!.view;
    await expect(sendToRoom(dana.relay, danaView, dana.keys.desk, { kind: 'approval', payment: p.id, request: '00'.repeat(32), decision: 'approve' })).rejects.toThrow('this device is not a member of the room (never admitted, or removed)');
    const now = treasurer.store.relay.ownedRoom(wd.walletId)!.view;
    const lateStep = acceptMessage(now, composeMessage(now, dana.keys.desk, { kind: 'approval', payment: p.id, request: '00'.repeat(32), decision: 'approve' }, BigInt(Date.now())), treasurer.keys.desk);
    expect(lateStep.outcome.kind === 'refused' && lateStep.outcome.refusal.message).toBe(`message ${lateStep.seq} is from Dana (CFO)'s device, removed from this room at message ${removed.atSeq}: nothing from it counts`);
    expect(paymentApprovals(treasurer, p.id)).toMatchObject({ clear: false, approved: [] });
    // her desk says so in words, and its other rooms (none here) would still be read
    expect((await syncRelay(dana)).stuck).toEqual(["Treasury: the service refuses this desk's device in the room of Treasury: the treasurer removed it or rotated its key; ask them for a new invitation if that is a mistake"]);
  }, 120_000);
});
