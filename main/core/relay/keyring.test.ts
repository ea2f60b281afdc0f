// The relay keyring over its secret store: a key is made only when none was ever kept; a kept value
// it cannot read (damaged, a room entry damaged, a keyring that cannot decrypt it, a store that
// throws) is refused in words and left untouched; "make a new key" keeps the old value aside first.
import { describe, expect, it } from 'vitest';
import { bytesToHex } from '../../../shared/coins/index.ts';
import { deviceKeys, newDeviceSecret } from '../../../shared/relay/device.ts';
import { CoordinatorError } from '../errors.ts';
import { MemorySecretStore, safeStorageReadProblem, type ExaminedSecretStore, type StoredSecret } from '../secrets.ts';
import { RELAY_KEY_UNREADABLE, RelayKeyring, readKept } from './keyring.ts';

const ROOM = 'ab'.repeat(16);
const hexKey = () => bytesToHex(newDeviceSecret());
const planted = (text: string): MemorySecretStore => {
  const s = new MemorySecretStore();
  s.save(text);
  return s;
};

/** A store as Electron's would be with a keyring that cannot decrypt the file: it counts every save and copy. */
class StubStore implements ExaminedSecretStore {
  readonly description = 'stub';
  readonly persistent = true;
  saved: string[] = [];
  asides = 0;
  constructor(public reading: () => StoredSecret) {}
  problem(): string | null {
    return null;
  }
  save(key: string): void {
    this.saved.push(key);
  }
  load(): string | null {
    const r = this.reading();
    return r.kind === 'text' ? r.text : null;
  }
  read(): StoredSecret {
    return this.reading();
  }
  setAside(): string | null {
    this.asides += 1;
    return `/tmp/relay-device.unreadable-${this.asides}.bin`;
  }
  clear(): void {}
}

/** The refusal a relay operation gets, as the bridge would pass it on. */
function refusal(work: () => unknown): CoordinatorError {
  try {
    work();
  } catch (err) {
    if (err instanceof CoordinatorError) return err;
    throw err;
  }
  throw new Error('no refusal');
}

describe('a relay key never stored', () => {
  it('is made, kept, and read back the same', () => {
    const store = new MemorySecretStore();
    const first = new RelayKeyring(store);
    expect(first.problem).toBeNull();
    expect(store.load()).toMatch(/^[0-9a-f]{64}$/);
    expect(new RelayKeyring(store).desk.public.id).toBe(first.desk.public.id);
  });

  it("keeps a room's own key in the JSON form and reads it back", () => {
    const store = new MemorySecretStore();
    const ring = new RelayKeyring(store);
    const fresh = ring.fresh(ROOM);
    fresh.keep();
    const again = new RelayKeyring(store);
    expect(again.forRoom(ROOM).public.id).toBe(fresh.keys.public.id);
    expect(again.forRoom('cd'.repeat(16)).public.id).toBe(ring.desk.public.id);
    expect(JSON.parse(store.load()!)).toEqual({ desk: expect.stringMatching(/^[0-9a-f]{64}$/), rooms: { [ROOM]: expect.stringMatching(/^[0-9a-f]{64}$/) } });
  });
});

