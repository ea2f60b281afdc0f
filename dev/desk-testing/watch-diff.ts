// The watch-versus-full differential bench (issue 31, part 2): the service's full index is the
// oracle of its watch mode. One litecoind -regtest (block filters on; or pruned, without them) is
// served twice: by a full-index service in this process, and by a watch-mode service in a child
// process, as the desk embeds it on a treasurer's own node, which the bench stops and kills with
// SIGKILL. A desk holding an M-of-N wallet and a vault acts on the watch-mode service (falling back
// to the full one where the watch refuses what the full index allows, which is itself a mismatch);
// steps drawn from a seeded PRNG: deposits along chains of gaps, payments proposed and signed at the
// desk, new receive addresses, payments by another desk holding the same wallets, reorganisations,
// restarts and kills. After every step, once both services have the node's tip and mempool, the
// desk's figures are computed on each, through the desk's own core functions, from the same copy of
// the desk's store: next receive and change address, balance, history, unspent outputs, and a
// vault's refresh warnings. Every difference is a mismatch, named by seed and step for replay.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { ApiClient } from '../../shared/api/client.ts';
import { addressToScript, chainParams } from '../../shared/coins/index.ts';
import { fundedNode, type RegtestNode } from '../chains/litecoind.ts';
import { fillBlockFile, PRUNED_NODE_ARGS, pruneAll } from '../chains/pruned-chain.ts';
import { startSlowRpc, type SlowRpc } from '../chains/slow-rpc.ts';
import { startDevService, type DevService } from '../dev-service.ts';
import { openStore, type CoordinatorStore } from '../../main/core/store/store.ts';
import { createWallet, nextReceiveAddress, requireWallet, walkChain, type CoreDeps } from '../../main/core/wallets/wallets.ts';
import { walletAddress } from '../../main/core/wallets/script.ts';
import { createVault } from '../../main/core/vaults/vaults.ts';
import { createVaultWithBirthday, createWalletWithBirthday, registerUnwatchedWallets } from '../../main/core/wallets/birthday.ts';
import { walletFunds, walletHistory, walletUnspent } from '../../main/core/wallets/funds.ts';
import { vaultCoinsNow } from '../../main/core/vaults/refresh.ts';
import { freshChangeAddress } from '../../main/core/payments/spend.ts';
import { proposePayment } from '../../main/core/payments/propose.ts';
import { signAndSend } from './regtest.ts';
import { testCosigner, treasuryVault } from './keys.ts';
import { URL_PREFIX, WATCH_CHILD_ENV, type WatchServiceInput } from './watch-service-child.ts';

const CHILD = fileURLToPath(new URL('./watch-service-child.ts', import.meta.url));
const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const params = chainParams('litecoin', 'regtest');
const POLL_MS = 100;
/** The gap a deposit may leave after the last used receive address: the desk's gap limit less the one it lands on. */
const GAP = 20;
/** The clock the refresh warnings are read at: the same on both sides, so only the services differ. */
const NOW = Date.UTC(2026, 10, 1);
const SETTLE_TRIES = 1200;
/** The one figure read while the watch index is held behind the tip. */
const LAGGING = 'refresh warnings (index lagging)';
const STEADY_POLLS = 4;

export type StepKind = 'deposit' | 'receive' | 'pay' | 'sweep' | 'outside' | 'mine' | 'reorg' | 'restart' | 'kill9' | 'lag';
/** How often each step is drawn (weights). */
const STEP_WEIGHTS: readonly [StepKind, number][] = [
  ['deposit', 30],
  ['receive', 10],
  ['pay', 18],
  ['sweep', 4],
  ['outside', 8],
  ['mine', 10],
  ['reorg', 9],
  ['restart', 6],
  ['kill9', 9],
  ['lag', 8],
];

export interface Mismatch {
  seed: number;
  pruned: boolean;
  /** 0: after the set-up (and the prune); n: after the n-th step. */
  step: number;
  action: string;
  wallet: string;
  figure: string;
  watch: string;
  full: string;
}

