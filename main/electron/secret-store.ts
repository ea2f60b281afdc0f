// A secret at rest in Electron (the service's API key, a software Ether key): encrypted by
// safeStorage (OS keychain) in a file of its own under userData. Refuses to store when
// safeStorage has no real encryption (see safeStorageProblem).
import { constants, copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { safeStorage } from 'electron';
import { refuseStorage, safeStorageProblem, safeStorageReadProblem, type ExaminedSecretStore, type StoredSecret } from '../core/secrets.ts';

const because = (err: unknown): string => (err instanceof Error ? err.message : String(err));
// getSelectedStorageBackend exists on Linux only; elsewhere the OS keychain is always used.
const backendNow = (): string | null => (process.platform === 'linux' ? safeStorage.getSelectedStorageBackend() : null);

export class SafeSecretStore implements ExaminedSecretStore {
  readonly description = "the desk encrypts it with the operating system's keychain (Electron safeStorage) and never shows it again";
  readonly persistent = true;

  constructor(private readonly file: string) {}

  problem(): string | null {
    return safeStorageProblem(safeStorage.isEncryptionAvailable(), backendNow());
  }

  save(key: string): void {
    const problem = this.problem();
    if (problem) throw refuseStorage(problem);
    mkdirSync(dirname(this.file), { recursive: true, mode: 0o700 });
    writeFileSync(this.file, safeStorage.encryptString(key), { mode: 0o600 });
  }

  load(): string | null {
    // Nothing kept or unreadable alike (another user's or machine's keychain): the key is typed again.
    const stored = this.read();
    return stored.kind === 'text' ? stored.text : null;
  }

  read(): StoredSecret {
    if (!existsSync(this.file)) return { kind: 'none' };
    const problem = safeStorageReadProblem(safeStorage.isEncryptionAvailable(), backendNow());
    if (problem) return { kind: 'unreadable', why: problem };
    let bytes: Buffer;
    try {
      bytes = readFileSync(this.file);
    } catch (err) {
      return { kind: 'unreadable', why: `the file ${this.file} could not be read (${because(err)})` };
    }
    try {
      return { kind: 'text', text: safeStorage.decryptString(bytes) };
    } catch (err) {
      return { kind: 'unreadable', why: `the system keyring could not decrypt ${this.file}: the keyring was changed or reset since it was written, or the file came from another user or computer, or it is damaged (${because(err)})` };
    }
  }

  setAside(): string | null {
    if (!existsSync(this.file)) return null;
    // A name of its own per moment, and COPYFILE_EXCL: an earlier copy is never overwritten.
    const aside = `${this.file.replace(/\.bin$/, '')}.unreadable-${new Date().toISOString().replace(/[:.]/g, '-')}.bin`;
    copyFileSync(this.file, aside, constants.COPYFILE_EXCL);
    return aside;
  }

  clear(): void {
    rmSync(this.file, { force: true });
  }
}
