// The desk's relay device keys, kept in its SecretStore (safeStorage on Electron): one key for the
// desk, and a key of its own for each room the desk rejoined after its key there was rotated. The
// service refuses a removed key for good, so a rotated member needs a new one; other rooms keep theirs.
//
// A key is made only when none was ever kept. A kept value this desk cannot read (a keyring locked,
// changed or reset; a damaged value) is never replaced on its own: the rooms know this desk by the
// old key, and a new one written over it would lose that identity for good. The keyring then
// refuses in words until the treasurer fixes the keyring or asks for a new key (replaceUnreadable),
// which keeps the unreadable value aside first.
import { bytesToHex, hexToBytes } from '../../../shared/coins/index.ts';
import { type DeviceKeys, deviceKeys, newDeviceSecret } from '../../../shared/relay/device.ts';
import { CoordinatorError } from '../errors.ts';
import type { ExaminedSecretStore, StoredSecret } from '../secrets.ts';

interface Kept {
  desk: string;
  rooms: Record<string, string>;
}

const HEX64 = /^[0-9a-f]{64}$/;
const ROOM = /^[0-9a-f]{32}$/;

/** What the store holds: the desk's secret as 64 hex digits (as first kept), or JSON with the rooms' own keys; else why it is damaged. */
export function readKept(text: string): Kept | { damaged: string } {
  if (HEX64.test(text)) return { desk: text, rooms: {} };
  let o: unknown;
  try {
    o = JSON.parse(text);
  } catch {
    return { damaged: 'the stored value is damaged: it is neither a key nor the list of keys the desk writes' };
  }
  if (typeof o !== 'object' || o === null || Array.isArray(o)) return { damaged: 'the stored value is damaged: it is not the list of keys the desk writes' };
  const { desk, rooms = {} } = o as { desk?: unknown; rooms?: unknown };
  if (typeof desk !== 'string' || !HEX64.test(desk)) return { damaged: "the stored value is damaged: the desk's own key in it is not 64 hex digits" };
  if (typeof rooms !== 'object' || rooms === null || Array.isArray(rooms)) return { damaged: "the stored value is damaged: its rooms' keys are not a list of rooms" };
  // A damaged room entry makes the whole value unreadable: dropped, the desk would use its own key
  // in a room that removed it, and the next save would lose the entry for good.
  for (const [room, key] of Object.entries(rooms)) {
    if (!ROOM.test(room) || typeof key !== 'string' || !HEX64.test(key)) return { damaged: `the stored value is damaged: the key it holds for room ${room.slice(0, 40)} is not a key` };
  }
  return { desk, rooms: rooms as Record<string, string> };
}

/** Why the relay key cannot be used, for the relay's refusals and its screen. */
export interface RelayKeyProblem {
  /** What happened. */
  what: string;
  /** What it means for this desk. */
  means: string;
  /** What the treasurer can do about it. */
  choices: string[];
}

export const RELAY_KEY_UNREADABLE = 'relay_key_unreadable';

function problemOf(why: string): RelayKeyProblem {
  return {
    what: `The relay key stored on this computer cannot be read: ${why}.`,
    means: 'This desk cannot read or send in its relay rooms until it can. Nothing was changed: the stored value is kept as it is, and no new key was made. Files still work.',
    choices: [
      'Unlock or repair the system keyring (the one this computer user signed in with) and restart the desk: it reads the key again.',
      "Or make a new relay key: the unreadable value is kept aside, not deleted, and this desk gets a new key. The rooms know this desk by its old key, so each room's treasurer must remove this desk's old device and invite it again, and the rooms this desk made are closed to it (inviting to a wallet makes it a new room).",
    ],
  };
}

export const problemWords = (p: RelayKeyProblem): string => `${p.what} ${p.means} ${p.choices.join(' ')}`;

/** What the store holds, a store that throws counted as unreadable. */
function examine(secrets: ExaminedSecretStore): StoredSecret {
  try {
    return secrets.read();
  } catch (err) {
    return { kind: 'unreadable', why: `the secret store failed to read it (${err instanceof Error ? err.message : String(err)})` };
  }
}

