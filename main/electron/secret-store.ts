// A secret at rest in Electron (the service's API key, a software Ether key): encrypted by
// safeStorage (OS keychain) in a file of its own under userData. Refuses to store when
// safeStorage has no real encryption (see safeStorageProblem).
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { safeStorage } from 'electron';
import { refuseStorage, safeStorageProblem, type SecretStore } from '../core/secrets.ts';

export class SafeSecretStore implements SecretStore {
  readonly description = "the desk encrypts it with the operating system's keychain (Electron safeStorage) and never shows it again";
  readonly persistent = true;

  constructor(private readonly file: string) {}

  problem(): string | null {
    // getSelectedStorageBackend exists on Linux only; elsewhere the OS keychain is always used.
    const backend = process.platform === 'linux' ? safeStorage.getSelectedStorageBackend() : null;
    return safeStorageProblem(safeStorage.isEncryptionAvailable(), backend);
  }

  save(key: string): void {
    const problem = this.problem();
    if (problem) throw refuseStorage(problem);
    mkdirSync(dirname(this.file), { recursive: true, mode: 0o700 });
    writeFileSync(this.file, safeStorage.encryptString(key), { mode: 0o600 });
  }

  load(): string | null {
    if (!existsSync(this.file) || this.problem()) return null;
    try {
      return safeStorage.decryptString(readFileSync(this.file));
    } catch {
      // Another user's or machine's keychain: the treasurer enters the key again.
      return null;
    }
  }

  clear(): void {
    rmSync(this.file, { force: true });
  }
}
