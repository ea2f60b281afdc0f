// Vaults that survive lost keys (issue 27): a wallet whose keys make a wsh miniscript with
// timelocked recovery paths, from a template (recovery keys, decaying multisig) or from a Liana or
// Nunchuk descriptor or a BIP388 wallet policy. Stored as a wallet of kind 'miniscript': its keys are
// its co-signers in key order (@0 is position 0), its template the BIP388 descriptor template, M the
// primary path's threshold. Coins without segwit are refused: a vault is P2WSH.
import { pathOpensAt } from '../../../shared/coins/vault-spend.ts';
import { plural } from '../../../shared/api/words.ts';
import { randomUUID } from 'node:crypto';
import { chainParams, CoinError, describeChain, parseXpub, type ChainParams, type CoinName, type NetworkName } from '../../../shared/coins/index.ts';
import { checkVault, namedVaultPaths, type VaultKey, type VaultPolicy } from '../../../shared/coins/vault-policy.ts';
import { decayingVault, describeTimelock, recoveryVault, timelockBlocks, type Timelock } from '../../../shared/coins/vault-templates.ts';
import { FileFormatError } from '../../../shared/files/errors.ts';
import { formatWalletPolicy, parseVaultDescriptor, parseWalletPolicy } from '../../../shared/files/miniscript-descriptor.ts';
import { CoordinatorError } from '../errors.ts';
import { unservedWords } from '../chains/service-status.ts';
import type { BirthdaySource, CosignerRow, WalletRow } from '../store/store.ts';
import { requireWallet, type CoreDeps, type CosignerInput } from '../wallets/wallets.ts';
import { walletAddress, walletDescriptor } from '../wallets/script.ts';

export interface VaultKeySet {
  threshold: number;
  cosigners: readonly CosignerInput[];
}

/** A recovery path as the treasurer types it: its keys, and when it opens (days, or blocks). */
export interface RecoveryPathInput extends VaultKeySet {
  after: Timelock;
}

interface NewVaultCommon {
  coin: CoinName;
  network: NetworkName;
  name: string;
  birthday?: { height: number | null; source: BirthdaySource };
}

/** M-of-N now, or after each T its K-of-R recovery keys. */
export interface NewRecoveryVault extends NewVaultCommon {
  template: 'recovery';
  primary: VaultKeySet;
  recovery: readonly RecoveryPathInput[];
}

/** M-of-N now; after each T a lower threshold of the same keys. */
export interface NewDecayingVault extends NewVaultCommon {
  template: 'decaying';
  primary: VaultKeySet;
  decay: readonly { threshold: number; after: Timelock }[];
}

/** A vault read from a descriptor (Liana, Nunchuk) or a BIP388 wallet policy file. */
export interface ImportedVault extends NewVaultCommon {
  template: 'import';
  text: string;
}

export type NewVault = NewRecoveryVault | NewDecayingVault | ImportedVault;

/** One spending path of a vault, as the wallet page shows it. */
export interface VaultPathView {
  threshold: number;
  /** The co-signers' names, in template order. */
  keys: string[];
  /** 0: the primary path, open at once. */
  blocks: number;
  /** "now", or "144 blocks (about 1 day) after a coin is received". */
  opens: string;
}

/** A refusal of the vault in words; `field`: the form's field it concerns ('text': the imported file). */
const bad = (err: unknown, field?: string): never => {
  if (err instanceof CoinError || err instanceof FileFormatError) throw new CoordinatorError('bad_wallet', err.message, field === undefined ? undefined : { field });
  throw err;
};

const keyOf = (params: ChainParams, c: CosignerInput): VaultKey & { name: string } => {
  const xpub = c.xpub.trim();
  try {
    parseXpub(params, xpub, `co-signer ${c.name}'s xpub`);
  } catch (err) {
    bad(err);
  }
  return { name: c.name, xpub, fingerprint: (c.fingerprint ?? '00000000').toLowerCase(), derivationPath: c.derivationPath ?? 'm' };
};

/** The policy and the names of its keys (in key order), from a template or a file. */
function policyOf(params: ChainParams, input: NewVault): { policy: VaultPolicy; names: string[] } {
  const named = new Map<string, string>();
  const keys = (set: VaultKeySet) => ({ threshold: set.threshold, keys: set.cosigners.map((c) => keyOf(params, c)).map((k) => (named.set(k.xpub, k.name), k)) });
  try {
    let policy: VaultPolicy;
    if (input.template === 'import') {
      const text = input.text.trim();
      policy = (text.startsWith('{') ? parseWalletPolicy(text) : parseVaultDescriptor(text)).policy;
      for (const [i, k] of policy.keys.entries()) keyOf(params, { name: `key @${i}`, xpub: k.xpub });
    } else if (input.template === 'recovery') {
      policy = recoveryVault(params, keys(input.primary), input.recovery.map((r) => ({ ...keys(r), after: r.after })));
    } else {
      policy = decayingVault(params, keys(input.primary), input.decay);
    }
    const names = policy.keys.map((k, i) => named.get(k.xpub) ?? `Key ${i + 1} (${k.fingerprint})`);
    return { policy, names };
  } catch (err) {
    return bad(err, input.template === 'import' ? 'text' : undefined);
  }
}

