// Registrations shared by instances on one store (service/leader), on SQLite and PostgreSQL: each
// instance's copy follows what another wrote (one generation read when nothing changed), answers a
// script only to the key whose wallet holds it, and a rescan taken by one instance does not drop a
// rescan another instance asked for meanwhile. Revoking a key drops the wallets it registered.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chainParams } from '../../../shared/coins/coin-table.ts';
import { createApiKey, revokeApiKey } from '../../store/api-keys.ts';
import { openTestStore, STORE_KINDS, type TestStore } from '../../store/test-stores.ts';
import { testVault } from '../../test/watch-vault.ts';
import { WatchList } from './watch.ts';

const params = chainParams('litecoin', 'regtest');
const first = testVault('watch list one');
const second = testVault('watch list two');
const third = testVault('watch list three');
const fourth = testVault('watch list four');
const registration = (descriptor: string, birthdayHeight: number) => ({ descriptors: [descriptor], birthdayHeight, gapLimit: 5 });

describe.each(STORE_KINDS)('watch registrations shared by instances on %s', (kind) => {
  let t: TestStore;
  beforeAll(async () => {
    t = await openTestStore(kind);
  });
  afterAll(async () => t?.dispose());

  it('an instance sees what another registered and derived, per key, and keeps rescans asked meanwhile', async () => {
    const leader = new WatchList(t.store.db, 'litecoin', params);
    const follower = new WatchList(t.store.db, 'litecoin', params);
    await leader.register('key-a', 'one', registration(first.descriptor(), 10));
    await follower.load();
    const a0 = first.address(false, 0).scriptPubKey;
    expect(follower.has(a0)).toBe(true);
    expect(follower.has(a0, 'key-a')).toBe(true);
    expect(follower.has(a0, 'key-b')).toBe(false); // another key is not answered it
    // and is told the same words as for a script nobody registered
    const words = (script: Uint8Array) => follower.notWatched(script, 'key-b').message.replace(/^address \S+/, 'address <a>');
    expect(words(a0)).toBe(words(second.address(false, 0).scriptPubKey));

    // The leader takes the first rescan: its copy is current, nothing pending.
    await leader.load();
    expect(leader.pendingRescan()).toBe(10);
    await leader.rescansTaken(10);
    expect(leader.pendingRescan()).toBeNull();

    // Meanwhile the follower registers two wallets: one older than the leader's next rescan, one newer.
    await follower.register('key-b', 'two', registration(second.descriptor(), 5));
    await follower.register('key-b', 'three', registration(third.descriptor(), 20));
    // The leader takes a rescan from 12 (say, its own derivation): the one from 20 is covered by it,
    // the one from 5 is not and stays pending; its copy now holds both wallets' scripts.
    await leader.rescansTaken(12);
    expect(leader.pendingRescan()).toBe(5);
    expect(leader.has(second.address(false, 0).scriptPubKey, 'key-b')).toBe(true);
    expect(leader.has(third.address(false, 4).scriptPubKey, 'key-b')).toBe(true);
    expect(leader.has(third.address(false, 4).scriptPubKey, 'key-a')).toBe(false);

    // The leader derives further; the follower's next load has the new scripts.
    const one = leader.wallet('key-a', 'one')!;
    await leader.deriveTo(one, 0, 9);
    const a8 = first.address(false, 8).scriptPubKey;
    expect(follower.has(a8)).toBe(false);
    await follower.load();
    expect(follower.has(a8, 'key-a')).toBe(true);
    expect(follower.wallet('key-a', 'one')!.derived[0]).toBe(9);

    // Checks of scans are kept in the store: every instance reads the same.
    await leader.setChecked(one, { height: 30, error: null });
    expect(await follower.check('key-a', 'one')).toEqual({ height: 30, error: null });
    // A rescan of the wallet voids its check.
    await follower.load();
    await follower.markRescan(follower.wallet('key-a', 'one')!, 10);
    expect(await leader.check('key-a', 'one')).toBeUndefined();
  });

  it('a wallet registered below the tip is scanned apart: its scan numbered, answered 503 alone, done at the swap unless rescanned meanwhile', async () => {
    const list = new WatchList(t.store.db, 'litecoin-apart', params);
    // Registered at tip 50: one from block 60 follows the tip, one from 10 is scanned apart.
    const following = await list.register('key-a', 'follows', registration(first.descriptor(), 60), 50);
    const apart = await list.register('key-b', 'apart', registration(second.descriptor(), 10), 50);
    expect([following.scanFrom, following.scanNumber]).toEqual([null, 1]);
    expect([apart.scanFrom, apart.scanNumber]).toEqual([10, 1]);
    expect(list.scanning().map((w) => w.walletId)).toEqual(['apart']);
    // The index following the tip takes only the rescan above it (nothing to read again there).
    expect(list.pendingRescan()).toBe(60);
    const b0 = second.address(false, 0).scriptPubKey;
    expect(list.scanningWalletOf([b0], 'key-b')?.walletId).toBe('apart');
    expect(list.scanningWalletOf([first.address(false, 0).scriptPubKey], 'key-a')).toBeUndefined();
    // Another key's view of a scanning wallet: not its wallet, so not its 503 (its 404 comes first).
    expect(list.scanningWalletOf([b0], 'key-a')).toBeUndefined();
    // A key that registers the same scripts and follows the tip holds them whole: answered.
    await list.register('key-a', 'same', registration(second.descriptor(), 60), 50);
    expect(list.scanningWalletOf([b0], 'key-b')).toBeUndefined();

    // A scan of both began (numbers taken); the apart wallet is then rescanned: scan 2, still pending after the swap.
    const snapshot = new Map(list.all().map((w) => [WatchList.keyOf(w), w.scanNumber]));
    await list.markRescan(list.wallet('key-b', 'apart')!, 5, 50);
    expect(list.wallet('key-b', 'apart')).toMatchObject({ scanFrom: 5, scanNumber: 2, birthdayHeight: 5 });
    await t.store.db.transaction().execute((trx) => list.scansDone(trx, snapshot));
    await list.load();
    expect(list.wallet('key-b', 'apart')).toMatchObject({ scanFrom: 5, scanNumber: 2 });
    await t.store.db.transaction().execute((trx) => list.scansDone(trx, new Map(list.all().map((w) => [WatchList.keyOf(w), w.scanNumber]))));
    await list.load();
    expect(list.scanning()).toEqual([]);
    expect(list.wallet('key-b', 'apart')).toMatchObject({ scanFrom: null, rescanFrom: null, scanNumber: 2 });
    // Registering it again is its next scan, never number 1 again.
    expect((await list.register('key-b', 'apart', registration(second.descriptor(), 10), 50)).scanNumber).toBe(3);
  });

  it("revoking a key drops its wallets from every instance's scan, and leaves another key's wallet of the same scripts", async () => {
    const { id: gone } = await createApiKey(t.store, 'leaving');
    const { id: stays } = await createApiKey(t.store, 'staying');
    const leader = new WatchList(t.store.db, 'litecoin', params);
    const follower = new WatchList(t.store.db, 'litecoin', params);
    await leader.register(gone, 'vault', registration(first.descriptor(), 10));
    await leader.register(gone, 'other', registration(fourth.descriptor(), 10));
    await leader.register(stays, 'vault', registration(first.descriptor(), 10));
    await follower.load();
    const a0 = first.address(false, 0).scriptPubKey;
    const b0 = fourth.address(false, 0).scriptPubKey;
    expect(follower.has(b0, gone)).toBe(true);

    expect(await revokeApiKey(t.store, gone)).toBe(true);
    await follower.load();
    await leader.load();
    for (const list of [leader, follower]) {
      expect(list.wallet(gone, 'vault')).toBeUndefined();
      expect(list.has(b0)).toBe(false); // only the revoked key watched it: no longer scanned
      expect(list.has(a0, gone)).toBe(false);
      expect(list.has(a0, stays)).toBe(true);
    }
    expect(await revokeApiKey(t.store, gone)).toBe(false); // already revoked: nothing changes
  });
});
