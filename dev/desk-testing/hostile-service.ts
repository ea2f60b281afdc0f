// The hostile-service bench (issue 31, part 2): the real service on litecoind -regtest behind a
// fetch that hands the desk's ApiClient every answer, so the client parses each one exactly as it
// parses the wire. For each spend kind the desk runs once honestly (every answer recorded), then once
// per mutation: one field of one answer changed (jsonMutations), the same lie told every time that
// request is asked. Each run starts from the same copy of the desk's store, and requests the honest
// run made are answered from its record (the chain does not move during the runs), so a mutation
// costs the desk's own work only. A run ends "refused" (a refusal in words, and nothing stored whose
// hashes are not the honest ones), "identical" (what the co-signer signs, what is stored and shown,
// and the PSBT are the honest run's, byte for byte) or "other". The co-signer's own check of a
// signing request file is run the same way on the file's fields.
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ApiClient, ApiClientError } from '../../shared/api/client.ts';
import { parseApiJson, stringifyApiJson } from '../../shared/api/json.ts';
import { bytesToHex, chainParams, decodeTx, hexToBytes } from '../../shared/coins/index.ts';
import { PaymentCheckError } from '../../shared/files/errors.ts';
import { paymentHash } from '../../shared/files/signing-files.ts';
import { CoordinatorError } from '../../main/core/errors.ts';
import { proposeCpfp } from '../../main/core/payments/cpfp.ts';
import { batchProposal, proposePayment } from '../../main/core/payments/propose.ts';
import type { Recipient } from '../../main/core/payments/batch.ts';
import { exportPsbt } from '../../main/core/payments/psbt-exchange.ts';
import { proposeBump, proposeCancel } from '../../main/core/payments/replace.ts';
import { writeSigningRequest } from '../../main/core/payments/signing-request.ts';
import { proposeTreasurySpend } from '../../main/core/payments/spend.ts';
import { signRequest } from '../../main/core/software-signer.ts';
import { openStore, type CoordinatorStore, type PaymentRow } from '../../main/core/store/store.ts';
import { proposeRefresh } from '../../main/core/vaults/refresh.ts';
import { createVault } from '../../main/core/vaults/vaults.ts';
import type { CoreDeps } from '../../main/core/wallets/wallets.ts';
import { testCosigner, treasuryVault, type TestCosigner } from './keys.ts';
import { jsonMutations, type Mutation, type MutationOptions } from './hostile-mutations.ts';
import { psbtMutations, signPsbt } from './hostile-psbt.ts';
import { importPaymentFiles } from '../../main/core/payments/files.ts';
import { fundWalletCoin, signAndSend, startWalletDesk, type WalletDesk } from './regtest.ts';

export type Outcome = 'refused' | 'identical' | 'other';

export interface MutationResult {
  kind: string;
  /** The answer and field: "multi_sig/create tx: locktime". */
  field: string;
  /** Exactly what was changed. */
  what: string;
  outcome: Outcome;
  /** The refusal's words, or what made it "other". */
  detail: string;
}

const COIN = 100_000_000n;
const params = chainParams('litecoin', 'regtest');
// Signature files carry a date: one fixed instant, so the honest run and every other compare byte for byte.
const SIGNED_AT = new Date('2026-01-01T00:00:00Z');
const [alice, bob, dave] = [testCosigner('alice'), testCosigner('bob'), testCosigner('dave')];

/** What the desk produced in a run, compared field by field with the honest run's. */
interface Produced {
  /** Stored as awaiting signatures: every (input, key, hash). */
  storedHashes: string;
  /** What the treasurer is shown (recipients, amounts, fee) and, for a child, its package. */
  shown: string;
  /** The co-signer's signature file's signatures (over the hashes it recomputed from the request). */
  signed: string;
  psbt: string;
}

// ---- the proxy ------------------------------------------------------------------------------------

interface Answer {
  status: number;
  text: string;
}

/** The answers the desk read, by request, in the order first asked: what a kind's mutations walk. */
type Recording = Map<string, { endpoint: string; answer: Answer }>;

/** The endpoint of a request path, without coin and addresses: "address/utxos", "multi_sig/create", "status". */
function endpointOf(pathname: string): string {
  const parts = pathname.split('/').filter(Boolean);
  return parts.length <= 2 && !['address', 'transaction', 'multi_sig'].includes(parts[0] ?? '') ? (parts[0] ?? '') : parts.slice(0, 2).join('/');
}

