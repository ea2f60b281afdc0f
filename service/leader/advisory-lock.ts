// Leader election over PostgreSQL advisory locks: one lock per index, held by a dedicated session
// for as long as this instance writes that index. When the process dies, or its session is
// terminated, PostgreSQL releases the lock and another instance's next attempt takes it.
import { createHash } from 'node:crypto';
import pg from 'pg';
import type { Logger } from 'pino';

export interface AdvisoryLockElectionOptions {
  /** PostgreSQL connection string (the service's own database). */
  url: string;
  /** What the lock keys are scoped to: the schema the indexes live in. */
  scope: string;
  /** One lock per name (an index's chain key). */
  names: readonly string[];
  /** Between attempts to take a lock not held, and between liveness checks of the session. */
  retryMs: number;
  log: Logger;
  onChange(name: string, leading: boolean): void;
}

/** The 64-bit advisory lock key of an index: stable across instances and versions. */
export function advisoryLockKey(scope: string, name: string): bigint {
  const digest = createHash('sha256').update(`countersign-index-leader\0${scope}\0${name}`, 'utf8').digest();
  return digest.readBigInt64BE(0);
}

export class AdvisoryLockElection {
  private client: pg.Client | null = null;
  private readonly held = new Set<string>();
  private running = false;
  private timer: NodeJS.Timeout | null = null;
  private ticking: Promise<void> | null = null;
  private lastProblem: string | null = null;
  /** Attempts made so far (a test or an operator can tell "tried and lost" from "not tried yet"). */
  attempts = 0;

  constructor(private readonly o: AdvisoryLockElectionOptions) {}

  leads(name: string): boolean {
    return this.held.has(name);
  }

  /** The backend pid of the session holding the locks (operators can find it in pg_stat_activity). */
  get sessionPid(): number | null {
    return (this.client as (pg.Client & { processID?: number }) | null)?.processID ?? null;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.schedule(0);
  }

  /** Releases every lock (the next instance need not wait for a timeout) and closes the session. */
  async stop(): Promise<void> {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.ticking;
    const client = this.client;
    this.client = null;
    if (client) {
      await client.query('select pg_advisory_unlock_all()').catch(() => undefined);
      await client.end().catch(() => undefined);
    }
    this.dropAll();
  }

  private schedule(delayMs: number): void {
    if (!this.running) return;
    this.timer = setTimeout(() => {
      this.ticking = this.tick().finally(() => {
        this.ticking = null;
        this.schedule(this.o.retryMs);
      });
    }, delayMs);
  }

  private async tick(): Promise<void> {
    try {
      const client = this.client ?? (await this.connect());
      // A session that died quietly (network) shows here; its locks are then gone or going.
      if (this.held.size > 0) await client.query('select 1');
      for (const name of this.o.names) {
        if (this.held.has(name) || !this.running) continue;
        const key = advisoryLockKey(this.o.scope, name).toString();
        const result = await client.query<{ ok: boolean }>('select pg_try_advisory_lock($1::bigint) as ok', [key]);
        if (result.rows[0]?.ok === true && this.client === client) {
          this.held.add(name);
          this.o.log.info({ index: name, pid: this.sessionPid }, 'leader: this instance now runs the indexer');
          this.o.onChange(name, true);
        }
      }
      if (this.lastProblem !== null) this.o.log.info('leader: lock session healthy again');
      this.lastProblem = null;
    } catch (err) {
      this.lost(err instanceof Error ? err.message : String(err));
    } finally {
      this.attempts++;
    }
  }

  private async connect(): Promise<pg.Client> {
    const client = new pg.Client({
      connectionString: this.o.url,
      application_name: 'countersign-leader',
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
      connectionTimeoutMillis: 10_000,
      query_timeout: 10_000,
    });
    // Without a listener a dropped session would crash the process; with it, this instance steps down.
    client.on('error', (err) => {
      if (this.client === client) this.lost(err.message);
    });
    client.on('end', () => {
      if (this.client === client) this.lost('the lock session ended');
    });
    await client.connect();
    this.client = client;
    return client;
  }

  /** The session is gone or in doubt: every lock it held must be taken as lost. */
  private lost(reason: string): void {
    const client = this.client;
    this.client = null;
    if (client) void client.end().catch(() => undefined);
    if (this.held.size > 0 || this.lastProblem !== reason) {
      this.o.log.warn({ err: reason, indexes: [...this.held] }, 'leader: lock session lost; not indexing until a lock is taken again');
    }
    this.lastProblem = reason;
    this.dropAll();
  }

  private dropAll(): void {
    const names = [...this.held];
    this.held.clear();
    for (const name of names) this.o.onChange(name, false);
  }
}