describe('a stored relay key that cannot be read', () => {
  const desk = hexKey();
  const damaged: [string, string, RegExp][] = [
    ['text that is no key', 'not a key at all', /neither a key nor the list of keys/],
    ['an empty value', '', /neither a key nor the list of keys/],
    ['a key one digit short', desk.slice(1), /neither a key nor the list of keys/],
    ['a JSON list', '[]', /not the list of keys the desk writes/],
    ["a desk key that is not hex", JSON.stringify({ desk: 'zz'.repeat(32), rooms: {} }), /desk's own key in it is not 64 hex digits/],
    ['rooms that are not a list of rooms', JSON.stringify({ desk, rooms: 'x' }), /rooms' keys are not a list of rooms/],
    ['one damaged room entry beside a good one', JSON.stringify({ desk, rooms: { [ROOM]: hexKey(), ['cd'.repeat(16)]: 'f00d' } }), /key it holds for room cdcd.* is not a key/],
    ['a room entry that is no string', JSON.stringify({ desk, rooms: { [ROOM]: 7 } }), /key it holds for room abab.* is not a key/],
  ];
  it.each(damaged)('%s: refused in words, the stored value untouched, no key made', (_, text, why) => {
    const store = planted(text);
    const ring = new RelayKeyring(store);
    expect(ring.problem).toEqual({
      what: expect.stringMatching(/^The relay key stored on this computer cannot be read: the stored value is damaged: /),
      means: 'This desk cannot read or send in its relay rooms until it can. Nothing was changed: the stored value is kept as it is, and no new key was made. Files still work.',
      choices: [expect.stringMatching(/^Unlock or repair the system keyring .* restart the desk/), expect.stringMatching(/^Or make a new relay key: the unreadable value is kept aside, not deleted.*invite it again/)],
    });
    expect(ring.problem!.what).toMatch(why);
    for (const use of [() => ring.desk, () => ring.forRoom(ROOM), () => ring.fresh(ROOM), () => ring.requireReadable()]) {
      const err = refusal(use);
      expect(err.code).toBe(RELAY_KEY_UNREADABLE);
      expect(err.message).toMatch(/^The relay key stored on this computer cannot be read: .*cannot read or send in its relay rooms.*make a new relay key/);
    }
    expect(store.load()).toBe(text);
  });

  it('a keyring that cannot decrypt it: the why in words, nothing saved', () => {
    const why = safeStorageReadProblem(false, null)!;
    const store = new StubStore(() => ({ kind: 'unreadable', why }));
    const ring = new RelayKeyring(store);
    expect(ring.problem!.what).toBe(`The relay key stored on this computer cannot be read: ${why}.`);
    expect(store.saved).toEqual([]);
    expect(store.asides).toBe(0);
  });

  it('a store whose read throws: refused in words, not a crash, nothing saved', () => {
    const store = new StubStore(() => {
      throw new Error('the keychain daemon went away');
    });
    const ring = new RelayKeyring(store);
    expect(ring.problem!.what).toBe('The relay key stored on this computer cannot be read: the secret store failed to read it (the keychain daemon went away).');
    expect(refusal(() => ring.desk).code).toBe(RELAY_KEY_UNREADABLE);
    expect(store.saved).toEqual([]);
  });
});

describe('making a new relay key in place of an unreadable one', () => {
  it('keeps the old value aside, makes and keeps a new key, which works after and on the next start', () => {
    const text = JSON.stringify({ desk: hexKey(), rooms: { [ROOM]: 'damaged' } });
    const store = planted(text);
    const ring = new RelayKeyring(store);
    const made = ring.replaceUnreadable();
    expect(made).toEqual({ replaced: true, setAside: "copy 1 in this desk process's memory (web mode keeps nothing once the desk stops)" });
    expect(store.asides).toEqual([text]);
    expect(ring.problem).toBeNull();
    expect(store.load()).toMatch(/^[0-9a-f]{64}$/);
    expect(ring.forRoom(ROOM).public.id).toBe(ring.desk.public.id);
    expect(new RelayKeyring(store).desk.public.id).toBe(ring.desk.public.id);
  });

  it('is refused while the key reads fine', () => {
    const ring = new RelayKeyring(new MemorySecretStore());
    expect(refusal(() => ring.replaceUnreadable())).toMatchObject({ code: 'refused', message: expect.stringMatching(/reads fine/) });
  });

  it('replaces nothing when the keyring reads the key again by then', () => {
    const secret = newDeviceSecret();
    let unlocked = false;
    const store = new StubStore(() => (unlocked ? { kind: 'text', text: bytesToHex(secret) } : { kind: 'unreadable', why: 'the keyring is locked' }));
    const ring = new RelayKeyring(store);
    expect(ring.problem).not.toBeNull();
    unlocked = true;
    expect(ring.replaceUnreadable()).toEqual({ replaced: false });
    expect(ring.desk.public.id).toBe(deviceKeys(secret).public.id);
    expect(store.saved).toEqual([]);
    expect(store.asides).toBe(0);
  });

  it('makes no key and overwrites nothing when the old value cannot be kept aside', () => {
    const store = new StubStore(() => ({ kind: 'unreadable', why: 'the keyring was reset' }));
    store.setAside = () => {
      throw new Error('EACCES: permission denied');
    };
    const ring = new RelayKeyring(store);
    expect(refusal(() => ring.replaceUnreadable())).toMatchObject({ code: 'key_storage_refused', message: expect.stringMatching(/could not be kept aside \(EACCES: permission denied\), so no new key was made and nothing was overwritten/) });
    expect(store.saved).toEqual([]);
    expect(ring.problem).not.toBeNull();
  });
});

describe('what the desk writes, read back', () => {
  it('takes both forms and nothing else', () => {
    const k = hexKey();
    expect(readKept(k)).toEqual({ desk: k, rooms: {} });
    expect(readKept(JSON.stringify({ desk: k }))).toEqual({ desk: k, rooms: {} });
    expect(readKept(k.toUpperCase())).toHaveProperty('damaged');
  });

  it('safeStorage: why a kept value cannot be decrypted now', () => {
    expect(safeStorageReadProblem(true, 'gnome_libsecret')).toBeNull();
    expect(safeStorageReadProblem(true, null)).toBeNull();
    expect(safeStorageReadProblem(false, null)).toMatch(/keyring may be locked, not running, or changed/);
    expect(safeStorageReadProblem(true, 'basic_text')).toMatch(/no system keyring is running/);
  });
});