/** A lie: one mutation of the answer to one request, and the digests restated to fit it. */
interface Lie {
  key: string;
  mutation: Mutation;
  /** Hashes to sign the service restates (input, key, hash) once the desk names the one it computes. */
  hashes: { input: number; key: string; hash: string }[];
}

/**
 * The answer as the lie tells it. A service that changes its transaction restates what follows
 * from it, as a careful attacker would: the fee it says the transaction pays, and (once the desk
 * names them) the hashes to sign; so the desk must refuse the change itself, not a stale figure.
 */
function told(lie: Lie, honest: unknown): unknown {
  const answer = lie.mutation.apply(honest);
  if (!isCreated(honest) || !isCreated(answer) || answer.tx === honest.tx) return answer;
  let fee = answer.miners_fee;
  try {
    const paid = (hex: string) => decodeTx(hexToBytes(hex.replace(/^0x/i, ''))).outputs.reduce((sum, o) => sum + o.value, 0n);
    if (typeof fee === 'bigint') fee += paid(honest.tx) - paid(answer.tx);
  } catch {
    // a transaction that does not decode: nothing follows from it
  }
  const hashes = answer.hashes.map((h) => {
    const restated = lie.hashes.find((x) => x.input === h.input_index && x.key === String(h.public_key).replace(/^0x/i, '').toLowerCase());
    return restated ? { ...h, hash_to_sign: restated.hash } : h;
  });
  return { ...answer, ...(fee !== undefined ? { miners_fee: fee } : {}), hashes };
}

interface Created {
  tx: string;
  miners_fee?: bigint;
  hashes: { input_index: number; public_key: string; hash_to_sign: string }[];
}
const isCreated = (v: unknown): v is Created => v !== null && typeof v === 'object' && 'tx' in v && typeof v.tx === 'string' && 'hashes' in v && Array.isArray(v.hashes);

/** The hash the desk computes where the service's differs, read from its refusal: what a careful liar restates. */
function computedHash(err: unknown): { input: number; key: string; hash: string } | null {
  const m = err instanceof Error ? /the hash of input (\d+) for key (?:0x)?([0-9a-fA-F]+) is \S+, this app computes ([0-9a-f]{64})/.exec(err.message) : null;
  return m ? { input: Number(m[1]), key: m[2]!.toLowerCase(), hash: m[3]! } : null;
}

class HostileFetch {
  private readonly answers = new Map<string, Answer>();
  recording: Recording | null = null;
  lie: Lie | null = null;

  readonly fetch: typeof fetch = async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const method = init?.method ?? 'GET';
    const key = `${method} ${url.pathname}${url.search} ${typeof init?.body === 'string' ? init.body : ''}`;
    let answer = this.answers.get(key);
    if (!answer) {
      if (method === 'POST' && url.pathname.includes('sign_and_send')) throw new Error('the bench never sends a transaction');
      const res = await fetch(input, init);
      answer = { status: res.status, text: await res.text() };
      this.answers.set(key, answer);
    }
    if (this.recording && !this.recording.has(key)) this.recording.set(key, { endpoint: endpointOf(url.pathname), answer });
    let text = answer.text;
    if (this.lie?.key === key) text = stringifyApiJson(told(this.lie, parseApiJson(text)));
    return new Response(text, { status: answer.status, headers: { 'content-type': 'application/json' } });
  };
}

// ---- the set-up ---------------------------------------------------------------------------------

interface SpendKind {
  name: string;
  walletId: string;
  /** Signs the request file: a key of the path spent. */
  signer: TestCosigner;
  propose(deps: CoreDeps): Promise<{ payment: PaymentRow; shown?: string }>;
}

export interface HostileBench {
  kinds: readonly SpendKind[];
  run(options: MutationOptions & { kinds?: readonly string[]; requestFiles?: boolean; psbts?: boolean; progress?: (line: string) => void }): Promise<MutationResult[]>;
  dispose(): Promise<void>;
}

/**
 * One litecoind and one service for every kind: a 2-of-3 P2SH wallet with coins for a payment, a
 * batch of 50 and a replaceable payment left unconfirmed (bumped, cancelled, pulled by a child), and
 * issue 27's recovery vault with coins whose recovery path is open (144 blocks mined).
 */
export async function startHostileBench(): Promise<HostileBench> {
  const fixture: WalletDesk = await startWalletDesk('Treasury');
  try {
    return await setUp(fixture);
  } catch (err) {
    await fixture.dispose();
    throw err;
  }
}

