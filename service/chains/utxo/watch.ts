// Watch mode of the node backend: the same index, holding only the scripts of registered wallets,
// from their birthdays. The wallets' descriptors are parsed and their scripts derived by shared/
// (the desk's own code); the service derives up to the gap limit itself and further as addresses
// get used. Blocks come through the node's BIP158 filters when it has them (only matching blocks
// are fetched); a finished scan is checked against the node's scantxoutset.
import type { Kysely, Transaction } from 'kysely';
import { scriptToAddress } from '../../../shared/coins/address.ts';
import { bytesToHex } from '../../../shared/coins/bytes.ts';
import type { ChainParams } from '../../../shared/coins/coin-table.ts';
import { deriveAddress } from '../../../shared/coins/multisig-address.ts';
import { vaultAddress, type VaultPolicy } from '../../../shared/coins/vault-policy.ts';
import { parseMultisigDescriptor, type MultisigDescriptor } from '../../../shared/files/descriptor.ts';
import { parseVaultDescriptor } from '../../../shared/files/miniscript-descriptor.ts';
import { ApiError } from '../../errors.ts';
import type { Database } from '../../store/schema.ts';
import { toNumber } from '../../store/database.ts';
import { bumpWatchGeneration } from '../../store/watch-generations.ts';

export const DEFAULT_GAP_LIMIT = 20;
const MAX_GAP_LIMIT = 1_000;

export interface WatchRegistration {
  descriptors: string[];
  /** null: from genesis */
  birthdayHeight: number | null;
  gapLimit: number;
  /** The highest index of each branch the wallet's owner has shown or asks about (-1: none): watched, with the gap past it. */
  shown?: Shown;
}

/** The highest index of the receive and change branches a wallet's owner has shown (-1: none). */
export interface Shown {
  receive: number;
  change: number;
}

/**
 * How many addresses of a branch are watched: the gap limit past the highest index that is used or
 * that the owner has shown, whichever is higher (-1: none). The one rule of the window, for the
 * registration, the owner's extension and the derivation as addresses get used.
 */
export const windowEnd = (used: number, shown: number, gapLimit: number): number => Math.max(used, shown) + 1 + gapLimit;

/**
 * Whether a wallet's blocks from `from` are read by a scan of its own (watch-scans.ts) rather than
 * by the index following the tip: whenever the index holds blocks from there (or holds none yet),
 * so reading them again never takes the other wallets' answers away.
 */
export const scanApart = (from: number, indexedHeight: number | null | undefined): boolean => indexedHeight !== undefined && (indexedHeight === null || from <= indexedHeight);

export interface WatchStatus {
  birthday_height: number | null;
  scanned_height: number | null;
  tip_height: number | null;
  blocks_checked: number;
  blocks_matched: number;
  blocks_fetched: number;
  filters: boolean;
  pruned: boolean;
  history_from: number | null;
  /** history_from in words: what is not available and why; null when nothing is missing. */
  history_limit: string | null;
  /** How many addresses of each branch are watched (indexes 0 to n - 1). */
  watched: { receive: number; change: number };
  /** Which scan of the wallet this is (1 from its registration); scanned_height never goes back within one. */
  scan: number;
  /** Where the pending scan reads from; null: none pending, the wallet follows the tip. */
  scan_from: number | null;
  state: 'scanning' | 'ready' | 'error';
  error?: string;
}

/** The registration API as the use cases see it (chains/backend.ts: UtxoBackend.watch). */
export interface WalletWatch {
  register(owner: string, walletId: string, registration: WatchRegistration): Promise<WatchStatus>;
  status(owner: string, walletId: string): Promise<WatchStatus | null>;
  rescan(owner: string, walletId: string, fromHeight: number): Promise<WatchStatus | null>;
  /** Watches the addresses the owner has shown, and the gap past them; reads the blocks again only when that derives new ones. */
  extend(owner: string, walletId: string, shown: Shown): Promise<WatchStatus | null>;
}

/** A wallet's scan once checked against the node's scantxoutset at an index height: null error, it agreed. */
export interface Checked {
  height: number;
  error: string | null;
}

/** A watched script, the API keys and the wallets (WatchList.keyOf) it was derived for. */
interface Watched {
  script: Uint8Array;
  owners: Set<string>;
  wallets: Set<string>;
}

