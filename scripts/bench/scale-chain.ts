// A mainnet-shaped regtest chain for the index bench, built once and cached on disk.
//
// Shape (scale-plan.ts): P2PKH / P2SH 2-of-3 / P2WPKH / P2WSH 2-of-3 outputs at 45/15/25/15 %,
// mostly 1-2 inputs and payment + change, 2% consolidations of 20-50 coins, 2% fan-outs of 20-100
// outputs, half the payments to fresh scripts and half reused with heavy-tailed popularity, and
// two probe addresses with exact history sizes.
//
// Speed: transactions are built and signed here (no wallet) and mined with `generateblock`, which
// validates and mines exactly the given transactions in order (chains of dependent transactions in
// one block included). Relay policy does not apply, so amounts are tiny and fees zero. The next
// block is signed while the node validates the previous one.
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { startLitecoind, type RegtestNode } from '../../dev/chains/litecoind.ts';
import { RpcClient, coinsToUnits } from '../../service/chains/utxo/rpc-client.ts';
import {
  bip143Sighash,
  chainParams,
  compileScript,
  encodeTx,
  p2pkhScript,
  reverseBytes,
  sha256d,
  signatureHash,
  signDer,
  withHashType,
} from '../../shared/coins/index.ts';
import type { Tx, TxInput } from '../../shared/coins/index.ts';
import {
  FRESH_CHANGE_SHARE,
  HOT_SET_SIZE,
  Rng,
  ZIPF_EXPONENT,
  pickPayment,
  probeEntries,
  probeSchedule,
  probeSpends,
  probeTarget,
  sampleScriptType,
  sampleShape,
  zipfCdf,
  type ProbeName,
  type ScriptType,
  type TxShape,
} from './scale-plan.ts';
import { ScriptBook } from './scale-scripts.ts';
import { txCounts } from './tx-counts.ts';

export const SCALE_VERSION = 1;
export const DEFAULT_SEED = 'ltc1';
const params = chainParams('litecoin', 'regtest');

// Coinbases 1..40 (50 LTC each: regtest halves at 150) mature by height 140 (maturity 100): 2,000
// LTC, far more than the payments need, so coins rarely wear down to dust.
const INITIAL_BLOCKS = 140;
const SETUP_COINBASES = 40;
const PAYMENT_MAX = 300_000n;
const FANOUT_PAYMENT_MAX = 50_000n;
const BLOCK_TXS = 2500;
const BLOCK_WEIGHT = 3_990_000; // consensus: 4,000,000
const BLOCK_SIGOPS = 79_000; // consensus: 80,000 sigop cost
// Room for the largest transaction we make (50 P2SH multisig inputs, or 100 outputs), so a
// transaction that passes the "block full?" check always fits.
const TX_WEIGHT_ROOM = 90_000;
const TX_SIGOP_ROOM = 1_000;
const MIN_TXS = 1_000;
const EMPTY = new Uint8Array(0);

export interface ProbeInfo {
  address: string;
  type: ScriptType;
  /** Transactions touching the address (receiving or spending). */
  entries: number;
  /** Confirmed balance in litoshi, as a decimal string (bigint). */
  balance: string;
  unspent: number;
}

export interface ScaleManifest {
  version: number;
  seed: string;
  /** Every transaction on the chain, coinbases and genesis included (= sum of txsPerHeight). */
  txs: number;
  tipHeight: number;
  /** nTx per height from the node's headers, genesis included. */
  txsPerHeight: number[];
  /** Scripts paid by at least one output (the builder's and the miner's). */
  distinctScripts: number;
  /** Outputs of the built (non-coinbase) transactions by type. */
  outputsByType: Record<ScriptType, number>;
  /** Inputs and outputs of the built (non-coinbase) transactions. */
  inputs: number;
  outputs: number;
  builtTxs: number;
  consolidations: number;
  fanouts: number;
  reuse: {
    /** Share of outputs paying a script that an earlier output already paid. */
    outputs: number;
    payments: number;
    change: number;
  };
  /** The most paid script: its address and how many outputs pay it. */
  hottest: { address: string; outputs: number };
  probes: Record<ProbeName, ProbeInfo>;
  buildMs: number;
  /** Built transactions per second of build time. */
  buildRate: number;
}

