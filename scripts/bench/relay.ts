// `npm run bench -- --relay [--stores sqlite,postgres] [--rooms 100] [--messages 1000] [--concurrent 10]`: the relay
// under load (issue 35). Rooms of a treasurer and a co-signer; every message is a signing request's
// worth of sealed content (4 KiB of text, 8 KiB padded), sent as the room's next while its reader
// long-polls. Prints the post latency, the delivery latency (post to the long poll's answer), and
// the store's growth per message. Exits 0 whatever the figures.
import { performance } from 'node:perf_hooks';
import { randomBytes } from 'node:crypto';
import { statSync } from 'node:fs';
import { sql } from 'kysely';
import { sendToRoom, syncRoom } from '../../shared/relay/session.ts';
import { admit, type Desk, invite, joinRoom, openRoom, startRelayService } from '../../dev/relay-testing/relay-kit.ts';
import type { SqlStoreKind } from '../../service/store/test-stores.ts';
import { machineLine } from './machine.ts';

interface Options {
  stores: SqlStoreKind[];
  rooms: number;
  messages: number;
  /** Rooms sending at the same moment. */
  concurrent: number;
}

function parse(argv: readonly string[]): Options {
  const value = (name: string) => {
    const i = argv.indexOf(`--${name}`);
    return i < 0 ? undefined : argv[i + 1];
  };
  const n = (name: string, fallback: number) => {
    const v = value(name);
    const x = v === undefined ? fallback : Number(v);
    if (!Number.isSafeInteger(x) || x <= 0) throw new Error(`--${name} must be a whole number > 0`);
    return x;
  };
  const stores = (value('stores') ?? 'sqlite,postgres').split(',') as SqlStoreKind[];
  if (stores.some((s) => s !== 'sqlite' && s !== 'postgres')) throw new Error('--stores takes sqlite, postgres');
  return { stores, rooms: n('rooms', 100), messages: n('messages', 1000), concurrent: n('concurrent', 10) };
}

const pct = (sorted: readonly number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
const ms = (x: number) => `${x.toFixed(1)} ms`;

async function one(kind: SqlStoreKind, o: Options): Promise<void> {
  const svc = await startRelayService(kind);
  try {
    const c = svc.client();
    const pairs: { owner: Desk; member: Desk }[] = [];
    const setUpStart = performance.now();
    for (let i = 0; i < o.rooms; i++) {
      let owner = await openRoom(c, `Treasurer ${i}`);
      const inv = await invite(c, owner);
      const member = await joinRoom(c, inv.code, `Co-signer ${i}`);
      owner = await admit(c, owner, [inv]);
      member.view = (await syncRoom(c, member.view, member.keys)).view;
      pairs.push({ owner, member });
    }
    const setUpMs = performance.now() - setUpStart;
    const sizeBefore = await storeBytes(svc, kind);
    const text = randomBytes(2048).toString('hex'); // 4 KiB: a two-input signing request's size
    const posts: number[] = [];
    const deliveries: number[] = [];
    const perRoom = Math.ceil(o.messages / o.rooms);
    let sent = 0;
    const t0 = performance.now();
    const cpu0 = process.cpuUsage();
    // `concurrent` rooms at a time (each its own sequence): its co-signer long-polls while its
    // treasurer sends, perRoom times. Clients and service share this process and its core.
    let next = 0;
    const worker = async () => {
      for (let r = next++; r < pairs.length; r = next++) {
        const pair = pairs[r]!;
        for (let k = 0; k < perRoom && sent < o.messages; k++) {
          sent++;
          const waiting = syncRoom(c, pair.member.view, pair.member.keys, 20);
          const start = performance.now();
          pair.owner.view = (await sendToRoom(c, pair.owner.view, pair.owner.keys, { kind: 'signing-request', payment: `p${r}-${k}`, text })).view;
          posts.push(performance.now() - start);
          const got = await waiting;
          deliveries.push(performance.now() - start);
          pair.member.view = got.view;
        }
      }
    };
    await Promise.all(Array.from({ length: o.concurrent }, worker));
    const wall = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    const load = (await import('node:os')).loadavg()[0]!;
    const sizeAfter = await storeBytes(svc, kind);
    posts.sort((a, b) => a - b);
    deliveries.sort((a, b) => a - b);
    console.log(`relay on ${kind}: ${o.rooms} rooms (set up in ${(setUpMs / 1000).toFixed(1)} s), ${posts.length} messages of 4 KiB (8 KiB sealed) in ${(wall / 1000).toFixed(1)} s = ${((posts.length / wall) * 1000).toFixed(0)} messages/s, ${o.concurrent} rooms at a time; clients and service in one process`);
    // CPU per message (both desks' sealing, opening and verifying, and the service's checks and
    // store), which the host's other load does not inflate as it does the latencies.
    console.log(`  CPU: ${((cpu.user + cpu.system) / 1000 / posts.length).toFixed(1)} ms a message, sender, service and reader together (host load average ${load.toFixed(1)} on ${(await import('node:os')).cpus().length} cores during the run)`);
    console.log(`  post (seal + send + chain check): p50 ${ms(pct(posts, 50))}, p95 ${ms(pct(posts, 95))}, max ${ms(posts.at(-1)!)}`);
    console.log(`  delivery (post to the long poll's answer, opened and verified): p50 ${ms(pct(deliveries, 50))}, p95 ${ms(pct(deliveries, 95))}, max ${ms(deliveries.at(-1)!)}`);
    console.log(`  store: ${((sizeAfter - sizeBefore) / 1024 / 1024).toFixed(1)} MiB for ${posts.length} messages = ${((sizeAfter - sizeBefore) / posts.length / 1024).toFixed(1)} KiB a message (${(sizeAfter / 1024 / 1024).toFixed(1)} MiB in all)`);
  } finally {
    await svc.dispose();
  }
}

async function storeBytes(svc: Awaited<ReturnType<typeof startRelayService>>, kind: SqlStoreKind): Promise<number> {
  const db = svc.service.store.db;
  if (kind === 'sqlite') {
    await sql`pragma wal_checkpoint(TRUNCATE)`.execute(db);
    return statSync(svc.service.store.sqlitePath!).size;
  }
  const r = await sql<{ bytes: string }>`select sum(pg_total_relation_size(quote_ident(table_schema) || '.' || quote_ident(table_name)))::text as bytes from information_schema.tables where table_schema = current_schema() and table_name like 'relay_%'`.execute(db);
  return Number(r.rows[0]?.bytes ?? 0);
}

export async function runRelayBench(argv: readonly string[]): Promise<number> {
  const o = parse(argv);
  console.log(machineLine());
  for (const kind of o.stores) await one(kind, o);
  return 0;
}
