// A relay key the desk cannot read, through the bridge's real handlers on a real SQLite file: the
// screen's status says what, what it means and the choices (no crash, no new key); every relay
// operation refuses in the same words and marks no room; "Make a new relay key" keeps the old value
// aside, tells each room what to do, closes the rooms this desk made, and the relay works after.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { bytesToHex } from '../../shared/coins/index.ts';
import { deviceKeys, newDeviceSecret } from '../../shared/relay/device.ts';
import { newRoomView } from '../../shared/relay/room.ts';
import type { RosterMember } from '../../shared/relay/content.ts';
import { ServiceConnection } from '../core/chains/connection.ts';
import { MemorySecretStore } from '../core/secrets.ts';
import { openStore, type CoordinatorStore } from '../core/store/store.ts';
import type { RelayNewKeyView, RelayStatusView } from './contract.ts';
import { dispatch } from './dispatch.ts';
import { createHandlers } from './handlers.ts';

const dirs: string[] = [];
const stores: CoordinatorStore[] = [];
afterEach(() => {
  for (const s of stores.splice(0)) s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const OWNED = '11'.repeat(16);
const JOINED = '22'.repeat(16);
const owner = (name: string): RosterMember => {
  const k = deviceKeys(newDeviceSecret());
  return { sign: bytesToHex(k.public.sign), box: bytesToHex(k.public.box), role: 'owner', binding: 'owner', name };
};

/** A desk that made the room of "Treasury" and joined the room of "Payroll" as a co-signer, its relay secret in `secrets`. */
function desk(secrets: MemorySecretStore) {
  const dir = mkdtempSync(join(tmpdir(), 'countersign-relay-key-'));
  dirs.push(dir);
  const store = openStore(join(dir, 'desk.sqlite'));
  stores.push(store);
  store.insertWallet({ id: 'w1', coin: 'litecoin', network: 'regtest', name: 'Treasury', m: 1, createdAt: '2026-01-01T00:00:00Z' }, [{ position: 0, name: 'alice', xpub: 'xa', fingerprint: '00000000', derivationPath: 'm' }]);
  store.relay.addRoom({ room: OWNED, walletId: 'w1', walletName: 'Treasury', role: 'owner', view: newRoomView(OWNED, owner('Treasurer')), createdAt: '2026-01-01T00:00:01Z' });
  store.relay.addRoom({ room: JOINED, walletId: null, walletName: 'Payroll', role: 'cosigner', view: newRoomView(JOINED, owner('Treasurer')), createdAt: '2026-01-01T00:00:02Z' });
  store.relay.addInvitation({ id: 'i1', room: OWNED, key: new Uint8Array(16), role: 'cosigner', name: 'alice', xpub: 'xa', createdAt: '2026-01-01T00:00:03Z' });
  store.relay.addPendingJoin({ room: OWNED, device: '33'.repeat(16), signKey: 'aa', boxKey: 'bb', invitation: 'i1', name: 'alice', comparison: '1234 5678' }, '2026-01-01T00:00:04Z');
  // The service is never reached: every channel here refuses or answers from the store first.
  const connection = new ServiceConnection({ store, secrets: new MemorySecretStore(), embeddedUrl: 'http://127.0.0.1:9', actor: 'treasurer' });
  const handlers = createHandlers({ store, connection, actor: 'treasurer', relaySecrets: secrets });
  return { store, call: (channel: string, input: unknown = {}) => dispatch(handlers, channel, input, (err) => expect.fail(`unexpected: ${String(err)}`)) };
}

describe('a relay key the desk cannot read, over the bridge', () => {
  it('is a state the screen shows in words; every relay operation refuses in them; nothing is overwritten', async () => {
    const damaged = JSON.stringify({ desk: bytesToHex(newDeviceSecret()), rooms: { [JOINED]: 'not a key' } });
    const secrets = new MemorySecretStore();
    secrets.save(damaged);
    const { store, call } = desk(secrets);

    const status = (await call('relay.status')) as { ok: true; value: RelayStatusView };
    expect(status.ok).toBe(true);
    expect(status.value.device).toBeNull();
    expect(status.value.key_problem).toEqual({
      what: `The relay key stored on this computer cannot be read: the stored value is damaged: the key it holds for room ${JOINED} is not a key.`,
      means: expect.stringMatching(/^This desk cannot read or send in its relay rooms until it can\. Nothing was changed/),
      choices: [expect.stringMatching(/^Unlock or repair the system keyring/), expect.stringMatching(/^Or make a new relay key/)],
    });
    expect(status.value.rooms.map((r) => [r.wallet, r.role, r.members.some((m) => m.me)])).toEqual([
      ['Treasury', 'owner', false],
      ['Payroll', 'cosigner', false],
    ]);

    for (const [channel, input] of [
      ['relay.sync', {}],
      ['relay.invite', { role: 'approver', wallet_id: 'w1', name: 'Dana' }],
      ['relay.join', { code: 'x'.repeat(30), name: 'bob' }],
      ['relay.removeMember', { room: OWNED, device: '33'.repeat(16) }],
    ] as const) {
      const r = await call(channel, input);
      expect(r, channel).toMatchObject({ ok: false, error: { code: 'relay_key_unreadable', message: expect.stringMatching(/^The relay key stored on this computer cannot be read: .* Or make a new relay key/) } });
    }
    // Refused before any room was touched: no room is marked stuck for it, and the value is as it was.
    expect(store.relay.rooms().map((r) => r.stuck)).toEqual([null, null]);
    expect(secrets.load()).toBe(damaged);
    expect(secrets.asides).toEqual([]);
  });

  it('"Make a new relay key" keeps the old value aside, tells each room, closes the rooms this desk made, and the relay works after', async () => {
    const damaged = 'this is not a relay key';
    const secrets = new MemorySecretStore();
    secrets.save(damaged);
    const { store, call } = desk(secrets);

    const made = (await call('relay.newKey')) as { ok: true; value: RelayNewKeyView };
    expect(made).toMatchObject({ ok: true, value: { replaced: true, device: expect.stringMatching(/^[0-9a-f]{32}$/), set_aside: "copy 1 in this desk process's memory (web mode keeps nothing once the desk stops)" } });
    expect(made.value.rooms).toEqual([
      expect.stringMatching(/^Treasury: this desk made the room of Treasury with its old relay key.*inviting to Treasury makes it a new room/),
      expect.stringMatching(/^Payroll: the room of Payroll knows this desk by its old relay key: ask its treasurer to remove this desk's old device and invite it again/),
    ]);
    expect(secrets.asides).toEqual([damaged]);
    expect(secrets.load()).toMatch(/^[0-9a-f]{64}$/);

    const status = (await call('relay.status')) as { ok: true; value: RelayStatusView };
    expect(status.value).toMatchObject({ device: made.value.device, key_problem: null, pending_joins: [] });
    expect(status.value.rooms.map((r) => [r.wallet, r.wallet_id, r.stuck])).toEqual([
      ['Treasury', null, expect.stringMatching(/^this desk made the room of Treasury with its old relay key/)],
      ['Payroll', null, expect.stringMatching(/^the room of Payroll knows this desk by its old relay key/)],
    ]);
    // The wallet has no room of its own any more: inviting makes a new one (with the new key).
    expect(store.relay.ownedRoom('w1')).toBeNull();
    expect(store.auditLog().at(-1)).toMatchObject({ action: 'relay.new_key', detail: expect.stringMatching(/^the relay key stored on this computer could not be read, and a new one was made on request \(the unreadable value is kept aside: copy 1/) });

    // The relay reads the key now: a mistyped invitation code is refused in the relay's words.
    expect(await call('relay.join', { code: 'x'.repeat(30), name: 'bob' })).toEqual({ ok: false, error: { code: 'relay_refused', message: 'an invitation code has 24 characters; this one has 30' } });
    // Asked again, it refuses: the key reads fine now.
    expect(await call('relay.newKey')).toMatchObject({ ok: false, error: { code: 'refused', message: expect.stringMatching(/reads fine/) } });
  });
});