export interface ScaleChainOptions {
  /** Total transactions on the chain, coinbases included (at least 1,000). */
  txs: number;
  /** Default: $COUNTERSIGN_BENCH_CACHE or ~/.cache/countersign-bench. */
  cacheDir?: string;
  seed?: string;
  progress: (line: string) => void;
}

export function scaleChainFolder(opts: Pick<ScaleChainOptions, 'txs' | 'cacheDir' | 'seed'>): string {
  const root = opts.cacheDir ?? process.env.COUNTERSIGN_BENCH_CACHE ?? join(homedir(), '.cache', 'countersign-bench');
  return join(root, `scale-v${SCALE_VERSION}-${opts.txs}-${opts.seed ?? DEFAULT_SEED}`);
}

/**
 * The cached chain for (txs, seed), built first when the cache has none. The manifest is written
 * last, after a clean node shutdown, so a folder without one is a build that did not finish: it is
 * deleted and built again.
 */
export async function scaleChain(opts: ScaleChainOptions): Promise<{ manifest: ScaleManifest; datadir: string; fromCache: boolean }> {
  if (!Number.isSafeInteger(opts.txs) || opts.txs < MIN_TXS) throw new RangeError(`txs must be a whole number >= ${MIN_TXS}, not ${opts.txs}`);
  const seed = opts.seed ?? DEFAULT_SEED;
  const folder = scaleChainFolder({ ...opts, seed });
  const datadir = join(folder, 'datadir');
  const manifestPath = join(folder, 'manifest.json');
  const cached = await readManifest(manifestPath);
  if (cached) {
    opts.progress(`scale chain: cached ${cached.txs} txs at ${folder}`);
    return { manifest: cached, datadir, fromCache: true };
  }
  await rm(folder, { recursive: true, force: true });
  await mkdir(datadir, { recursive: true });
  opts.progress(`scale chain: building ${opts.txs} txs (seed ${seed}) into ${folder}`);
  const node = await startScaleNode(datadir);
  let manifest: ScaleManifest;
  try {
    manifest = await buildScaleChain(node, opts.txs, seed, opts.progress);
  } finally {
    await node.stop();
  }
  const temp = `${manifestPath}.tmp`;
  await writeFile(temp, `${JSON.stringify(manifest)}\n`);
  await rename(temp, manifestPath);
  return { manifest, datadir, fromCache: false };
}

/** A node on a (cached) scale chain datadir; the datadir is never deleted. */
export function startScaleNode(datadir: string, log?: (line: string) => void, extraArgs?: string[]): Promise<RegtestNode> {
  return startLitecoind({ datadir, ...(log ? { log } : {}), ...(extraArgs ? { extraArgs } : {}) });
}

async function readManifest(path: string): Promise<ScaleManifest | undefined> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as ScaleManifest;
  } catch {
    return undefined;
  }
}

interface Coin {
  txid: Uint8Array; // display order, as TxInput.prevTxid takes it
  vout: number;
  value: bigint;
  script: number;
}

interface Probe {
  name: ProbeName;
  script: number;
  entries: number;
  target: number;
  events: number;
  unspent: Coin[];
}

interface Output {
  script: number;
  value: bigint;
  kind: 'payment' | 'change';
  /** Change back to the payers of fan-outs (an exchange's hot wallet), kept out of the common pool. */
  reserve?: boolean;
}

