// Where the desk keeps the remote service's API key. Never in SQLite and never in a bridge answer:
// Electron encrypts it with the OS keychain (main/electron/secret-store.ts); web mode keeps it in
// memory only.
import { CoordinatorError } from './errors.ts';

export interface SecretStore {
  /** How the key is kept, in one sentence for the Settings screen. */
  readonly description: string;
  /** False when a key would not survive a restart (web mode). */
  readonly persistent: boolean;
  /** Why a key cannot be stored here right now, or null when it can. */
  problem(): string | null;
  /** Throws CoordinatorError('key_storage_refused') when problem() is not null. */
  save(key: string): void;
  load(): string | null;
  clear(): void;
}

/**
 * The decision behind the Electron store, pure so it is tested without Electron: safeStorage's
 * 'basic_text' backend (Linux without a keyring) "encrypts" with a hard-coded password, which is
 * no protection, so we refuse it as docs/architecture.md asks.
 */
export function safeStorageProblem(encryptionAvailable: boolean, backend: string | null): string | null {
  if (!encryptionAvailable) return 'the operating system offers no encrypted storage for secrets, so the desk will not store an API key';
  if (backend === 'basic_text') {
    return 'no keyring is running (Electron safeStorage would fall back to "basic_text", which is not encryption), so the desk will not store an API key: start GNOME Keyring or KWallet and try again';
  }
  return null;
}

export const refuseStorage = (problem: string): CoordinatorError => new CoordinatorError('key_storage_refused', problem);

/**
 * What a store holds, told apart. `load()` answers null both when nothing was ever kept and when a
 * kept value cannot be read (the API key is then typed again); a secret that cannot be typed again
 * (the relay's device key) needs to know which.
 */
export type StoredSecret = { kind: 'none' } | { kind: 'text'; text: string } | { kind: 'unreadable'; why: string };

/** A store that tells "nothing kept" from "kept but unreadable", and can keep an unreadable value aside before it is replaced. */
export interface ExaminedSecretStore extends SecretStore {
  /** What is kept, never throwing for a value it cannot read: `why` says, in words, what stands in the way. */
  read(): StoredSecret;
  /**
   * Keeps a copy of what is stored now, as stored (still encrypted), where save() does not write,
   * and says where in words; null when nothing is stored. Never overwrites an earlier copy.
   */
  setAside(): string | null;
}

/**
 * Why a kept value cannot be decrypted now, pure so it is tested without Electron: without encrypted
 * storage (a locked or absent keyring) or on 'basic_text' (no keyring running), what the keychain
 * encrypted cannot be read back.
 */
export function safeStorageReadProblem(encryptionAvailable: boolean, backend: string | null): string | null {
  if (!encryptionAvailable) return "the operating system's encrypted storage is not available to the desk now (the system keyring may be locked, not running, or changed)";
  if (backend === 'basic_text') return 'no system keyring is running (GNOME Keyring or KWallet), and only it can decrypt the stored value';
  return null;
}

/** Web mode: the key lives in this process only and is gone when it stops. */
export class MemorySecretStore implements ExaminedSecretStore {
  readonly description: string = 'web mode keeps the API key in the memory of this desk process only: it is gone when the desk stops, and you type it again';
  readonly persistent = false;
  private key: string | null = null;
  /** Values set aside before they were replaced, oldest first. */
  readonly asides: string[] = [];

  problem(): string | null {
    return null;
  }

  save(key: string): void {
    this.key = key;
  }

  load(): string | null {
    return this.key;
  }

  read(): StoredSecret {
    return this.key === null ? { kind: 'none' } : { kind: 'text', text: this.key };
  }

  setAside(): string | null {
    if (this.key === null) return null;
    this.asides.push(this.key);
    return `copy ${this.asides.length} in this desk process's memory (web mode keeps nothing once the desk stops)`;
  }

  clear(): void {
    this.key = null;
  }
}