function addWatched(watched: Map<string, Watched>, script: Uint8Array, owner: string, wallet: string): void {
  const hex = bytesToHex(script);
  const entry = watched.get(hex);
  if (entry) {
    entry.owners.add(owner);
    entry.wallets.add(wallet);
  } else watched.set(hex, { script, owners: new Set([owner]), wallets: new Set([wallet]) });
}

/** A wallet's key set, whatever descriptors named it: receive (0) and change (1) branches. */
export interface WatchedWallet {
  owner: string;
  walletId: string;
  descriptors: string[];
  birthdayHeight: number | null;
  gapLimit: number;
  derived: [number, number];
  rescanFrom: number | null;
  /**
   * Where the wallet's pending scan reads from; null: its rows in the index are complete and it
   * follows the tip. A wallet with one answers 503 for its addresses (watch-scans.ts).
   */
  scanFrom: number | null;
  /** Its scans so far: each registration and rescan starts a new one. */
  scanNumber: number;
  keys: WatchedKeys;
  branches: (0 | 1)[];
}

/** An M-of-N wallet's keys, or a miniscript vault's policy (issue 27: recovery paths). */
export type WatchedKeys = MultisigDescriptor | { vault: VaultPolicy };

/** A vault descriptor: wsh(<miniscript>) other than wsh(multi/sortedmulti). */
const isVaultDescriptor = (d: string) => /^wsh\((?!(sorted)?multi\()/.test(d.trim());

/** Parses a registration's descriptors into one key set, or refuses in words (400). */
export function walletKeys(descriptors: readonly string[]): { keys: WatchedKeys; branches: (0 | 1)[] } {
  if (descriptors.length === 0 || descriptors.length > 2) throw new ApiError(400, 'descriptors: give one multipath descriptor (.../<0;1>/*) or two (receive .../0/* and change .../1/*)');
  if (descriptors.some(isVaultDescriptor)) {
    if (descriptors.length !== 1) throw new ApiError(400, 'descriptors: a vault (wsh miniscript) is registered with its one multipath descriptor, keys .../<0;1>/*');
    try {
      return { keys: { vault: parseVaultDescriptor(descriptors[0]!).policy }, branches: [0, 1] };
    } catch (err) {
      throw new ApiError(400, `descriptors[0]: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  const parsed = descriptors.map((d, i) => {
    try {
      return parseMultisigDescriptor(d.trim());
    } catch (err) {
      throw new ApiError(400, `descriptors[${i}]: ${err instanceof Error ? err.message : String(err)}`);
    }
  });
  const first = parsed[0]!;
  const sameKeys = (d: MultisigDescriptor) =>
    d.m === first.m && d.scriptType === first.scriptType && d.sortKeys === first.sortKeys && d.keys.length === first.keys.length && d.keys.every((k, i) => k.xpub === first.keys[i]!.xpub);
  parsed.forEach((d, i) => {
    if (!sameKeys(d)) throw new ApiError(400, `descriptors[${i}] names other keys or another script than descriptors[0]: one registration is one wallet`);
  });
  const branches = new Set<0 | 1>();
  for (const d of parsed) {
    if (d.branches === '/<0;1>/*' || d.branches === '/**') branches.add(0).add(1);
    else branches.add(d.branches === '/0/*' ? 0 : 1);
  }
  return { keys: first, branches: [...branches].sort() };
}

/** The scriptPubKeys of a wallet's branch at indexes [from, to). */
export function deriveScripts(params: ChainParams, keys: WatchedKeys, branch: 0 | 1, from: number, to: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  if ('vault' in keys) {
    for (let i = from; i < to; i++) out.push(vaultAddress(params, keys.vault, branch === 1, i).scriptPubKey);
    return out;
  }
  const xpubs = keys.keys.map((k) => k.xpub);
  for (let i = from; i < to; i++) out.push(deriveAddress(params, keys.m, xpubs, branch === 1, i, { scriptType: keys.scriptType, sortKeys: keys.sortKeys }).scriptPubKey);
  return out;
}

/**
 * Each branch's descriptor for scantxoutset (litecoind 0.21 reads no multipath): the node's own
 * reading of a multisig descriptor, an oracle for tests and the bench. The service itself asks the
 * node about the derived scripts as raw() (watch-scan.ts: nodeUnspent), which reads every wallet kind.
 */
export function scanDescriptors(descriptors: readonly string[]): string[] {
  return descriptors.flatMap((d) => {
    const bare = d.trim().replace(/#[a-z0-9]{8}$/, '');
    return bare.includes('/<0;1>/*') ? [bare.replaceAll('/<0;1>/*', '/0/*'), bare.replaceAll('/<0;1>/*', '/1/*')] : [bare];
  });
}

/**
 * The registered wallets of one chain and their derived scripts, in the store and in memory. The
 * store is the truth: instances sharing it (service/leader) each keep a copy, reloaded when the
 * chain's generation (bumped by every change, 0006) differs from the one the copy was read at.
 */
export class WatchList {
  private wallets = new Map<string, WatchedWallet>();
  /** Each watched script (hex), the owners (API keys) and the wallets (key()) it was derived from. */
  private watched = new Map<string, Watched>();
  /** The store's generation this copy reflects; null: not loaded yet, or changed behind it. */
  private generation: bigint | null = null;
  private readonly derivedScripts = new Map<string, { wallet: WatchedWallet; scripts: Uint8Array[] }>();

  constructor(
    private readonly db: Kysely<Database>,
    readonly chain: string,
    private readonly params: ChainParams,
  ) {}

  private static key(owner: string, walletId: string): string {
    return `${owner}\u0000${walletId}`;
  }

  private async storedGeneration(): Promise<bigint> {
    const row = await this.db.selectFrom('watch_generations').select('generation').where('chain', '=', this.chain).executeTakeFirst();
    return row ? BigInt(row.generation) : 0n;
  }

  /** Brings the copy up to the store: one small read when nothing changed, else a reload. */
  async load(): Promise<void> {
    // The generation is read first: a change landing during the reload leaves it behind, so the
    // next load reads again rather than keeping a copy older than the generation it claims.
    const generation = await this.storedGeneration();
    if (generation === this.generation) return;
    const rows = await this.db.selectFrom('watch_wallets').selectAll().where('chain', '=', this.chain).execute();
    const wallets = new Map<string, WatchedWallet>();
    for (const r of rows) {
      const descriptors = JSON.parse(r.descriptors) as string[];
      const { keys, branches } = walletKeys(descriptors);
      const w: WatchedWallet = {
        owner: r.owner,
        walletId: r.wallet_id,
        descriptors,
        birthdayHeight: r.birthday_height === null ? null : toNumber(r.birthday_height),
        gapLimit: toNumber(r.gap_limit),
        derived: [toNumber(r.receive_derived), toNumber(r.change_derived)],
        rescanFrom: r.rescan_from === null ? null : toNumber(r.rescan_from),
        scanFrom: r.scan_from === null || r.scan_from === undefined ? null : toNumber(r.scan_from),
        scanNumber: toNumber(r.scan_number ?? 0),
        keys,
        branches,
      };
      wallets.set(WatchList.key(w.owner, w.walletId), w);
    }
    const watched = new Map<string, Watched>();
    for (const s of await this.db.selectFrom('watch_scripts').select(['script', 'owner', 'wallet_id']).where('chain', '=', this.chain).execute()) {
      addWatched(watched, new Uint8Array(s.script), s.owner, WatchList.key(s.owner, s.wallet_id));
    }
    this.wallets = wallets;
    this.watched = watched;
    this.generation = generation;
  }

  /**
   * Bumps the chain's generation inside a write's transaction. The copy stays current only when it
   * was current before (this write is then the only change, and is applied to it by the caller).
   */
  private async bump(trx: Transaction<Database>): Promise<void> {
    const before = await bumpWatchGeneration(trx, this.chain);
    this.generation = this.generation === before ? before + 1n : null;
  }

  scripts(): Uint8Array[] {
    return [...this.watched.values()].map((e) => e.script);
  }

  /** Whether the script is watched; with `owner`, whether it is of a wallet that owner registered. */
  has(script: Uint8Array, owner?: string): boolean {
    const entry = this.watched.get(bytesToHex(script));
    return entry !== undefined && (owner === undefined || entry.owners.has(owner));
  }

  /**
   * A wallet of `owner` holding one of these scripts whose scan is pending, where no wallet that
   * follows the tip holds that script too (its rows are complete then); undefined: none.
   */
  scanningWalletOf(scripts: readonly Uint8Array[], owner: string): WatchedWallet | undefined {
    for (const script of scripts) {
      const entry = this.watched.get(bytesToHex(script));
      if (!entry) continue;
      const holders = [...entry.wallets].map((k) => this.wallets.get(k)).filter((w) => w !== undefined);
      if (holders.some((w) => w.scanFrom === null)) continue;
      const mine = holders.find((w) => w.owner === owner);
      if (mine) return mine;
    }
    return undefined;
  }

  get size(): number {
    return this.wallets.size;
  }

  wallet(owner: string, walletId: string): WatchedWallet | undefined {
    return this.wallets.get(WatchList.key(owner, walletId));
  }

  all(): WatchedWallet[] {
    return [...this.wallets.values()];
  }

  /**
   * Adds or replaces a registration; derives its scripts to the gap limit past the highest shown
   * index. `indexedHeight`: the index's tip; a wallet whose blocks it holds already is scanned apart
   * (scanFrom set) so the other wallets keep answering. Undefined: no scans apart (an indexer
   * without watch-scans.ts reads the blocks again itself).
   */
  async register(owner: string, walletId: string, r: WatchRegistration, indexedHeight?: number | null): Promise<WatchedWallet> {
    if (!Number.isInteger(r.gapLimit) || r.gapLimit < 1 || r.gapLimit > MAX_GAP_LIMIT) throw new ApiError(400, `gap_limit must be a whole number from 1 to ${MAX_GAP_LIMIT}`);
    const { keys, branches } = walletKeys(r.descriptors);
    const from = r.birthdayHeight ?? 0;
    const scanFrom = scanApart(from, indexedHeight) ? from : null;
    const w: WatchedWallet = { owner, walletId, descriptors: r.descriptors, birthdayHeight: r.birthdayHeight, gapLimit: r.gapLimit, derived: [0, 0], rescanFrom: from, scanFrom, scanNumber: 1, keys, branches };
    const ends: [number, number] = [windowEnd(-1, r.shown?.receive ?? -1, r.gapLimit), windowEnd(-1, r.shown?.change ?? -1, r.gapLimit)];
    const derived = branches.map((branch) => ({ branch, scripts: deriveScripts(this.params, keys, branch, 0, ends[branch]) }));
    // One transaction: a process killed midway leaves the old registration or the whole new one.
    await this.db.transaction().execute(async (trx) => {
      const before = await trx.selectFrom('watch_wallets').select('scan_number').where('chain', '=', this.chain).where('owner', '=', owner).where('wallet_id', '=', walletId).executeTakeFirst();
      w.scanNumber = toNumber(before?.scan_number ?? 0) + 1;
      await trx.deleteFrom('watch_scripts').where('chain', '=', this.chain).where('owner', '=', owner).where('wallet_id', '=', walletId).execute();
      await trx.deleteFrom('watch_wallets').where('chain', '=', this.chain).where('owner', '=', owner).where('wallet_id', '=', walletId).execute();
      await trx
        .insertInto('watch_wallets')
        // The derived counts as derived here: a copy read back from the store (another instance, a
        // restart) must not derive them again and read the blocks once more for nothing.
        .values({
          chain: this.chain,
          owner,
          wallet_id: walletId,
          descriptors: JSON.stringify(r.descriptors),
          birthday_height: r.birthdayHeight,
          gap_limit: r.gapLimit,
          receive_derived: branches.includes(0) ? ends[0] : 0,
          change_derived: branches.includes(1) ? ends[1] : 0,
          rescan_from: from,
          scan_from: scanFrom,
          scan_number: w.scanNumber,
        })
        .execute();
      for (const d of derived) await this.insertScripts(trx, w, d.branch, 0, d.scripts);
      await this.bump(trx);
    });
    // The replaced registration's scripts (a replacement may name other keys) come from the store.
    this.generation = null;
    await this.load();
    return this.wallet(owner, walletId) ?? w;
  }

  private async insertScripts(trx: Transaction<Database>, w: WatchedWallet, branch: 0 | 1, from: number, scripts: readonly Uint8Array[]): Promise<void> {
    const rows = scripts.map((script, i) => ({ chain: this.chain, script: Buffer.from(script), owner: w.owner, wallet_id: w.walletId, branch, idx: from + i }));
    for (let i = 0; i < rows.length; i += 100) await trx.insertInto('watch_scripts').values(rows.slice(i, i + 100)).onConflict((oc) => oc.doNothing()).execute();
  }

  /**
   * The lowest height the blocks of a wallet following the tip must be read again from (scripts
   * above the index's tip: nothing to read again but the mempool); null: none. A wallet scanned
   * apart (scanFrom) is read by its own scan.
   */
  pendingRescan(): number | null {
    let from: number | null = null;
    for (const w of this.wallets.values()) if (w.rescanFrom !== null && w.scanFrom === null) from = Math.min(from ?? Infinity, w.rescanFrom);
    return from;
  }

  /** The wallets whose scan is pending: their rows in the index are not complete (503 for their addresses). */
  scanning(): WatchedWallet[] {
    return this.all().filter((w) => w.scanFrom !== null);
  }

  /**
   * Asks for the wallet's blocks from `from` on to be read again (kept across restarts): a new scan
   * of the wallet, apart from the others when the index holds those blocks already.
   */
  async markRescan(w: WatchedWallet, from: number, indexedHeight?: number | null): Promise<void> {
    const at = Math.min(w.rescanFrom ?? from, from);
    const scanFrom = scanApart(at, indexedHeight) ? Math.min(w.scanFrom ?? at, at) : w.scanFrom;
    const scanNumber = w.scanNumber + 1;
    // A rescan from before the birthday says the wallet may be older than registered: the birthday
    // moves there, or the scan would start at the old birthday (the lowest one) again.
    const birthday = w.birthdayHeight !== null && from < w.birthdayHeight ? from : w.birthdayHeight;
    await this.db.transaction().execute(async (trx) => {
      await trx
        .updateTable('watch_wallets')
        .set({ rescan_from: at, birthday_height: birthday, scan_from: scanFrom, scan_number: scanNumber, checked_height: null, check_error: null })
        .where('chain', '=', this.chain)
        .where('owner', '=', w.owner)
        .where('wallet_id', '=', w.walletId)
        .execute();
      await this.bump(trx);
    });
    w.rescanFrom = at;
    w.birthdayHeight = birthday;
    w.scanFrom = scanFrom;
    w.scanNumber = scanNumber;
    this.keepIfCurrent(w);
  }

  /** A write applied to a wallet object the copy no longer holds (reloaded meanwhile): reload again. */
  private keepIfCurrent(w: WatchedWallet): void {
    if (this.wallets.get(WatchList.key(w.owner, w.walletId)) !== w) this.generation = null;
  }

  /**
   * The index was rolled back below `height`: the rescans from there on are under way. Only
   * those: another instance may have asked for a lower one meanwhile (it stays pending). The
   * copy is then brought up to the store, so the blocks read next are read for every script.
   */
  async rescansTaken(height: number): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx.updateTable('watch_wallets').set({ rescan_from: null }).where('chain', '=', this.chain).where('rescan_from', '>=', height).execute();
      await this.bump(trx);
    });
    for (const w of this.wallets.values()) if (w.rescanFrom !== null && w.rescanFrom >= height) w.rescanFrom = null;
    await this.load();
  }

  /**
   * Derives a branch's scripts up to index `count` (exclusive) and asks for the wallet's blocks to
   * be read again from `readFrom` (default its birthday), in one transaction: a new scan apart when
   * the index (tip `indexedHeight`) holds blocks from there (a scan under way read them without
   * these scripts too). `scripts`: those scripts, when the caller derived them already. `readFrom` null: the caller reads the blocks again itself (a scan's own gap).
   */
  async deriveTo(w: WatchedWallet, branch: 0 | 1, count: number, indexedHeight?: number | null, derived?: readonly Uint8Array[], readFrom?: number | null): Promise<void> {
    const from = w.derived[branch];
    if (count <= from) return;
    const scripts = derived?.length === count - from ? [...derived] : deriveScripts(this.params, w.keys, branch, from, count);
    const read = readFrom === null ? null : (readFrom ?? w.birthdayHeight ?? 0);
    const rescanFrom = read === null ? w.rescanFrom : Math.min(w.rescanFrom ?? Infinity, read);
    // Blocks above the index's tip concern nobody yet: only new scripts found in held blocks start a scan.
    const newScan = read !== null && scanApart(read, indexedHeight);
    const scanFrom = newScan ? Math.min(w.scanFrom ?? read, read) : w.scanFrom;
    const scanNumber = newScan ? w.scanNumber + 1 : w.scanNumber;
    await this.db.transaction().execute(async (trx) => {
      await this.insertScripts(trx, w, branch, from, scripts);
      await trx
        .updateTable('watch_wallets')
        .set({
          ...(branch === 0 ? { receive_derived: count } : { change_derived: count }),
          rescan_from: rescanFrom,
          scan_from: scanFrom,
          scan_number: scanNumber,
          ...(newScan ? { checked_height: null, check_error: null } : {}),
        })
        .where('chain', '=', this.chain)
        .where('owner', '=', w.owner)
        .where('wallet_id', '=', w.walletId)
        .execute();
      await this.bump(trx);
    });
    w.derived[branch] = count;
    w.rescanFrom = rescanFrom;
    w.scanFrom = scanFrom;
    w.scanNumber = scanNumber;
    for (const s of scripts) addWatched(this.watched, s, w.owner, WatchList.key(w.owner, w.walletId));
    this.keepIfCurrent(w);
  }

  /** Each wallet's last check against the node's UTXO set (kept in the store: the leader checks, every instance reports). */
  async checks(): Promise<Map<string, Checked>> {
    const rows = await this.db.selectFrom('watch_wallets').select(['owner', 'wallet_id', 'checked_height', 'check_error']).where('chain', '=', this.chain).where('checked_height', 'is not', null).execute();
    return new Map(rows.map((r) => [WatchList.key(r.owner, r.wallet_id), { height: toNumber(r.checked_height!), error: r.check_error ?? null }]));
  }

  async check(owner: string, walletId: string): Promise<Checked | undefined> {
    return (await this.checks()).get(WatchList.key(owner, walletId));
  }

  async setChecked(w: WatchedWallet, checked: Checked): Promise<void> {
    await this.db
      .updateTable('watch_wallets')
      .set({ checked_height: checked.height, check_error: checked.error })
      .where('chain', '=', this.chain)
      .where('owner', '=', w.owner)
      .where('wallet_id', '=', w.walletId)
      .execute();
  }

  /**
   * The scans of these wallets (by key, at these scan numbers) are in the index now, swapped in
   * inside `trx` (watch-scans.ts): those that were scanning follow the tip, and are checked against
   * the node anew. A wallet rescanned meanwhile (another scan number) keeps its pending scan.
   */
  async scansDone(trx: Transaction<Database>, done: ReadonlyMap<string, number>): Promise<void> {
    for (const w of this.wallets.values()) {
      const number = done.get(WatchList.key(w.owner, w.walletId));
      if (number === undefined) continue;
      await trx
        .updateTable('watch_wallets')
        .set({ scan_from: null, rescan_from: null, checked_height: null, check_error: null })
        .where('chain', '=', this.chain)
        .where('owner', '=', w.owner)
        .where('wallet_id', '=', w.walletId)
        .where('scan_number', '=', number)
        // A wallet that followed the tip keeps its check: the scan read its blocks to the same rows.
        .where('scan_from', 'is not', null)
        .execute();
    }
    await this.bump(trx);
    this.generation = null; // read back: which scans were done is the store's answer
  }

  /** The wallet's key among the list's (for the scans' snapshots). */
  static keyOf(w: Pick<WatchedWallet, 'owner' | 'walletId'>): string {
    return WatchList.key(w.owner, w.walletId);
  }

  /**
   * The derived scripts of a wallet's branch, index order: derived once and kept (a vault's
   * derivation is many key derivations per address), extended as the branch is.
   */
  branchScripts(w: WatchedWallet, branch: 0 | 1): Uint8Array[] {
    const key = `${WatchList.key(w.owner, w.walletId)}\u0000${branch}`;
    let held = this.derivedScripts.get(key);
    // Kept per registration: a new one (other keys) is a new object.
    if (held?.wallet !== w || held.scripts.length > w.derived[branch]) this.derivedScripts.set(key, (held = { wallet: w, scripts: [] }));
    if (held.scripts.length < w.derived[branch]) held.scripts.push(...deriveScripts(this.params, w.keys, branch, held.scripts.length, w.derived[branch]));
    return held.scripts.slice();
  }

  /**
   * Words for a script no wallet of the asking key holds (watch mode answers no address it does not
   * hold). The same words whether nobody registered it or another key did: the answer does not
   * tell one key about another's wallets.
   */
  notWatched(script: Uint8Array, owner?: string): ApiError {
    const address = scriptToAddress(this.params, script) ?? bytesToHex(script);
    const forKey = owner ? ' for this API key' : '';
    return new ApiError(
      404,
      `address ${address} belongs to no wallet this service watches${forKey}: ${this.params.coin} runs the watch index, which holds only registered wallets and answers each API key for its own; register the wallet's descriptors with PUT /watch/${this.params.coin}/{wallet_id}`,
    );
  }
}