export interface ScenarioResult {
  seed: number;
  pruned: boolean;
  steps: number;
  comparisons: number;
  mismatches: Mismatch[];
  /** Set when the scenario could not go on (a service that never reached the tip, a step that failed on both services). */
  failure: { step: number; action: string; message: string } | null;
  ms: number;
}

export interface ScenarioOptions {
  seed: number;
  steps: number;
  /** The pruned variant: a node with -prune=1 and no block filters, pruned after a first stretch of use. */
  pruned?: boolean;
  /** Steps taken before the prune, without a watch service (pruned variant only; default 12). */
  stepsBeforePrune?: number;
  log?: (line: string) => void;
}

/** A small seeded PRNG (xorshift32 over a mixed seed): the same seed draws the same scenario. */
export function seededRandom(seed: number): () => number {
  let x = (Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) ^ 0x2545f491) >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x / 4294967296;
  };
}

/** The watch-mode service in its child process. */
class WatchChild {
  private child: ChildProcess | null = null;
  api: ApiClient | null = null;

  constructor(private readonly input: WatchServiceInput) {}

  start(): Promise<ApiClient> {
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD], {
      cwd: repoRoot,
      env: { ...process.env, [WATCH_CHILD_ENV]: JSON.stringify(this.input) },
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    this.child = child;
    return new Promise((resolve, reject) => {
      let out = '';
      child.stdout!.setEncoding('utf8');
      child.stdout!.on('data', (chunk: string) => {
        out += chunk;
        const line = out.split('\n').find((l) => l.startsWith(URL_PREFIX));
        if (line && !this.api) {
          this.api = new ApiClient({ baseUrl: line.slice(URL_PREFIX.length).trim() });
          resolve(this.api);
        }
      });
      child.on('exit', (code, signal) => {
        if (this.child === child) this.child = null;
        reject(new Error(`the watch service's process ended before it listened (${signal ?? `exit code ${code}`})`));
      });
    });
  }

  /** SIGTERM: the service closes; SIGKILL: it dies wherever it is. */
  async stop(signal: 'SIGTERM' | 'SIGKILL'): Promise<void> {
    const child = this.child;
    this.api = null;
    if (!child) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill(signal);
    await exited;
    this.child = null;
  }
}

interface DeskWallet {
  id: string;
  name: string;
  vault: boolean;
  signers: ReturnType<typeof testCosigner>[];
  /** Highest receive index paid so far (-1: none): deposits land within the gap after it. */
  lastPaid: number;
}

const serviceWords = (err: unknown): string => (err instanceof Error ? err.message : String(err)).replace(/http:\/\/127\.0\.0\.1:\d+/g, '<service>');

const clip = (text: string): string => (text.length > 1200 ? `${text.slice(0, 1200)}... (${text.length} characters)` : text);

/** One figure as text, or the refusal's words. */
async function figure(run: () => Promise<string>): Promise<string> {
  try {
    return await run();
  } catch (err) {
    return `refused: ${serviceWords(err)}`;
  }
}

/**
 * The desk's figures for one wallet on one service, in the order the wallet page reads them (the
 * address walks store the addresses the balance is then summed over). `historyFrom`: the first block
 * a pruned node's history is proven from (earlier entries are left out on both sides).
 */