/** The vault's policy from its stored wallet and co-signers. */
export function storedVaultPolicy(deps: Pick<CoreDeps, 'store'>, w: WalletRow): VaultPolicy {
  if (!w.vaultTemplate) throw new CoordinatorError('bad_wallet', `wallet "${w.name}" is an M-of-N wallet, not a vault with recovery paths`);
  const keys = deps.store.cosigners(w.id).map((c) => ({ xpub: c.xpub, fingerprint: c.fingerprint, derivationPath: c.derivationPath }));
  return { template: w.vaultTemplate, keys };
}

/** Creates a vault: refuses coins without segwit, builds or reads its policy (sane, or refused in words), stores it with its first addresses. */
export async function createVault(deps: CoreDeps, input: NewVault): Promise<WalletRow> {
  const params = chainParams(input.coin, input.network);
  if (!params.segwit) {
    throw new CoordinatorError('bad_wallet', `${input.coin} has no segwit: a vault with recovery paths is a P2WSH miniscript and cannot be made on it (an M-of-N wallet can)`, { field: 'coin' });
  }
  const { policy, names } = policyOf(params, input);
  const checked = checkVault(policy);
  const primary = checked.paths[0]!;
  const xpubs = policy.keys.map((k) => k.xpub);
  const script = { m: primary.threshold, scriptType: 'p2wsh' as const, sortKeys: false, vaultTemplate: policy.template };
  const first = [walletAddress(params, script, xpubs, false, 0), walletAddress(params, script, xpubs, true, 0)];
  const same = deps.store.wallets().find((w) => w.coin === input.coin && w.network === input.network && w.vaultTemplate && deps.store.addresses(w.id).some((a) => a.address === first[0]!.address));
  if (same) throw new CoordinatorError('wallet_exists', `this vault is already in the desk as "${same.name}": it derives the same addresses`);
  const unserved = await unservedWords(deps.api, input.coin, input.network);
  if (unserved) {
    throw new CoordinatorError('coin_not_served', `refusing the vault: ${unserved}. Choose a coin and network it serves, or point the desk at a service that serves ${input.coin} ${input.network} (Settings).`, { field: 'coin' });
  }
  const wallet: WalletRow = {
    id: randomUUID(),
    coin: input.coin,
    network: input.network,
    name: input.name,
    m: primary.threshold,
    createdAt: new Date().toISOString(),
    scriptType: 'p2wsh',
    sortKeys: false,
    birthdayHeight: input.birthday?.height ?? null,
    birthdaySource: input.birthday?.source ?? null,
    kind: 'miniscript',
    vaultTemplate: policy.template,
  };
  const cosigners: CosignerRow[] = policy.keys.map((k, position) => ({ position, name: names[position]!, xpub: k.xpub, fingerprint: k.fingerprint, derivationPath: k.derivationPath }));
  deps.store.transaction(() => {
    deps.store.insertWallet(wallet, cosigners);
    deps.store.insertAddresses(wallet.id, first);
    deps.store.audit(deps.actor, 'wallet.create', `vault "${input.name}" (${wallet.id}), ${input.coin} ${input.network}: ${policy.template}`, null, { walletId: wallet.id });
  });
  return wallet;
}

/** When each path of a vault opens, in the coin's blocks and days. */
export function vaultPaths(deps: Pick<CoreDeps, 'store'>, walletId: string): VaultPathView[] {
  const w = requireWallet(deps, walletId);
  const policy = storedVaultPolicy(deps, w);
  const names = deps.store.cosigners(w.id).map((c) => c.name);
  const params = chainParams(w.coin, w.network);
  return namedVaultPaths(policy, names).map((p) => ({ ...p, opens: p.blocks === 0 ? 'now' : `${describeTimelock(params, p.blocks)} after a coin is received` }));
}

/** A vault in one line, its paths in order: "2 of Alice, Bob, Carol now, or 1 of Lawyer after 51,840 blocks (about 90 days)". */
export function vaultWords(deps: Pick<CoreDeps, 'store'>, walletId: string): string {
  const w = requireWallet(deps, walletId);
  const params = chainParams(w.coin, w.network);
  return vaultPaths(deps, walletId)
    .map((p) => `${p.threshold} of ${p.keys.join(', ')} ${p.blocks === 0 ? 'now' : `after ${describeTimelock(params, p.blocks)}`}`)
    .join(', or ');
}