type State = { kind: 'ready'; kept: Kept } | { kind: 'unreadable'; problem: RelayKeyProblem };

/** The state a stored value gives: a key made and kept only when none was ever stored. */
function open(secrets: ExaminedSecretStore, save: (k: Kept) => void): State {
  const stored = examine(secrets);
  if (stored.kind === 'none') {
    const kept = { desk: bytesToHex(newDeviceSecret()), rooms: {} };
    save(kept);
    return { kind: 'ready', kept };
  }
  if (stored.kind === 'unreadable') return { kind: 'unreadable', problem: problemOf(stored.why) };
  const kept = readKept(stored.text);
  return 'damaged' in kept ? { kind: 'unreadable', problem: problemOf(kept.damaged) } : { kind: 'ready', kept };
}

export class RelayKeyring {
  private state: State;
  private readonly cache = new Map<string, DeviceKeys>();

  constructor(private readonly secrets: ExaminedSecretStore) {
    this.state = open(secrets, (k) => this.save(k));
  }

  private save({ desk, rooms }: Kept): void {
    this.secrets.save(Object.keys(rooms).length === 0 ? desk : JSON.stringify({ desk, rooms }));
  }

  /** Why the relay key cannot be used now, or null when it can. */
  get problem(): RelayKeyProblem | null {
    return this.state.kind === 'unreadable' ? this.state.problem : null;
  }

  /** The keys kept, or the refusal in words every relay operation answers while they cannot be read. */
  private kept(): Kept {
    if (this.state.kind === 'unreadable') throw new CoordinatorError(RELAY_KEY_UNREADABLE, problemWords(this.state.problem));
    return this.state.kept;
  }

  /** Throws the refusal in words while the keys cannot be read. */
  requireReadable(): void {
    this.kept();
  }

  private keysOf(hex: string): DeviceKeys {
    let k = this.cache.get(hex);
    if (!k) this.cache.set(hex, (k = deviceKeys(hexToBytes(hex))));
    return k;
  }

  /** The desk's own key: every room it made, and every room it joined without a rotation. */
  get desk(): DeviceKeys {
    return this.keysOf(this.kept().desk);
  }

  /** The key this desk uses in `room`. */
  forRoom(room: string): DeviceKeys {
    const own = this.kept().rooms[room];
    return own ? this.keysOf(own) : this.desk;
  }

  /** A new key for `room`, not yet kept: `keep()` once the room has taken it (a failed join leaves the old one in use). */
  fresh(room: string): { keys: DeviceKeys; keep: () => void } {
    this.requireReadable(); // now, before the join
    const hex = bytesToHex(newDeviceSecret());
    return {
      keys: this.keysOf(hex),
      keep: () => {
        const kept = { ...this.kept(), rooms: { ...this.kept().rooms, [room]: hex } };
        this.save(kept);
        this.state = { kind: 'ready', kept };
      },
    };
  }

  /**
   * The treasurer's explicit choice when the stored value cannot be read: it is kept aside first
   * (where, in words), then a new key is made and kept. Read again first: a keyring unlocked since
   * gives the old key back and nothing is replaced.
   */
  replaceUnreadable(): { replaced: false } | { replaced: true; setAside: string | null } {
    if (this.state.kind === 'ready') throw new CoordinatorError('refused', "this desk's relay key reads fine: a new one is made only in place of one that cannot be read");
    const again = examine(this.secrets);
    if (again.kind === 'text' && !('damaged' in readKept(again.text))) {
      this.state = open(this.secrets, (k) => this.save(k));
      if (this.state.kind === 'ready') return { replaced: false };
    }
    // Aside before the save: if the copy fails, the refusal says why and nothing is overwritten.
    let setAside: string | null;
    try {
      setAside = again.kind === 'none' ? null : this.secrets.setAside();
    } catch (err) {
      throw new CoordinatorError('key_storage_refused', `the unreadable relay key could not be kept aside (${err instanceof Error ? err.message : String(err)}), so no new key was made and nothing was overwritten`);
    }
    const kept = { desk: bytesToHex(newDeviceSecret()), rooms: {} };
    this.save(kept);
    this.state = { kind: 'ready', kept };
    return { replaced: true, setAside };
  }
}