async function deskFigures(deps: CoreDeps & { api: ApiClient }, w: DeskWallet, tip: number, historyFrom: number | null, lagging: boolean): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  if (lagging) {
    // While the watch index lags the node, only what must not depend on the lag: when each coin's recovery path opens.
    if (w.vault) out.set(LAGGING, await refreshWarnings(deps, w));
    return out;
  }
  out.set('next receive address', await figure(async () => {
    const a = await nextReceiveAddress(deps, w.id);
    return `receive ${a.index} ${a.address}`;
  }));
  out.set('next change address', await figure(async () => {
    const a = await freshChangeAddress(deps, w.id);
    return `change ${a.index} ${a.address}`;
  }));
  out.set('balance', await figure(async () => {
    const f = await walletFunds(deps, w.id);
    return `${f.balance} confirmed, ${f.unconfirmedBalance} unconfirmed`;
  }));
  out.set('history', await figure(async () => {
    const rows = (await walletHistory(deps, w.id)).filter((t) => historyFrom === null || t.confirmations === 0 || tip - t.confirmations + 1 >= historyFrom);
    // A transaction's first-seen time is each service's own: only a block's time is compared.
    return rows.map((t) => `${t.txid} ${t.amount} conf ${t.confirmations}${t.confirmations > 0 ? ` time ${t.time}` : ''}`).sort().join('; ') || '(none)';
  }));
  out.set('unspent outputs', await figure(async () => {
    const rows = await walletUnspent(deps, w.id);
    return rows.map((u) => `${u.txid}:${u.vout} ${u.amount} ${u.path} conf ${u.confirmations}`).sort().join('; ') || '(none)';
  }));
  if (w.vault) out.set('refresh warnings', await refreshWarnings(deps, w));
  return out;
}

/** A vault's refresh warnings as the wallet page shows them: each coin's opening, the coins due, the words. */
function refreshWarnings(deps: CoreDeps & { api: ApiClient }, w: DeskWallet): Promise<string> {
  return figure(async () => {
    const now = await vaultCoinsNow(deps, w.id, NOW);
    const openings = now.openings.map((o) => `${o.txid}:${o.vout} opens ${o.opensAtBlock ?? 'unconfirmed'} left ${o.blocksLeft}`).sort().join('; ');
    const due = now.due.map((d) => JSON.stringify(d, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))).sort().join('; ');
    return `openings [${openings}] due [${due}] warning ${now.warning ? `${now.warning.headline} / ${now.warning.words}` : 'none'}`;
  });
}