/** Transactions waiting to be mined, and the block in flight at the node. */
class BlockSink {
  hexes: string[] = [];
  weight = 0;
  sigops = 0;
  open = false;
  mined = 0;
  /** Time spent waiting for the node before sending a block: the node is then the bottleneck. */
  waitedMs = 0;
  private inFlight: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly rpc: RpcClient,
    private readonly minerAddress: string,
  ) {}

  full(): boolean {
    return this.hexes.length >= BLOCK_TXS || this.weight > BLOCK_WEIGHT - TX_WEIGHT_ROOM || this.sigops > BLOCK_SIGOPS - TX_SIGOP_ROOM;
  }

  add(hex: string, weight: number, sigops: number): void {
    this.hexes.push(hex);
    this.weight += weight;
    this.sigops += sigops;
  }

  /** Sends the block once the previous one is in; the next block's signing overlaps its validation. */
  async close(): Promise<void> {
    const hexes = this.hexes;
    this.hexes = [];
    this.weight = 1_000; // the coinbase
    this.sigops = 4;
    this.open = false;
    const before = Date.now();
    await this.inFlight;
    this.waitedMs += Date.now() - before;
    this.inFlight = this.rpc.call('generateblock', [this.minerAddress, hexes]);
    this.inFlight.catch(() => undefined); // surfaced by the next close() or drain()
    this.mined++;
  }

  async drain(): Promise<void> {
    await this.inFlight;
  }
}