async function setUp(fixture: WalletDesk): Promise<HostileBench> {
  const { desk, deps, walletId } = fixture;
  const vaultId = (await createVault(deps, treasuryVault())).id;
  const outpoint = (c: { txid: string; vout: number }) => `${c.txid}:${c.vout}`;
  const paymentCoin = await fundWalletCoin(desk, deps, walletId, 3n * COIN);
  const batchCoin = await fundWalletCoin(desk, deps, walletId, 2n * COIN);
  const stuckCoin = await fundWalletCoin(desk, deps, walletId, 2n * COIN);
  const vaultCoins = [await fundWalletCoin(desk, deps, vaultId, 2n * COIN), await fundWalletCoin(desk, deps, vaultId, COIN), await fundWalletCoin(desk, deps, vaultId, COIN)];
  // The recovery path opens 144 blocks after a coin's block.
  await desk.mine(144);
  const to = await desk.node.newAddress('bech32');
  const recipients: Recipient[] = [];
  for (let i = 0; i < 50; i++) recipients.push({ to: await desk.node.newAddress(i % 2 === 0 ? 'bech32' : 'legacy'), amount: 1_000_000n + BigInt(i) });
  // A replaceable payment at 1 unit/vbyte, broadcast and left unconfirmed: bumped, cancelled, its change pulled by a child.
  const proposed = await proposeTreasurySpend(deps, walletId, { to: await desk.node.newAddress('legacy'), amount: COIN / 2n, inputs: [stuckCoin], fee: { rate: 1n }, replaceable: true, kind: 'payment' });
  const stuck = (await signAndSend(deps, proposed, [alice, bob])).payment;
  await desk.synced();
  const stuckChange = decodeTx(stuck.unsignedTx, params).outputs.length - 1;

  const kinds: SpendKind[] = [
    { name: 'payment', walletId, signer: alice, propose: async (d) => ({ payment: await proposePayment(d, walletId, { to, amount: COIN / 2n, minersFee: 0n, feeRate: 5n, inputs: [outpoint(paymentCoin)] }) }) },
    { name: 'batch of 50', walletId, signer: alice, propose: async (d) => ({ payment: await proposePayment(d, walletId, { ...batchProposal(recipients, 0n), feeRate: 5n, inputs: [outpoint(batchCoin)] }) }) },
    { name: 'bump', walletId, signer: alice, propose: async (d) => ({ payment: await proposeBump(d, stuck.id, 20n) }) },
    { name: 'cancel', walletId, signer: alice, propose: async (d) => ({ payment: await proposeCancel(d, stuck.id, 20n) }) },
    {
      name: 'CPFP',
      walletId,
      signer: alice,
      propose: async (d) => {
        const { payment, package: pkg } = await proposeCpfp(d, walletId, { txid: stuck.txid!, vout: stuckChange }, 30n);
        // The package's figures; not `leftOut`, the words naming what the service called unconfirmed and nothing proved (a warning of the lie, not a figure).
        const { leftOut: _, ...figures } = pkg;
        return { payment, shown: stringifyApiJson(figures) };
      },
    },
    { name: 'vault primary path', walletId: vaultId, signer: alice, propose: async (d) => ({ payment: await proposePayment(d, vaultId, { to, amount: COIN / 2n, minersFee: 0n, feeRate: 3n, inputs: [outpoint(vaultCoins[0]!)] }) }) },
    { name: 'vault recovery path', walletId: vaultId, signer: dave, propose: async (d) => ({ payment: await proposePayment(d, vaultId, { to, amount: COIN / 2n, minersFee: 0n, feeRate: 3n, inputs: [outpoint(vaultCoins[1]!)], vaultPath: 144 }) }) },
    { name: 'refresh', walletId: vaultId, signer: alice, propose: async (d) => ({ payment: await proposeRefresh(d, vaultId, { outpoints: [outpoint(vaultCoins[2]!)], feeRate: 3n }) }) },
  ];

  // Every run starts from this copy of the store (after close: the WAL is folded into the file).
  fixture.store.close();
  const snapshot = join(desk.dir, 'desk.sqlite');
  // The runs' stores in memory where the machine has a tmpfs: each run commits with fsync (synchronous=FULL), thousands of times.
  const runDir = existsSync('/dev/shm') ? mkdtempSync('/dev/shm/countersign-hostile-') : desk.dir;
  const hostile = new HostileFetch();
  const api = new ApiClient({ baseUrl: desk.url, fetch: hostile.fetch });
  let runs = 0;
  const withStore = async <T>(f: (deps: CoreDeps) => Promise<T>, from = snapshot): Promise<T> => {
    const path = join(runDir, `run-${runs++}.sqlite`);
    copyFileSync(from, path);
    const store = openStore(path);
    try {
      return await f({ store, api, actor: 'treasurer' });
    } finally {
      store.close();
      for (const end of ['', '-wal', '-shm']) rmSync(`${path}${end}`, { force: true });
    }
  };

  return {
    kinds,
    run: async (options) => {
      const results: MutationResult[] = [];
      for (const kind of kinds.filter((k) => !options.kinds || options.kinds.includes(k.name))) {
        const recording: Recording = new Map();
        hostile.recording = recording;
        const honest = await withStore((d) => produce(kind, d));
        hostile.recording = null;
        if (!honest.ok) throw new Error(`the honest ${kind.name} failed: ${describe(honest.error)}`);
        // Once more, answered from the record: a bench that is not deterministic would call noise "other".
        const again = await withStore((d) => produce(kind, d));
        const drift = again.ok ? difference(honest.produced, again.produced) : describe(again.error);
        if (drift) throw new Error(`the honest ${kind.name} is not reproducible: ${drift}`);
        const mutations = [...recording].flatMap(([key, { endpoint, answer }]) => (answer.status === 200 ? jsonMutations(parseApiJson(answer.text), options, `${endpoint} `).map((mutation) => ({ key, mutation })) : []));
        options.progress?.(`${kind.name}: ${mutations.length} mutations of ${recording.size} answers`);
        for (const { key, mutation } of mutations) {
          const lie: Lie = { key, mutation, hashes: [] };
          hostile.lie = lie;
          let run;
          for (;;) {
            run = await withStore(async (d) => ({ ...(await produce(kind, d)), stored: storedHashes(d.store, kind.walletId) }));
            const restate = run.ok ? null : computedHash(run.error);
            if (!restate || lie.hashes.length > 64) break;
            lie.hashes.push(restate);
          }
          hostile.lie = null;
          results.push({ kind: kind.name, field: mutation.field, what: mutation.what, ...judge(honest.produced, run) });
        }
        if (options.requestFiles !== false) results.push(...requestFileResults(kind, honest.request, honest.produced.signed, options));
        if (options.psbts !== false) {
          // The store as an honest proposal leaves it (the payment awaiting signatures): each PSBT is imported into a copy of it.
          const base = join(runDir, `psbt-base-${runs++}.sqlite`);
          copyFileSync(snapshot, base);
          const store = openStore(base);
          const proposed = await produce(kind, { store, api, actor: 'treasurer' }).finally(() => store.close());
          if (!proposed.ok) throw new Error(`the honest ${kind.name} failed: ${describe(proposed.error)}`);
          results.push(...(await psbtResults(kind, proposed.paymentId, proposed.produced.psbt, (f) => withStore(f, base), options)));
          rmSync(base, { force: true });
        }
      }
      return results;
    },
    dispose: async () => {
      if (runDir !== desk.dir) rmSync(runDir, { recursive: true, force: true });
      await desk.dispose();
    },
  };
}