/** Runs one seeded scenario to its end (or to the first step that cannot go on) and answers what it saw. */
export async function runScenario(options: ScenarioOptions): Promise<ScenarioResult> {
  const started = performance.now();
  const { seed, pruned = false } = options;
  const log = options.log ?? (() => undefined);
  const random = seededRandom(seed);
  const pick = (n: number) => Math.floor(random() * n);
  const chance = (p: number) => random() < p;
  const result: ScenarioResult = { seed, pruned, steps: 0, comparisons: 0, mismatches: [], failure: null, ms: 0 };
  const dir = mkdtempSync(join(tmpdir(), `countersign-watch-diff-${seed}-`));
  mkdirSync(join(dir, 'full'));
  mkdirSync(join(dir, 'watch'));
  mkdirSync(join(dir, 'copies'));
  let node: RegtestNode | null = null;
  let full: DevService | null = null;
  let watch: WatchChild | null = null;
  let proxy: SlowRpc | null = null;
  let store: CoordinatorStore | null = null;
  let outside: CoordinatorStore | null = null;
  let step = 0;
  let action = 'set-up';
  try {
    node = await fundedNode({ extraArgs: ['-mempoolreplacement=1', ...(pruned ? PRUNED_NODE_ARGS : ['-blockfilterindex=1'])] });
    const n = node;
    await n.mine(50);
    full = await startDevService(n, join(dir, 'full'), { pollIntervalMs: POLL_MS, index: 'full' });
    const fullDev = full;
    await fullDev.synced();
    const fullApi = fullDev.api;
    // The watch service reaches the node through a proxy that can hold its block reads: an index lagging the node, on demand.
    const gate = await startSlowRpc(n.rpcConfig.url, 0);
    proxy = gate;
    const w = new WatchChild({ rpc: { ...n.rpcConfig, url: gate.url }, relaysReplacements: n.relaysReplacements, dir: join(dir, 'watch'), pollIntervalMs: POLL_MS });
    watch = w;
    const deskPath = join(dir, 'desk.sqlite');
    const desk = openStore(deskPath);
    store = desk;
    const other = openStore(join(dir, 'outside.sqlite'));
    outside = other;
    const fullDeps = { store: desk, api: fullApi, actor: 'treasurer' };
    const outsideDeps = { store: other, api: fullApi, actor: 'another desk' };
    const watchDeps = () => {
      if (!w.api) throw new Error('the watch service is not running');
      return { store: desk, api: w.api, actor: 'treasurer' };
    };
    // The pruned node's treasurer starts their service once the node is pruned: until then the desk is on the full one.
    if (!pruned) await w.start();
    const names = ['a', 'b', 'c'].map((x) => `diff ${seed} ${x}`);
    const birthDeps = pruned ? fullDeps : watchDeps();
    const multisig = await createWalletWithBirthday(birthDeps, { coin: 'litecoin', network: 'regtest', name: 'Desk wallet', m: 2, cosigners: names.map((x) => testCosigner(x)), scriptType: 'p2wsh', sortKeys: true }, { source: 'tip' });
    const vault = await createVaultWithBirthday(birthDeps, treasuryVault('Desk vault'), { source: 'tip' });
    const wallets: DeskWallet[] = [
      { id: multisig.id, name: 'Desk wallet', vault: false, signers: names.slice(0, 2).map((x) => testCosigner(x)), lastPaid: -1 },
      { id: vault.id, name: 'Desk vault', vault: true, signers: ['alice', 'bob'].map((x) => testCosigner(x)), lastPaid: -1 },
    ];
    // Another desk holding the same wallets pays from them: spends this desk did not propose.
    const otherIds = new Map([
      [multisig.id, (await createWallet(outsideDeps, { coin: 'litecoin', network: 'regtest', name: 'Desk wallet', m: 2, cosigners: names.map((x) => testCosigner(x)), scriptType: 'p2wsh', sortKeys: true })).id],
      [vault.id, (await createVault(outsideDeps, treasuryVault('Desk vault'))).id],
    ]);

    /** The desk acts on the watch service; where it refuses what the full index allows, that is a mismatch and the full one acts. */
    const act = async <T>(what: string, wallet: DeskWallet, run: (deps: CoreDeps & { api: ApiClient }) => Promise<T>): Promise<T | null> => {
      if (w.api) {
        try {
          return await run(watchDeps());
        } catch (err) {
          try {
            const done = await run(fullDeps);
            result.mismatches.push({ seed, pruned, step, action, wallet: wallet.name, figure: what, watch: `refused: ${serviceWords(err)}`, full: 'done' });
            log(`MISMATCH seed ${seed} step ${step} (${action}) ${wallet.name}: ${what}: watch refused (${serviceWords(err)}), full index did it`);
            return done;
          } catch {
            return null; // both refuse: the same answer
          }
        }
      }
      try {
        return await run(fullDeps);
      } catch {
        return null;
      }
    };

    const tip = () => n.rpc.call<number>('getblockcount');
    const mineMaybe = async (p: number) => {
      if (chance(p)) await n.mine(1 + pick(2));
    };

    const deposit = async (wallet: DeskWallet) => {
      const index = wallet.lastPaid + 1 + pick(GAP);
      const row = requireWallet(fullDeps, wallet.id);
      const address = walletAddress(params, row, desk.cosigners(wallet.id).map((c) => c.xpub), false, index).address;
      const amount = BigInt(5_000_000 + pick(195_000_000));
      await n.fundScript(addressToScript(params, address), amount);
      wallet.lastPaid = Math.max(wallet.lastPaid, index);
      return `${amount} to receive ${index}`;
    };

    const pay = async (wallet: DeskWallet, deps: CoreDeps, storeOf: CoordinatorStore, walletId: string, sendAll = false) => {
      const balance = (await walletFunds({ store: storeOf, api: fullApi }, walletId)).balance;
      if (balance < 3_000_000n) return null;
      const amount = 1_000_000n + BigInt(pick(Number(balance / 3n)));
      const to = await n.newAddress(chance(0.5) ? 'bech32' : 'legacy');
      const p = await proposePayment(deps, walletId, { to, amount, minersFee: 0n, feeRate: 2n, ...(sendAll ? { sendAll } : {}) });
      const sent = await signAndSend(deps, p, wallet.signers);
      return `${amount} to ${to} (${sent.payment.txid ?? 'no txid'})`;
    };

    const steps: Record<StepKind, () => Promise<string>> = {
      deposit: async () => {
        const wallet = wallets[pick(wallets.length)]!;
        const what = await deposit(wallet);
        await mineMaybe(0.7);
        return `${wallet.name}: ${what}`;
      },
      receive: async () => {
        const wallet = wallets[pick(wallets.length)]!;
        const a = await act('new receive address', wallet, (deps) => nextReceiveAddress(deps, wallet.id));
        if (a && chance(0.6)) {
          await n.fundScript(addressToScript(params, a.address), BigInt(5_000_000 + pick(95_000_000)));
          wallet.lastPaid = Math.max(wallet.lastPaid, a.index);
          await mineMaybe(0.6);
          return `${wallet.name}: receive ${a.index}, paid`;
        }
        return `${wallet.name}: receive ${a?.index ?? 'refused on both'}`;
      },
      pay: async () => {
        // From a wallet that can pay, when one can: a scenario of refusals for want of funds proves little.
        // The wallet page walks the receive chain first: the deposits it finds are what the desk can spend.
        for (const x of wallets) await act('address walk', x, (deps) => walkChain(deps, x.id, false));
        const able: DeskWallet[] = [];
        for (const x of wallets) if ((await walletFunds({ store: desk, api: fullApi }, x.id)).balance >= 3_000_000n) able.push(x);
        const wallet = able.length > 0 ? able[pick(able.length)]! : wallets[pick(wallets.length)]!;
        const what = await act('payment', wallet, (deps) => pay(wallet, deps, desk, wallet.id));
        await mineMaybe(0.6);
        return `${wallet.name}: payment ${what ?? 'not made (too little confirmed)'}`;
      },
      sweep: async () => {
        // Send all: every address used so far is emptied (what hides a pruned node's coins, finding 5).
        const wallet = wallets[pick(wallets.length)]!;
        await act('address walk', wallet, (deps) => walkChain(deps, wallet.id, false));
        const what = await act('send all', wallet, (deps) => pay(wallet, deps, desk, wallet.id, true));
        await mineMaybe(0.8);
        return `${wallet.name}: send all ${what ?? 'not made (too little confirmed)'}`;
      },
      outside: async () => {
        const wallet = wallets[pick(wallets.length)]!;
        const id = otherIds.get(wallet.id)!;
        let what: string | null;
        try {
          await walkChain(outsideDeps, id, false);
          what = await pay(wallet, outsideDeps, other, id);
        } catch (err) {
          what = `refused: ${serviceWords(err)}`;
        }
        await mineMaybe(0.6);
        return `${wallet.name}: another desk's payment ${what ?? 'not made (too little confirmed)'}`;
      },
      mine: async () => {
        const blocks = 1 + pick(3);
        await n.mine(blocks);
        return `${blocks} blocks`;
      },
      reorg: async () => {
        const height = await tip();
        const depth = 1 + pick(3);
        await n.rpc.call('invalidateblock', [await n.rpc.call<string>('getblockhash', [height - depth + 1])]);
        const miner = await n.newAddress();
        // The other branch: its first block empty (the cut blocks' transactions wait in the mempool), the rest take them or not.
        const empty = chance(0.5);
        for (let i = 0; i <= depth; i++) {
          if (i === 0 || empty) await n.rpc.call('generateblock', [miner, []]);
          else await n.mine(1, miner);
        }
        return `${depth} blocks cut at ${height - depth + 1}, ${depth + 1} mined${empty ? ' empty' : ''}`;
      },
      restart: async () => {
        await w.stop('SIGTERM');
        const mined = chance(0.5) ? 1 + pick(2) : 0;
        if (mined) await n.mine(mined);
        await w.start();
        await registerUnwatchedWallets({ store: desk, api: w.api! });
        return `stopped, ${mined} blocks mined meanwhile, started`;
      },
      kill9: async () => {
        // Killed while busy: right after a deposit and blocks it has to read.
        const wallet = wallets[pick(wallets.length)]!;
        const what = chance(0.6) ? await deposit(wallet) : null;
        await n.mine(1 + pick(3));
        await w.stop('SIGKILL');
        await w.start();
        await registerUnwatchedWallets({ store: desk, api: w.api! });
        return `killed (SIGKILL)${what ? ` after ${wallet.name}: ${what}` : ''} and started`;
      },
      lag: async () => {
        // The watch index stops at the tip while blocks with none of the wallets' transactions are
        // mined (at most 3: the service's readiness lag); the desk reads its vault meanwhile.
        await settle();
        gate.hold();
        try {
          const miner = await n.newAddress();
          const blocks = 1 + pick(3);
          for (let i = 0; i < blocks; i++) await n.rpc.call('generateblock', [miner, []]);
          const height = await tip();
          for (let i = 0; ; i++) {
            const s = (await w.api!.status()).coins.find((c) => c.coin === 'litecoin');
            if (s?.tip_height === height && s.indexed_height !== null && s.indexed_height < height) break;
            if (i >= SETTLE_TRIES) throw new Error(`the watch service did not see the node's tip ${height} while its block reads were held`);
            await new Promise((r) => setTimeout(r, 100));
          }
          await fullDev.synced();
          await compare(true);
          return `${blocks} empty blocks mined while the watch index was held; compared while it lagged`;
        } finally {
          gate.release();
        }
      },
    };
    const total = STEP_WEIGHTS.reduce((t, [, weight]) => t + weight, 0);
    const draw = (allowed: (k: StepKind) => boolean): StepKind => {
      for (;;) {
        let r = pick(total);
        for (const [kind, weight] of STEP_WEIGHTS) {
          if (r < weight) {
            if (allowed(kind)) return kind;
            break;
          }
          r -= weight;
        }
      }
    };

    /** Both services have the node's tip and mempool, and the watch has scanned every wallet to the tip. */
    const settle = async (): Promise<{ tip: number; historyFrom: number | null }> => {
      // Settled when it holds at a few polls in a row: a service that says ready between two of its own passes is not yet done.
      let steady = 0;
      for (let i = 0; i < SETTLE_TRIES; i++) {
        const height = await tip();
        const mempool = (await n.rpc.call<string[]>('getrawmempool')).length;
        const at = async (api: ApiClient) => {
          const s = (await api.status()).coins.find((c) => c.coin === 'litecoin');
          return s !== undefined && s.indexed_height === height && s.mempool_txs === mempool;
        };
        let ready = (await at(fullApi)) && w.api !== null && (await at(w.api));
        let historyFrom: number | null = null;
        for (const wallet of wallets) {
          if (!ready) break;
          const s = await w.api!.watchStatus('litecoin', wallet.id);
          if (s.state === 'error') throw new Error(`the watch service's scan of ${wallet.name} failed: ${s.error ?? ''}`);
          ready = s.state === 'ready' && s.scanned_height === height;
          if (s.history_from !== null) historyFrom = Math.max(historyFrom ?? 0, s.history_from);
        }
        steady = ready && height === (await tip()) ? steady + 1 : 0;
        if (steady >= STEADY_POLLS) return { tip: height, historyFrom };
        await new Promise((r) => setTimeout(r, POLL_MS));
      }
      throw new Error(`the services did not both reach the node's tip in ${SETTLE_TRIES / 10} s`);
    };

    /** The desk's figures on each service, from two copies of the same store. */
    const compare = async (lagging = false) => {
      const { tip: height, historyFrom } = lagging ? { tip: await tip(), historyFrom: null } : await settle();
      const sides: Map<string, string>[][] = [];
      for (const [side, api] of [['watch', w.api!], ['full', fullApi]] as const) {
        const copy = join(dir, 'copies', `${step}-${side}${lagging ? '-lagging' : ''}.sqlite`);
        const db = new Database(deskPath);
        db.exec(`VACUUM INTO '${copy}'`);
        db.close();
        const s = openStore(copy);
        try {
          const deps = { store: s, api, actor: 'treasurer' };
          const figures: Map<string, string>[] = [];
          for (const wallet of wallets) figures.push(await deskFigures(deps, wallet, height, historyFrom, lagging));
          sides.push(figures);
        } finally {
          s.close();
          rmSync(copy, { force: true });
        }
      }
      for (const [i, wallet] of wallets.entries()) {
        for (const [name, fullValue] of sides[1]![i]!) {
          const watchValue = sides[0]![i]!.get(name) ?? '(not computed)';
          result.comparisons++;
          if (watchValue !== fullValue) {
            result.mismatches.push({ seed, pruned, step, action, wallet: wallet.name, figure: name, watch: watchValue, full: fullValue });
            log(`MISMATCH seed ${seed} step ${step} (${action}) ${wallet.name}: ${name}\n  watch: ${clip(watchValue)}\n  full:  ${clip(fullValue)}`);
          }
        }
      }
    };

    // Each wallet holds a coin from the start: payments and the vault's warnings have something to work on.
    for (const wallet of wallets) log(`seed ${seed} set-up: ${wallet.name}: ${await deposit(wallet)}`);
    await n.mine(1);
    let setUp = 'set-up';
    if (pruned) {
      // A first stretch of use on the full index alone, then the file of big blocks, the prune, and the watch service.
      for (let i = 0; i < (options.stepsBeforePrune ?? 12); i++) {
        const kind = draw((k) => k === 'deposit' || k === 'pay' || k === 'sweep' || k === 'outside' || k === 'mine');
        action = `before the prune: ${kind}`;
        // The full index alone answers here: it must have the node's tip first, as compare() waits for both later.
        await full.synced();
        log(`seed ${seed} ${action}: ${await steps[kind]()}`);
      }
      // Each wallet emptied, then paid once more further along its chain: the shape a prune hides (r4).
      for (const wallet of wallets) {
        await n.mine(1);
        await full.synced();
        await act('address walk', wallet, (deps) => walkChain(deps, wallet.id, false));
        log(`seed ${seed} before the prune: ${wallet.name}: send all ${(await pay(wallet, fullDeps, desk, wallet.id, true)) ?? 'not made'}`);
        await n.mine(1);
        log(`seed ${seed} before the prune: ${wallet.name}: ${await deposit(wallet)}`);
      }
      await n.mine(1);
      await fillBlockFile(n);
      const height = await tip();
      await n.mine(Math.max(300, 1001 - height));
      const pruneHeight = await pruneAll(n);
      await full.synced();
      await w.start();
      await registerUnwatchedWallets({ store: desk, api: w.api! });
      setUp = `pruned at ${pruneHeight}`;
      log(`seed ${seed}: ${setUp}`);
    }
    // Every scenario reads its vault once while the watch index lags, whatever the steps drawn later.
    action = `${setUp}, the watch index held behind the tip`;
    log(`seed ${seed} ${action}: ${await steps.lag()}`);
    action = setUp;
    await compare();
    for (step = 1; step <= options.steps; step++) {
      const kind = draw(() => true);
      action = kind;
      log(`seed ${seed} step ${step} ${kind}: ${await steps[kind]()}`);
      await compare();
      result.steps = step;
    }
  } catch (err) {
    result.failure = { step, action, message: serviceWords(err) };
    log(`FAILED seed ${seed} step ${step} (${action}): ${serviceWords(err)}`);
  } finally {
    store?.close();
    outside?.close();
    proxy?.release();
    await watch?.stop('SIGTERM').catch(() => undefined);
    await proxy?.close().catch(() => undefined);
    await full?.service.close().catch(() => undefined);
    await node?.stop().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
    result.ms = performance.now() - started;
  }
  return result;
}