/** The vault's descriptor (Liana, Nunchuk, Sparrow read it) or BIP388 wallet policy (hardware wallets register it). */
export function exportVault(deps: Pick<CoreDeps, 'store'>, walletId: string, format: 'descriptor' | 'bip388'): string {
  const w = requireWallet(deps, walletId);
  const policy = storedVaultPolicy(deps, w);
  return format === 'descriptor' ? `${walletDescriptor(w, policy.keys)}\n` : formatWalletPolicy(w.name, policy);
}

/**
 * A timelock as typed on the new-vault form: its blocks and "90 days (51,840 blocks on litecoin)", or
 * refused in words. `previous`: the days of the path before it, which this one must come after.
 */
export function typedTimelock(coin: CoinName, network: NetworkName, typed: string, previous?: number): { days: number; blocks: number; words: string } {
  const params = chainParams(coin, network);
  const text = typed.trim();
  if (!/^[0-9]+$/.test(text)) {
    const why =
      text === '' ? 'type when the recovery path opens, in whole days (for example 90)'
      : /^-/.test(text) ? `a path opens after a number of days from now on, not before; "${text}" is negative`
      : /^[0-9]*[.,][0-9]+$/.test(text) ? `type whole days, like 90; "${text}" has a fraction (a relative timelock counts whole blocks, days here)`
      : `type the days as a whole number, like 90; "${text}" is not one`;
    throw new CoordinatorError('bad_wallet', why, { field: 'days' });
  }
  const days = Number(text);
  let blocks: number;
  try {
    blocks = timelockBlocks(params, { days });
  } catch (err) {
    return bad(err);
  }
  if (previous !== undefined && days <= previous) {
    throw new CoordinatorError('bad_wallet', `each recovery path opens later than the one before it: this one needs more than ${previous} days (the path above opens after ${previous}); ${days} is not later`, { field: 'days' });
  }
  return { days, blocks, words: `${plural(days, 'day')} (${plural(blocks, 'block')} on ${describeChain(params)})` };
}

/** The days of the form's recovery path `i` (0: the first after the main path), each later than the one before; refused naming the path. */
export function typedPathDays(coin: CoinName, network: NetworkName, typed: readonly string[], i: number): number {
  const previous = i === 0 ? undefined : typedPathDays(coin, network, typed, i - 1);
  try {
    return typedTimelock(coin, network, typed[i]!, previous).days;
  } catch (err) {
    if (err instanceof CoordinatorError) throw new CoordinatorError(err.code, `recovery path ${i + 1}: ${err.message}`, { field: `days.${i}` });
    throw err;
  }
}

/** When a vault's recovery path opens for one of its coins. */
export interface VaultCoinOpening {
  txid: string;
  vout: number;
  amount: bigint;
  /** The recovery path's keys and threshold, as on the wallet page. */
  path: VaultPathView;
  /** The first block that may hold a spend on this path; null while the coin is unconfirmed. */
  opensAtBlock: number | null;
  /** Blocks still to be mined before it (0: open now); the path's whole wait while unconfirmed. */
  blocksLeft: number;
  /** Estimated from the coin's block interval (ISO); null while unconfirmed. */
  opensAround: string | null;
}

/**
 * For each coin and each recovery path: the block it opens at. BIP68 counts from the block that
 * confirmed the coin: a coin confirmed at height h may be spent on a path of T blocks in block h + T.
 * The coin's own height (the service's unspent output names it), never the tip less its
 * confirmations: those are counted at the service's indexed tip, which may lag the node's `tip`,
 * and the spend check (payments/vault-paths.ts) reads the same height. `tip` only counts the
 * blocks left.
 */
export function vaultCoinOpenings(
  params: Pick<ChainParams, 'blockSeconds'>,
  paths: readonly VaultPathView[],
  coins: readonly { txid: string; vout: number; amount: bigint; height: number | null }[],
  tip: number,
  now: number,
): VaultCoinOpening[] {
  const out: VaultCoinOpening[] = [];
  for (const c of coins) {
    for (const p of paths.filter((x) => x.blocks > 0)) {
      if (c.height === null) {
        out.push({ txid: c.txid, vout: c.vout, amount: c.amount, path: p, opensAtBlock: null, blocksLeft: p.blocks, opensAround: null });
        continue;
      }
      // The one rule of when a path opens, shared with the spend check (shared/coins/vault-spend.ts).
      const at = pathOpensAt(c.height, p.blocks);
      const left = Math.max(0, at - (tip + 1));
      out.push({ txid: c.txid, vout: c.vout, amount: c.amount, path: p, opensAtBlock: at, blocksLeft: left, opensAround: new Date(now + left * params.blockSeconds * 1000).toISOString() });
    }
  }
  return out;
}