async function buildScaleChain(node: RegtestNode, target: number, seed: string, progress: (line: string) => void): Promise<ScaleManifest> {
  const started = Date.now();
  const rng = new Rng(seed);
  const book = new ScriptBook(seed, Math.min(1 << 22, Math.max(1 << 16, target * 2)));
  const rpc = new RpcClient({ ...node.rpcConfig, timeoutMs: 600_000 });
  try {
    const miner = book.create('p2pkh');
    const minerAddress = book.address(params, miner);
    await node.mine(INITIAL_BLOCKS, minerAddress);
    let counted = 1 + INITIAL_BLOCKS; // genesis and the coinbases so far

    const pool: Coin[] = [];
    const reserve: Coin[] = [];
    const paymentLog = { ids: new Int32Array(1 << 16), length: 0 };
    const hotIds = new Int32Array(HOT_SET_SIZE).fill(-1);
    const hotCdf = zipfCdf(HOT_SET_SIZE, ZIPF_EXPONENT);
    const entries = probeEntries(target);
    const probes: Record<ProbeName, Probe> = {
      small: { name: 'small', script: book.create('p2pkh'), entries: entries.small, target: probeTarget(entries.small), events: 0, unspent: [] },
      large: { name: 'large', script: book.create('p2wpkh'), entries: entries.large, target: probeTarget(entries.large), events: 0, unspent: [] },
    };
    const probeOf = new Map<number, Probe>([
      [probes.small.script, probes.small],
      [probes.large.script, probes.large],
    ]);
    const stats = {
      built: 0,
      inputs: 0,
      outputs: 0,
      consolidations: 0,
      fanouts: 0,
      byType: { p2pkh: 0, p2sh: 0, p2wpkh: 0, p2wsh: 0 } as Record<ScriptType, number>,
      reused: 0,
      payments: 0,
      paymentsReused: 0,
      changes: 0,
      changesReused: 0,
      distinct: 1, // the miner's script
    };

    const fresh = (): number => book.create(sampleScriptType(rng));
    const logPayment = (id: number): void => {
      if (paymentLog.length === paymentLog.ids.length) {
        const bigger = new Int32Array(paymentLog.ids.length * 2);
        bigger.set(paymentLog.ids);
        paymentLog.ids = bigger;
      }
      paymentLog.ids[paymentLog.length++] = id;
    };
    const paymentScript = (): number => {
      const pick = pickPayment(rng, hotCdf);
      let id: number;
      if (pick.kind === 'hot') {
        if (hotIds[pick.rank] === -1) hotIds[pick.rank] = fresh();
        id = hotIds[pick.rank]!;
      } else if (pick.kind === 'earlier' && paymentLog.length > 0) {
        id = paymentLog.ids[Math.floor(pick.u * paymentLog.length)]!;
      } else {
        id = fresh();
      }
      logPayment(id);
      return id;
    };
    const changeScript = (first: Coin): number => (rng.next() < FRESH_CHANGE_SHARE || probeOf.has(first.script) ? fresh() : first.script);
    const takeRandom = (coins: Coin[]): Coin => {
      const i = Math.floor(rng.next() * coins.length);
      const coin = coins[i]!;
      coins[i] = coins[coins.length - 1]!;
      coins.pop();
      return coin;
    };

    const sink = new BlockSink(rpc, minerAddress);
    const emit = (inputs: Coin[], outputs: Output[]): void => {
      const { txid, hex, weight, sigops } = signTx(book, inputs, outputs);
      sink.add(hex, weight, sigops);
      counted++;
      stats.built++;
      stats.inputs += inputs.length;
      outputs.forEach((out, vout) => {
        stats.outputs++;
        stats.byType[book.type(out.script)]++;
        const seen = book.received[out.script]! > 0;
        book.received[out.script]!++;
        if (seen) stats.reused++;
        else stats.distinct++;
        if (out.kind === 'payment') {
          stats.payments++;
          if (seen) stats.paymentsReused++;
        } else {
          stats.changes++;
          if (seen) stats.changesReused++;
        }
        const coin: Coin = { txid, vout, value: out.value, script: out.script };
        (probeOf.get(out.script)?.unspent ?? (out.reserve ? reserve : pool)).push(coin);
      });
    };

    // Setup: split the matured coinbases into the first coin pool.
    const coinbases = await coinbaseCoins(node, SETUP_COINBASES, miner);
    // Half of each coinbase to the fan-out payers' reserve, the rest into `split` pool coins.
    const split = Math.max(5, Math.min(500, Math.round(target / 2000)));
    sink.open = true;
    counted++;
    for (const cb of coinbases) {
      const half = cb.value / 2n;
      const each = (cb.value - half) / BigInt(split);
      const outputs: Output[] = [{ script: fresh(), value: cb.value - each * BigInt(split), kind: 'payment', reserve: true }];
      for (let k = 0; k < split; k++) outputs.push({ script: fresh(), value: each, kind: 'payment' });
      emit([cb], outputs);
    }

    const regularEstimate = target - counted - Math.ceil((target - counted) / (BLOCK_TXS * 0.8));
    const schedule = probeSchedule(regularEstimate, entries);
    let lastReport = Date.now();
    let tick = 0;
    // r counts built regular transactions only: the probe schedule is indexed by it.
    for (let r = 0; ; ) {
      if (sink.open && sink.full()) {
        await sink.close();
        if (Date.now() - lastReport > 10_000 || tick++ % 50 === 0) {
          lastReport = Date.now();
          const s = (Date.now() - started) / 1000;
          const rss = Math.round(process.memoryUsage().rss / 2 ** 20);
          progress(
            `scale chain: ${counted}/${target} txs, ${sink.mined} blocks, ${Math.round(stats.built / s)} tx/s, ` +
              `waited for the node ${Math.round(sink.waitedMs / 1000)} s, pool ${pool.length}, scripts ${book.count}, rss ${rss} MB`,
          );
        }
      }
      if (counted >= target) break;
      if (!sink.open) {
        sink.open = true;
        counted++; // its coinbase
        continue;
      }
      const probe = schedule.has(r) ? probes[schedule.get(r)!] : undefined;
      const built = probe ? probeTx(probe) : regularTx();
      emit(built.inputs, built.outputs);
      r++;
    }
    if (sink.open) await sink.close();
    await sink.drain();

    function poolInputs(wanted: number): Coin[] {
      // Keep some coins back so consolidations never empty the pool.
      const n = Math.max(0, Math.min(wanted, pool.length - 60));
      return Array.from({ length: Math.max(n, Math.min(1, pool.length)) }, () => takeRandom(pool));
    }

    function regularTx(): { inputs: Coin[]; outputs: Output[] } {
      const shape = sampleShape(rng);
      if (shape.kind === 'fanout') {
        // Payrolls and exchange withdrawals are paid from a large hot-wallet coin; its change goes back there.
        stats.fanouts++;
        const inputs = [takeRandom(reserve), ...poolInputs(shape.inputs - 1)];
        const outputs = payOut(shape, inputs, undefined);
        const last = outputs[outputs.length - 1]!;
        if (last.kind === 'change') last.reserve = true;
        else reserve.push(...poolInputs(1)); // drained (never at these sizes): lend it a pool coin
        return { inputs, outputs };
      }
      if (shape.kind === 'consolidation') stats.consolidations++;
      const inputs = poolInputs(shape.inputs);
      return { inputs, outputs: payOut(shape, inputs, undefined) };
    }

    function probeTx(probe: Probe): { inputs: Coin[]; outputs: Output[] } {
      probe.events++;
      const shape: TxShape = { kind: 'simple', inputs: 1, payments: 1, change: true };
      if (probeSpends(rng, probe.unspent.length, probe.target, probe.events === probe.entries)) {
        const n = Math.min(probe.unspent.length, rng.int(1, 3));
        const inputs = Array.from({ length: n }, () => takeRandom(probe.unspent));
        if (rng.next() < 0.3) inputs.push(...poolInputs(1));
        return { inputs, outputs: payOut(shape, inputs, undefined) };
      }
      const inputs = poolInputs(rng.int(1, 2));
      return { inputs, outputs: payOut(shape, inputs, probe.script) };
    }

    /**
     * Payment(s) and change for `inputs`, fee zero. Payments have wallet-like sizes (log-uniform
     * amounts) and the change keeps the rest; coins smaller than the drawn payment pay 20-80% of
     * themselves instead, so every output is at least 1 litoshi and change stays the rule.
     */
    function payOut(shape: TxShape, inputs: Coin[], payTo: number | undefined): Output[] {
      const sum = inputs.reduce((a, c) => a + c.value, 0n);
      if (shape.kind === 'consolidation') return [{ script: changeScript(inputs[0]!), value: sum, kind: 'change' }];
      const payments = Math.max(1, Math.min(shape.payments, Number(sum)));
      let amounts = Array.from({ length: payments }, () => logUniform(shape.kind === 'fanout' ? FANOUT_PAYMENT_MAX : PAYMENT_MAX));
      const wanted = amounts.reduce((a, b) => a + b, 0n);
      let total = sum;
      if (shape.change && wanted < sum) total = wanted;
      else if (shape.change && sum > BigInt(payments)) {
        total = (sum * BigInt(200 + Math.floor(rng.next() * 600))) / 1000n;
        if (total < BigInt(payments)) total = BigInt(payments);
      }
      if (total !== wanted) amounts = spread(amounts, wanted, total);
      const outputs: Output[] = amounts.map((value) => ({ script: payTo ?? paymentScript(), value, kind: 'payment' as const }));
      if (total < sum) outputs.push({ script: changeScript(inputs[0]!), value: sum - total, kind: 'change' });
      return outputs;
    }

    /** `total` (>= the count) split in proportion to `amounts`, at least 1 each. */
    function spread(amounts: bigint[], wanted: bigint, total: bigint): bigint[] {
      const spare = total - BigInt(amounts.length);
      let left = total;
      return amounts.map((a, k) => {
        const value = k === amounts.length - 1 ? left : 1n + (spare * a) / wanted;
        left -= value;
        return value;
      });
    }

    function logUniform(max: bigint): bigint {
      return BigInt(Math.floor(1_000 * (Number(max) / 1_000) ** rng.next()));
    }

    // Exactness of the probes is the bench's contract: check before spending time on the rest.
    for (const probe of Object.values(probes)) {
      if (probe.events !== probe.entries) throw new Error(`probe ${probe.name} got ${probe.events} of ${probe.entries} entries: the schedule overran the chain`);
    }
    const buildMs = Date.now() - started;
    const txsPerHeight = await txCounts(rpc);
    const total = txsPerHeight.reduce((a, b) => a + b, 0);
    if (total !== target) throw new Error(`the chain holds ${total} transactions, ${target} were planned`);

    let hottest = 0;
    for (let id = 0; id < book.count; id++) if (book.received[id]! > book.received[hottest]!) hottest = id;
    const share = (part: number, whole: number): number => (whole === 0 ? 0 : Math.round((part / whole) * 10_000) / 10_000);
    const probeInfo = (p: Probe): ProbeInfo => ({
      address: book.address(params, p.script),
      type: book.type(p.script),
      entries: p.events,
      balance: p.unspent.reduce((a, c) => a + c.value, 0n).toString(),
      unspent: p.unspent.length,
    });
    return {
      version: SCALE_VERSION,
      seed,
      txs: total,
      tipHeight: txsPerHeight.length - 1,
      txsPerHeight,
      distinctScripts: stats.distinct,
      outputsByType: stats.byType,
      inputs: stats.inputs,
      outputs: stats.outputs,
      builtTxs: stats.built,
      consolidations: stats.consolidations,
      fanouts: stats.fanouts,
      reuse: {
        outputs: share(stats.reused, stats.outputs),
        payments: share(stats.paymentsReused, stats.payments),
        change: share(stats.changesReused, stats.changes),
      },
      hottest: { address: book.address(params, hottest), outputs: book.received[hottest]! },
      probes: { small: probeInfo(probes.small), large: probeInfo(probes.large) },
      buildMs,
      buildRate: Math.round(stats.built / (buildMs / 1000)),
    };
  } finally {
    rpc.close();
  }
}

