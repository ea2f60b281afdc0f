// Issue 35's proof at the desks' core, on litecoind -regtest through one service: a treasurer and
// two co-signers and an approver, each desk with its own store and device key. Invitations; a
// co-signer bound by its key, one and the approver by a compared code; a spending rule asks the
// approver first; one signature by relay and one by file complete one payment, which confirms. A
// relayed signature that was altered is refused in the file importer's own words.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RelayClient } from '../../../shared/api/relay-client.ts';
import { deviceKeys, newDeviceSecret } from '../../../shared/relay/device.ts';
import { testCosigner } from '../../../dev/desk-testing/keys.ts';
import { fundWallet, startWalletDesk, type WalletDesk } from '../../../dev/desk-testing/regtest.ts';
import { importPaymentFiles } from '../payments/files.ts';
import { progress } from '../payments/payments.ts';
import { proposePayment } from '../payments/propose.ts';
import { refreshConfirmations, submitPayment } from '../payments/submit.ts';
import { signRequest } from '../software-signer.ts';
import { openStore, type CoordinatorStore } from '../store/store.ts';
import { MemorySecretStore } from '../secrets.ts';
import { confirmJoin, inviteToWallet, joinByCode, paymentApprovals, relayApproval, relayDevice, relaySignatures, relaySigningRequest, syncRelay, type RelayDeps } from './relay.ts';

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
  return { store, api: wd.desk.api, actor: name, relay: new RelayClient(wd.desk.api), device: deviceKeys(newDeviceSecret()) };
}

beforeAll(async () => {
  wd = await startWalletDesk('Treasury');
  dir = mkdtempSync(join(tmpdir(), 'countersign-relay-desks-'));
  treasurer = { ...wd.deps, relay: new RelayClient(wd.desk.api), device: relayDevice(new MemorySecretStore()) };
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
  it('the device key is made once and kept in the secret store', () => {
    const secrets = new MemorySecretStore();
    expect(relayDevice(secrets).public.id).toBe(relayDevice(secrets).public.id);
  });

  it('invitations: alice bound by her key, bob and the approver by a compared code', async () => {
    const a = await inviteToWallet(treasurer, wd.walletId, { role: 'cosigner', position: 0 });
    const joinedA = await joinByCode(aliceDesk, a.code, 'alice', { xprv: alice.accountXprv });
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
    treasurer.store.relay.setRule(wd.walletId, { approvals: 1, limit: COIN / 2n, period: 'day' });
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
    await syncRelay(treasurer);
    expect(paymentApprovals(treasurer, p.id)).toMatchObject({ clear: true, words: 'approved by Dana (CFO) (verified by code)' });
    expect(treasurer.store.auditTrail.all().map((e) => `${e.action}: ${e.detail}`)).toContain(`relay.approval: payment ${p.id}: approved by Dana (CFO) (verified by code)`);

    expect((await relaySigningRequest(treasurer, p.id)).to).toBe('everyone');
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
});