type Run = { ok: true; produced: Produced; request: string; paymentId: string } | { ok: false; error: unknown; stage: string };

/** The kind's whole way to the co-signer: proposed and stored, its request written and signed, its PSBT written. */
async function produce(kind: SpendKind, deps: CoreDeps): Promise<Run> {
  let stage = 'proposal';
  try {
    const { payment, shown = '' } = await kind.propose(deps);
    stage = 'signing request';
    const request = await writeSigningRequest(deps, payment.id);
    const signature = JSON.parse(signRequest(request, { xprv: kind.signer.accountXprv }, SIGNED_AT).file) as { signatures: unknown };
    stage = 'PSBT';
    const psbt = (await exportPsbt(deps, payment.id)).base64;
    const recipients = deps.store.paymentRecipients(payment.id).map((r) => `${r.address}=${r.amount}`);
    return {
      ok: true,
      request,
      paymentId: payment.id,
      produced: {
        storedHashes: storedHashes(deps.store, kind.walletId),
        shown: stringifyApiJson({ to: payment.to, amount: payment.amount, minersFee: payment.minersFee, totalInputValue: payment.totalInputValue, operatorFee: payment.operatorFee, kind: payment.kind, recipients, shown }),
        signed: JSON.stringify(signature.signatures),
        psbt,
      },
    };
  } catch (error) {
    return { ok: false, error, stage };
  }
}

