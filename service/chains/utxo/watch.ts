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

export const DEFAULT_GAP_LIMIT = 20;
const MAX_GAP_LIMIT = 1_000;

export interface WatchRegistration {
  descriptors: string[];
  /** null: from genesis */
  birthdayHeight: number | null;
  gapLimit: number;
}

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
  state: 'scanning' | 'ready' | 'error';
  error?: string;
}

/** The registration API as the use cases see it (chains/backend.ts: UtxoBackend.watch). */
export interface WalletWatch {
  register(owner: string, walletId: string, registration: WatchRegistration): Promise<WatchStatus>;
  status(owner: string, walletId: string): Promise<WatchStatus | null>;
  rescan(owner: string, walletId: string, fromHeight: number): Promise<WatchStatus | null>;
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

/** The registered wallets of one chain and their derived scripts, in the store and in memory. */
export class WatchList {
  private readonly wallets = new Map<string, WatchedWallet>();
  private readonly watched = new Map<string, Uint8Array>();
  private readonly derivedScripts = new Map<string, { wallet: WatchedWallet; scripts: Uint8Array[] }>();
  private loaded = false;

  constructor(
    private readonly db: Kysely<Database>,
    readonly chain: string,
    private readonly params: ChainParams,
  ) {}

  private static key(owner: string, walletId: string): string {
    return `${owner}\u0000${walletId}`;
  }