/** The closing table: one row a scenario, and the totals. */
export function summaryTable(results: readonly ScenarioResult[]): string {
  const rows = results.map((r) => [`seed ${r.seed}${r.pruned ? ' (pruned)' : ''}`, String(r.steps), String(r.comparisons), String(r.mismatches.length), r.failure ? `stopped at step ${r.failure.step}: ${r.failure.message}` : `${(r.ms / 1000).toFixed(0)} s`]);
  rows.push(['total', String(results.reduce((t, r) => t + r.steps, 0)), String(results.reduce((t, r) => t + r.comparisons, 0)), String(results.reduce((t, r) => t + r.mismatches.length, 0)), `${results.length} scenarios`]);
  const head = ['scenario', 'steps run', 'comparisons', 'mismatches', 'ran'];
  return [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');
}

/** How to run a scenario again, to the step that went wrong. */
export function replayCommand(m: Pick<Mismatch, 'seed' | 'step' | 'pruned'>): string {
  return `npm run soak:watch -- --seed ${m.seed} --steps ${Math.max(m.step, 1)}${m.pruned ? ' --pruned' : ''}`;
}

export const FINDING_4 = "finding 4: the desk's 20-address walk runs past the watch service's window (404)";
export const FINDING_5 = 'finding 5: a pruned node hides coins and used addresses below the prune height';
export const FINDING_6 = "finding 6: the refresh warning is shifted by the index's lag";

/** The words of the watch service's 404 for an address outside its window (issue 31, finding 4). */
const OUTSIDE_WINDOW = 'belongs to no wallet this service watches';

const unspentSet = (text: string): Set<string> => new Set(text === '(none)' ? [] : text.split('; '));

/**
 * The known watch-mode defects of issue 31 that a mismatch follows from, while their fixes are
 * being made (branch h/watch): each mismatch with its cause, null when none explains it. The
 * figures of one wallet at one step go together: a walk refused past the window (finding 4) leaves
 * the desk without the addresses its balance, history and outputs are summed over.
 */
export function knownCauses(mismatches: readonly Mismatch[]): { mismatch: Mismatch; known: string | null }[] {
  // The reading made while the index lagged is a group of its own: it walks no chain.
  const group = (m: Mismatch) => `${m.seed}/${m.pruned}/${m.step}/${m.wallet}${m.figure === LAGGING ? '/lagging' : ''}`;
  const causes = new Map<string, string>();
  // On a pruned node the window also stops short of addresses emptied before the prune height (finding 5).
  for (const m of mismatches) {
    if (m.watch.includes(OUTSIDE_WINDOW)) causes.set(group(m), m.pruned ? FINDING_5 : FINDING_4);
  }
  const indexOf = (text: string) => /^(?:receive|change) (\d+) /.exec(text)?.[1];
  for (const m of mismatches) {
    if (causes.has(group(m)) || !m.pruned) continue;
    const watch = unspentSet(m.watch);
    const full = unspentSet(m.full);
    const hidden = m.figure === 'unspent outputs' && watch.size < full.size && [...watch].every((u) => full.has(u));
    // An address used and emptied before the prune height reads as unused: the walk stops before it.
    const shortWalk = /^next (receive|change) address$/.test(m.figure) && Number(indexOf(m.watch) ?? NaN) < Number(indexOf(m.full) ?? NaN);
    if (hidden || shortWalk) causes.set(group(m), FINDING_5);
  }
  return mismatches.map((m) => ({
    mismatch: m,
    known: causes.get(group(m)) ?? (m.figure === LAGGING ? FINDING_6 : null),
  }));
}