/** Every hash stored awaiting signatures for the wallet's payments not yet signed (the set-up's are all sent). */
function storedHashes(store: CoordinatorStore, walletId: string): string {
  return store
    .payments(walletId)
    .filter((p) => p.state === 'awaiting_signatures')
    .flatMap((p) => store.paymentHashes(p.id).map((h) => `${h.inputIndex}:${bytesToHex(h.publicKey)}:${bytesToHex(h.hash)}`))
    .sort()
    .join(',');
}

const PRODUCED_WORDS: Record<keyof Produced, string> = {
  storedHashes: 'the hashes stored awaiting signatures',
  shown: 'what the treasurer is shown',
  signed: "the co-signer's signatures",
  psbt: 'the PSBT',
};

/** The first way `run` differs from `honest`, in words; null when byte-identical. */
function difference(honest: Produced, run: Produced): string | null {
  for (const k of Object.keys(PRODUCED_WORDS) as (keyof Produced)[]) if (honest[k] !== run[k]) return `${PRODUCED_WORDS[k]} differ from the honest run's`;
  return null;
}

// A refusal a treasurer reads: the desk's or the check's own error, not a programming error's text.
const BARE = /\b(TypeError|RangeError|SyntaxError|ReferenceError|Cannot read propert|is not a function|is not iterable|undefined|NaN|\[object Object\])|\n\s+at /;

function describe(err: unknown): string {
  return err instanceof Error ? `${err.name}: ${err.message}` : String(err);
}

function inWords(err: unknown): boolean {
  return (err instanceof CoordinatorError || err instanceof ApiClientError || err instanceof PaymentCheckError) && err.message.trim() !== '' && !BARE.test(err.message);
}

function judge(honest: Produced, run: Run & { stored: string }): { outcome: Outcome; detail: string } {
  if (run.ok) {
    const diff = difference(honest, run.produced);
    return diff ? { outcome: 'other', detail: `accepted: ${diff}` } : { outcome: 'identical', detail: '' };
  }
  if (!inWords(run.error)) return { outcome: 'other', detail: `at the ${run.stage}, not a refusal in words: ${describe(run.error)}` };
  // Refused after the proposal stored a payment: only harmless if what it stored is the honest payment.
  if (run.stage !== 'proposal' && run.stored !== honest.storedHashes) return { outcome: 'other', detail: `stored a payment with other hashes, refused only at the ${run.stage}: ${describe(run.error)}` };
  return { outcome: 'refused', detail: (run.error as Error).message };
}

// ---- the co-signer's check of a request file ------------------------------------------------------

/**
 * The signing request file of `kind`, one field at a time, as the co-signer's own check reads it.
 * A transaction changed in the file comes with the digests an attacker would recompute (its
 * payment_hash, and each input's stated hash once the check names the one it computes), so the
 * check must refuse the change itself, not a stale digest beside it.
 */
function requestFileResults(kind: SpendKind, request: string, honestSigned: string, options: MutationOptions): MutationResult[] {
  const honest = JSON.parse(request) as { unsigned_tx: string };
  return jsonMutations(honest, options, 'request file ').map((m): MutationResult => {
    const file = m.apply(honest) as Record<string, unknown> & { unsigned_tx?: unknown; payment_hash?: unknown; inputs?: { hash?: unknown }[] };
    if (typeof file.unsigned_tx === 'string' && file.unsigned_tx !== honest.unsigned_tx && file.payment_hash !== undefined) {
      try {
        file.payment_hash = paymentHash(hexToBytes(file.unsigned_tx));
      } catch {
        // not hex: the check refuses the transaction itself
      }
    }
    const result = (outcome: Outcome, detail: string): MutationResult => ({ kind: `${kind.name}: co-signer's request check`, field: m.field, what: m.what, outcome, detail });
    for (let attempt = 0; ; attempt++) {
      try {
        const signed = JSON.stringify((JSON.parse(signRequest(JSON.stringify(file, null, 2), { xprv: kind.signer.accountXprv }, SIGNED_AT).file) as { signatures: unknown }).signatures);
        return signed === honestSigned ? result('identical', '') : result('other', 'signed other hashes than the honest request');
      } catch (err) {
        const stale = err instanceof Error ? /input (\d+)'s hash is [0-9a-f]*, the transaction gives ([0-9a-f]{64})/.exec(err.message) : null;
        const entry = stale ? file.inputs?.[Number(stale[1])] : undefined;
        if (stale && entry && attempt < 64) {
          entry.hash = stale[2];
          continue;
        }
        return inWords(err) ? result('refused', (err as Error).message) : result('other', `not a refusal in words: ${describe(err)}`);
      }
    }
  });
}