  async load(): Promise<void> {
    if (this.loaded) return;
    const rows = await this.db.selectFrom('watch_wallets').selectAll().where('chain', '=', this.chain).execute();
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
        keys,
        branches,
      };
      this.wallets.set(WatchList.key(w.owner, w.walletId), w);
    }
    const scripts = await this.db.selectFrom('watch_scripts').select('script').where('chain', '=', this.chain).execute();
    for (const s of scripts) this.watched.set(bytesToHex(s.script), new Uint8Array(s.script));
    this.loaded = true;
  }

  scripts(): Uint8Array[] {
    return [...this.watched.values()];
  }

  has(script: Uint8Array): boolean {
    return this.watched.has(bytesToHex(script));
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

  /** The lowest birthday of all wallets (0 for one from genesis); null: none registered. */
  startHeight(): number | null {
    let start: number | null = null;
    for (const w of this.wallets.values()) start = Math.min(start ?? Infinity, w.birthdayHeight ?? 0);
    return start;
  }

  /** Adds or replaces a registration; derives its scripts up to the gap limit. */
  async register(owner: string, walletId: string, r: WatchRegistration): Promise<WatchedWallet> {
    if (!Number.isInteger(r.gapLimit) || r.gapLimit < 1 || r.gapLimit > MAX_GAP_LIMIT) throw new ApiError(400, `gap_limit must be a whole number from 1 to ${MAX_GAP_LIMIT}`);
    const { keys, branches } = walletKeys(r.descriptors);
    const from = r.birthdayHeight ?? 0;
    const w: WatchedWallet = { owner, walletId, descriptors: r.descriptors, birthdayHeight: r.birthdayHeight, gapLimit: r.gapLimit, derived: [0, 0], rescanFrom: from, keys, branches };
    const derived = branches.map((branch) => ({ branch, scripts: deriveScripts(this.params, keys, branch, 0, r.gapLimit) }));
    // One transaction: a process killed midway leaves the old registration or the whole new one.
    await this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('watch_scripts').where('chain', '=', this.chain).where('owner', '=', owner).where('wallet_id', '=', walletId).execute();
      await trx.deleteFrom('watch_wallets').where('chain', '=', this.chain).where('owner', '=', owner).where('wallet_id', '=', walletId).execute();
      await trx
        .insertInto('watch_wallets')
        .values({ chain: this.chain, owner, wallet_id: walletId, descriptors: JSON.stringify(r.descriptors), birthday_height: r.birthdayHeight, gap_limit: r.gapLimit, receive_derived: 0, change_derived: 0, rescan_from: from })
        .execute();
      for (const d of derived) await this.insertScripts(trx, w, d.branch, 0, d.scripts);
    });
    for (const d of derived) w.derived[d.branch] = r.gapLimit;
    this.wallets.set(WatchList.key(owner, walletId), w);
    await this.reloadScripts();
    return w;
  }

  private async insertScripts(trx: Transaction<Database>, w: WatchedWallet, branch: 0 | 1, from: number, scripts: readonly Uint8Array[]): Promise<void> {
    const rows = scripts.map((script, i) => ({ chain: this.chain, script: Buffer.from(script), owner: w.owner, wallet_id: w.walletId, branch, idx: from + i }));
    for (let i = 0; i < rows.length; i += 100) await trx.insertInto('watch_scripts').values(rows.slice(i, i + 100)).onConflict((oc) => oc.doNothing()).execute();
  }

  private async reloadScripts(): Promise<void> {
    this.watched.clear();
    for (const s of await this.db.selectFrom('watch_scripts').select('script').where('chain', '=', this.chain).execute()) this.watched.set(bytesToHex(s.script), new Uint8Array(s.script));
  }

  /** The lowest height any wallet's blocks must be read again from; null: none. */
  pendingRescan(): number | null {
    let from: number | null = null;
    for (const w of this.wallets.values()) if (w.rescanFrom !== null) from = Math.min(from ?? Infinity, w.rescanFrom);
    return from;
  }

  /** Asks for the wallet's blocks from `from` on to be read again (kept across restarts). */
  async markRescan(w: WatchedWallet, from: number): Promise<void> {
    const at = Math.min(w.rescanFrom ?? from, from);
    // A rescan from before the birthday says the wallet may be older than registered: the birthday
    // moves there, or the scan would start at the old birthday (the lowest one) again.
    const birthday = w.birthdayHeight !== null && from < w.birthdayHeight ? from : w.birthdayHeight;
    await this.db.updateTable('watch_wallets').set({ rescan_from: at, birthday_height: birthday }).where('chain', '=', this.chain).where('owner', '=', w.owner).where('wallet_id', '=', w.walletId).execute();
    w.rescanFrom = at;
    w.birthdayHeight = birthday;
  }

  /** The index was rolled back below every pending rescan: they are under way. */
  async rescansTaken(): Promise<void> {
    await this.db.updateTable('watch_wallets').set({ rescan_from: null }).where('chain', '=', this.chain).execute();
    for (const w of this.wallets.values()) w.rescanFrom = null;
  }

  /**
   * Derives a branch's scripts up to index `count` (exclusive) and asks for the wallet's blocks to
   * be read again from its birthday, in one transaction.
   */
  async deriveTo(w: WatchedWallet, branch: 0 | 1, count: number): Promise<void> {
    const from = w.derived[branch];
    if (count <= from) return;
    const scripts = deriveScripts(this.params, w.keys, branch, from, count);
    const rescanFrom = Math.min(w.rescanFrom ?? Infinity, w.birthdayHeight ?? 0);
    await this.db.transaction().execute(async (trx) => {
      await this.insertScripts(trx, w, branch, from, scripts);
      await trx
        .updateTable('watch_wallets')
        .set({ ...(branch === 0 ? { receive_derived: count } : { change_derived: count }), rescan_from: rescanFrom })
        .where('chain', '=', this.chain)
        .where('owner', '=', w.owner)
        .where('wallet_id', '=', w.walletId)
        .execute();
    });
    w.derived[branch] = count;
    w.rescanFrom = rescanFrom;
    for (const s of scripts) this.watched.set(bytesToHex(s), s);
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

  /** Words for a script nobody registered (watch mode answers no address it does not hold). */
  notWatched(script: Uint8Array): ApiError {
    const address = scriptToAddress(this.params, script) ?? bytesToHex(script);
    return new ApiError(
      404,
      `address ${address} belongs to no wallet this service watches: ${this.params.coin} runs the watch index, which holds only registered wallets; register the wallet's descriptors with PUT /watch/${this.params.coin}/{wallet_id}`,
    );
  }
}
