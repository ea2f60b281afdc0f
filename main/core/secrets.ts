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

/** Web mode: the key lives in this process only and is gone when it stops. */
export class MemorySecretStore implements SecretStore {
  readonly description: string = 'web mode keeps the API key in the memory of this desk process only: it is gone when the desk stops, and you type it again';
  readonly persistent = false;
  private key: string | null = null;

  problem(): string | null {
    return null;
  }

  save(key: string): void {
    this.key = key;
  }

  load(): string | null {
    return this.key;
  }

  clear(): void {
    this.key = null;
  }
}
