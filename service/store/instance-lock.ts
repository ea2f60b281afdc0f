// One service per SQLite file: a second instance on the same file would write every index beside
// the first (both leaders), so it is refused at start, naming the instance that holds the file.
// The claim is a write lock SQLite itself takes on a small file beside the database
// (`<database>.instance`): an fcntl lock the kernel releases when its process ends, however it
// ends (kill -9 included), so a crashed instance never leaves a stale claim behind. The holder
// writes who it is into that file before it takes the lock, for the refusal to name it.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import BetterSqlite3 from 'better-sqlite3';

export interface InstanceClaim {
  /** The lock file beside the database. */
  readonly path: string;
  release(): void;
}

/** Another instance holds the database: its words name it and the ways out. */
export class InstanceConflict extends Error {}

interface Holder {
  token: string;
  pid: number;
  host: string;
  started_at: string;
  listen: string;
}

const isBusy = (err: unknown): boolean => err instanceof Error && 'code' in err && (err.code === 'SQLITE_BUSY' || err.code === 'SQLITE_LOCKED');

/** `listen` describes where this instance serves ("127.0.0.1:8080"), for a second one's refusal. */
export function claimSqliteInstance(databasePath: string, listen: string): InstanceClaim {
  const path = `${databasePath}.instance`;
  // timeout 0: a held lock is an answer, not something to wait for
  const db = new BetterSqlite3(path, { timeout: 0 });
  const token = randomBytes(8).toString('hex');
  try {
    db.exec('CREATE TABLE IF NOT EXISTS holder (id INTEGER PRIMARY KEY CHECK (id = 1), token TEXT NOT NULL, pid INTEGER NOT NULL, host TEXT NOT NULL, started_at TEXT NOT NULL, listen TEXT NOT NULL)');
    db.prepare('INSERT OR REPLACE INTO holder (id, token, pid, host, started_at, listen) VALUES (1, ?, ?, ?, ?, ?)').run(token, process.pid, hostname(), new Date().toISOString(), listen);
    // Held (RESERVED) for as long as this instance lives: others may still read who holds it.
    db.exec('BEGIN IMMEDIATE');
  } catch (err) {
    if (!isBusy(err)) {
      db.close();
      throw err;
    }
    const holder = db.prepare('SELECT token, pid, host, started_at, listen FROM holder WHERE id = 1').get() as Holder | undefined;
    db.close();
    const who =
      holder === undefined || holder.token === token
        ? 'another instance that started at the same moment'
        : `another instance (pid ${holder.pid} on ${holder.host}, started ${holder.started_at}, listening on ${holder.listen})`;
    throw new InstanceConflict(`${who} already serves the database ${databasePath}: two instances on one SQLite file would both write its indexes. Stop that one first, or give this one a database of its own (several instances share one PostgreSQL database instead)`);
  }
  let released = false;
  return {
    path,
    release() {
      if (released) return;
      released = true;
      db.exec('ROLLBACK');
      db.close();
    },
  };
}