// ---- the desk's check of a co-signer's PSBT ------------------------------------------------------

/** A payment's stored signatures, without when they were stored. */
function signaturesOf(store: CoordinatorStore, paymentId: string): string {
  return store
    .signatures(paymentId)
    .map((s) => `${s.inputIndex}:${bytesToHex(s.publicKey)}:${bytesToHex(s.signature)}`)
    .sort()
    .join(',');
}

/**
 * The kind's PSBT signed by its co-signer in another wallet, imported back one change at a time
 * (psbtMutations): refused in words, or exactly the honest import's signatures stored.
 */
async function psbtResults(kind: SpendKind, paymentId: string, psbt: string, withBase: <T>(f: (deps: CoreDeps) => Promise<T>) => Promise<T>, options: MutationOptions): Promise<MutationResult[]> {
  const signed = signPsbt(params, psbt, kind.signer.masterXprv);
  const importing = (text: string) =>
    withBase(async (d) => {
      const [result] = importPaymentFiles(d, [{ name: 'cosigner.psbt', text }]);
      return { result: result!, signatures: signaturesOf(d.store, paymentId) };
    });
  const honest = await importing(signed);
  if (honest.result.status !== 'imported') throw new Error(`the honest PSBT of the ${kind.name} was not imported: ${honest.result.message}`);
  const results: MutationResult[] = [];
  for (const m of psbtMutations(signed, options)) {
    const result = (outcome: Outcome, detail: string): MutationResult => ({ kind: `${kind.name}: co-signer's PSBT`, field: m.field, what: m.what, outcome, detail });
    try {
      const run = await importing(m.base64);
      if (run.result.status === 'imported') results.push(run.signatures === honest.signatures ? result('identical', '') : result('other', 'stored other signatures than the honest PSBT'));
      else if (run.signatures !== '') results.push(result('other', `not imported, yet signatures are stored: ${run.result.message}`));
      else if (run.result.message.trim() === '' || BARE.test(run.result.message)) results.push(result('other', `not a refusal in words: ${run.result.message}`));
      else results.push(result('refused', run.result.message));
    } catch (err) {
      results.push(result('other', `threw: ${describe(err)}`));
    }
  }
  return results;
}

// ---- the table ------------------------------------------------------------------------------------

/** Kind x field: refused / identical / other, with the totals; then every "other" named. */
export function hostileTable(results: readonly MutationResult[]): string {
  const rows = new Map<string, Record<Outcome, number>>();
  for (const r of results) {
    const key = `${r.kind}\t${r.field}`;
    const row = rows.get(key) ?? { refused: 0, identical: 0, other: 0 };
    row[r.outcome]++;
    rows.set(key, row);
  }
  const kindWidth = Math.max(4, ...results.map((r) => r.kind.length));
  const fieldWidth = Math.max(5, ...results.map((r) => r.field.length));
  const line = (k: string, f: string, a: string, b: string, c: string) => `${k.padEnd(kindWidth)}  ${f.padEnd(fieldWidth)}  ${a.padStart(7)}  ${b.padStart(9)}  ${c.padStart(5)}`;
  const out = [line('kind', 'field', 'refused', 'identical', 'other'), '-'.repeat(kindWidth + fieldWidth + 31)];
  for (const [key, row] of rows) {
    const [k, f] = key.split('\t') as [string, string];
    out.push(line(k, f, String(row.refused), String(row.identical), String(row.other)));
  }
  const count = (o: Outcome) => results.filter((r) => r.outcome === o).length;
  out.push('-'.repeat(kindWidth + fieldWidth + 31), line('total', `${results.length} mutations`, String(count('refused')), String(count('identical')), String(count('other'))));
  const others = results.filter((r) => r.outcome === 'other');
  if (others.length > 0) out.push('', 'other:', ...others.map((r) => `  ${r.kind} | ${r.what} | ${r.detail}`));
  return out.join('\n');
}
