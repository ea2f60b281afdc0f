// The desk's relay device keys, kept in its SecretStore (safeStorage on Electron): one key for the
// desk, and a key of its own for each room the desk rejoined after its key there was rotated. The
// service refuses a removed key for good, so a rotated member needs a new one; other rooms keep theirs.
import { bytesToHex, hexToBytes } from '../../../shared/coins/index.ts';
import { type DeviceKeys, deviceKeys, newDeviceSecret } from '../../../shared/relay/device.ts';
import type { SecretStore } from '../secrets.ts';

interface Kept {
  desk: string;
  rooms: Record<string, string>;
}

const HEX64 = /^[0-9a-f]{64}$/;

/** What the store holds: the desk's secret as 64 hex digits (as first kept), or JSON with the rooms' own keys. */
function readKept(text: string | null): Kept | null {
  if (text === null) return null;
  if (HEX64.test(text)) return { desk: text, rooms: {} };
  try {
    const o = JSON.parse(text) as Partial<Kept>;
    if (typeof o.desk !== 'string' || !HEX64.test(o.desk)) return null;
    const rooms = Object.fromEntries(Object.entries(o.rooms ?? {}).filter(([, v]) => typeof v === 'string' && HEX64.test(v)));
    return { desk: o.desk, rooms };
  } catch {
    return null;
  }
}

export class RelayKeyring {
  private kept: Kept;
  private readonly cache = new Map<string, DeviceKeys>();

  constructor(private readonly secrets: SecretStore) {
    const kept = readKept(secrets.load());
    if (kept) this.kept = kept;
    else {
      this.kept = { desk: bytesToHex(newDeviceSecret()), rooms: {} };
      this.save();
    }
  }

  private save(): void {
    const { desk, rooms } = this.kept;
    this.secrets.save(Object.keys(rooms).length === 0 ? desk : JSON.stringify({ desk, rooms }));
  }

  private keysOf(hex: string): DeviceKeys {
    let k = this.cache.get(hex);
    if (!k) this.cache.set(hex, (k = deviceKeys(hexToBytes(hex))));
    return k;
  }

  /** The desk's own key: every room it made, and every room it joined without a rotation. */
  get desk(): DeviceKeys {
    return this.keysOf(this.kept.desk);
  }

  /** The key this desk uses in `room`. */
  forRoom(room: string): DeviceKeys {
    const own = this.kept.rooms[room];
    return own ? this.keysOf(own) : this.desk;
  }

  /** A new key for `room`, not yet kept: `keep()` once the room has taken it (a failed join leaves the old one in use). */
  fresh(room: string): { keys: DeviceKeys; keep: () => void } {
    const hex = bytesToHex(newDeviceSecret());
    return {
      keys: this.keysOf(hex),
      keep: () => {
        this.kept = { ...this.kept, rooms: { ...this.kept.rooms, [room]: hex } };
        this.save();
      },
    };
  }
}