/** The miner's coinbase outputs at heights 1..count. */
async function coinbaseCoins(node: RegtestNode, count: number, miner: number): Promise<Coin[]> {
  const coins: Coin[] = [];
  for (let h = 1; h <= count; h++) {
    const hash = await node.rpc.call<string>('getblockhash', [h]);
    const block = await node.rpc.call<{ tx: Array<{ txid: string; vout: Array<{ value: number }> }> }>('getblock', [hash, 2]);
    const cb = block.tx[0];
    const out = cb?.vout[0];
    if (!cb || !out) throw new Error(`no coinbase at height ${h}`);
    coins.push({ txid: Buffer.from(cb.txid, 'hex'), vout: 0, value: coinsToUnits(out.value), script: miner });
  }
  return coins;
}

/** Signs every input by its script type; returns the txid, raw hex, weight and sigop cost. */
function signTx(book: ScriptBook, coins: Coin[], outputs: Output[]): { txid: Uint8Array; hex: string; weight: number; sigops: number } {
  const inputs: TxInput[] = coins.map((c) => ({ prevTxid: c.txid, vout: c.vout, scriptSig: EMPTY, sequence: 0xffffffff }));
  const tx: Tx = { version: 2, inputs, outputs: outputs.map((o) => ({ value: o.value, script: book.scriptPubKey(o.script) })), locktime: 0 };
  let sigops = 0;
  for (const o of outputs) if (book.type(o.script) === 'p2pkh') sigops += 4;
  const sign = (hash: Uint8Array, id: number, k: 0 | 1): Uint8Array => withHashType(signDer(hash, book.privateKey(id, k)), params.hashType);
  coins.forEach((coin, i) => {
    const id = coin.script;
    const input = inputs[i]!;
    switch (book.type(id)) {
      case 'p2pkh': {
        const hash = signatureHash(params, tx, i, { scriptCode: book.scriptPubKey(id) });
        input.scriptSig = compileScript([sign(hash, id, 0), book.pub(id, 0)]);
        break;
      }
      case 'p2sh': {
        const redeem = book.multisig(id);
        const hash = signatureHash(params, tx, i, { scriptCode: redeem });
        input.scriptSig = compileScript([0, sign(hash, id, 0), sign(hash, id, 1), redeem]);
        sigops += 12;
        break;
      }
      case 'p2wpkh': {
        const code = p2pkhScript(book.scriptPubKey(id).subarray(2));
        const hash = bip143Sighash(tx, i, code, coin.value, params.hashType);
        input.witness = [sign(hash, id, 0), book.pub(id, 0)];
        sigops += 1;
        break;
      }
      case 'p2wsh': {
        const ws = book.multisig(id);
        const hash = bip143Sighash(tx, i, ws, coin.value, params.hashType);
        input.witness = [EMPTY, sign(hash, id, 0), sign(hash, id, 1), ws];
        sigops += 3;
        break;
      }
    }
  });
  const base = encodeTx(tx, { witness: false });
  const full = inputs.some((i) => i.witness) ? encodeTx(tx) : base;
  return {
    txid: reverseBytes(sha256d(base)),
    hex: Buffer.from(full.buffer, full.byteOffset, full.length).toString('hex'),
    weight: base.length * 3 + full.length,
    sigops,
  };
}

