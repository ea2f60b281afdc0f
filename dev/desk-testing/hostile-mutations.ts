// The hostile-service bench's mutations (issue 31, part 2): one field of one answer changed at a
// time, found by walking the answer itself (so a field added to the API is covered without a
// list to keep), and a transaction inside an answer walked by its decoded parts. Deterministic:
// the same answer always gives the same mutations in the same order. Pure.
import { bytesToHex, decodeTx, encodeTx, hexToBytes } from '../../shared/coins/index.ts';
import type { BitcoinTx } from '../../shared/coins/tx.ts';

export type JsonPath = readonly (string | number)[];

export interface Mutation {
  /** Where, indices written [] so that a table groups alike fields: "inputs[].sequence". */
  field: string;
  /** Where exactly and what was done: "inputs[1].sequence 0xfffffffd -> 0xfffffffc". */
  what: string;
  /** The mutated copy of the whole value (the input is never changed). */
  apply(value: unknown): unknown;
}

/** `--full` adds more values per field (amounts at zero, both neighbours, far locks, dropped and doubled items). */
export interface MutationOptions {
  full: boolean;
}

const HEX = /^(0x)?([0-9a-fA-F]{2})+$/;

const fieldOf = (path: JsonPath): string => path.map((p) => (typeof p === 'number' ? '[]' : `.${p}`)).join('').replace(/^\./, '') || '(answer)';
const whereOf = (path: JsonPath): string => path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${p}`)).join('').replace(/^\./, '') || '(answer)';
const shownValue = (v: unknown): string => {
  const s = typeof v === 'bigint' ? `${v}n` : typeof v === 'string' ? v : JSON.stringify(v);
  return s.length > 24 ? `${s.slice(0, 10)}…${s.slice(-10)}` : s;
};

/** A copy of `root` with the value at `path` replaced by `f(old)`, or removed when `f` returns REMOVE. */
export const REMOVE = Symbol('remove');
export function replaceAt(root: unknown, path: JsonPath, f: (old: unknown) => unknown): unknown {
  if (path.length === 0) return f(root);
  const [head, ...rest] = path;
  if (Array.isArray(root)) {
    const copy = [...root];
    const next = replaceAt(copy[head as number], rest, f);
    if (next === REMOVE) copy.splice(head as number, 1);
    else copy[head as number] = next;
    return copy;
  }
  const copy = { ...(root as Record<string, unknown>) };
  const next = replaceAt(copy[head as string], rest, f);
  if (next === REMOVE) delete copy[head as string];
  else copy[head as string] = next;
  return copy;
}

/** The string one character away (the same class of character), so an address or a word stays its shape. */
function nudgeText(s: string): string {
  if (s.length === 0) return 'x';
  const last = s[s.length - 1]!;
  const next = /[0-8a-yA-Y]/.test(last) ? String.fromCharCode(last.charCodeAt(0) + 1) : last === '9' ? '0' : last === 'z' ? 'a' : last === 'Z' ? 'A' : `${last}x`;
  return s.slice(0, -1) + next;
}

/** The last hex digit flipped (0x and case kept). */
function flipHex(s: string): string {
  const last = s[s.length - 1]!;
  const flipped = (parseInt(last, 16) ^ 1).toString(16);
  return s.slice(0, -1) + (last === last.toUpperCase() ? flipped.toUpperCase() : flipped);
}

/** The transaction a hex string holds, when it is one that encodes back to the same bytes. */
export function txOfHex(s: string): BitcoinTx | null {
  if (!HEX.test(s) || s.length < 120) return null;
  try {
    const bytes = hexToBytes(s.replace(/^0x/i, ''));
    const tx = decodeTx(bytes);
    return bytesToHex(encodeTx(tx)) === bytesToHex(bytes) ? tx : null;
  } catch {
    return null;
  }
}

const flipByte = (b: Uint8Array, at = b.length - 1): Uint8Array => {
  const c = Uint8Array.from(b);
  c[at] = c[at]! ^ 1;
  return c;
};

interface TxMutation {
  field: string;
  what: string;
  edit(tx: BitcoinTx): BitcoinTx;
}

/**
 * Every part of a transaction, changed one at a time: version, locktime, each input's outpoint,
 * nSequence, scriptSig and witness items (a vault's placeholder: its witness data and script), each
 * output's amount and script.
 */
export function txMutations(tx: BitcoinTx, options: MutationOptions): TxMutation[] {
  const out: TxMutation[] = [];
  const at = (field: string, what: string, edit: (t: BitcoinTx) => BitcoinTx) => out.push({ field, what, edit });
  const versions = options.full ? [tx.version + 1, tx.version === 1 ? 2 : 1] : [tx.version + 1];
  for (const v of versions) at('version', `version ${tx.version} -> ${v}`, (t) => ({ ...t, version: v }));
  // A past height (final at once, yet another hash), and in full: a future height and a date in 2100.
  const locks = options.full ? [tx.locktime + 1, tx.locktime + 100_000, 4_102_444_800] : [tx.locktime + 1];
  for (const l of locks) at('locktime', `locktime ${tx.locktime} -> ${l}`, (t) => ({ ...t, locktime: l }));
  const input = (i: number, f: (x: BitcoinTx['inputs'][number]) => BitcoinTx['inputs'][number]) => (t: BitcoinTx): BitcoinTx => ({ ...t, inputs: t.inputs.map((x, j) => (j === i ? f(x) : x)) });
  tx.inputs.forEach((inp, i) => {
    at('inputs[].txid', `input ${i}'s txid, one bit flipped`, input(i, (x) => ({ ...x, prevTxid: flipByte(x.prevTxid, 0) })));
    at('inputs[].vout', `input ${i}'s vout ${inp.vout} -> ${inp.vout + 1}`, input(i, (x) => ({ ...x, vout: x.vout + 1 })));
    // One below: from final to the locktime-enabling 0xfffffffe, from replaceable to a relative-lock-free lower value, from older(n) to n-1.
    const seqs = options.full ? [inp.sequence - 1, 0x0000ffff, 0x00400000 | 0xffff, 0xffffffff] : [inp.sequence === 0 ? 1 : inp.sequence - 1];
    for (const s of seqs.filter((s) => s !== inp.sequence && s >= 0)) at('inputs[].sequence', `input ${i}'s sequence 0x${inp.sequence.toString(16)} -> 0x${(s >>> 0).toString(16)}`, input(i, (x) => ({ ...x, sequence: s >>> 0 })));
    if (inp.scriptSig.length > 0) at('inputs[].scriptSig', `input ${i}'s scriptSig, last byte flipped`, input(i, (x) => ({ ...x, scriptSig: flipByte(x.scriptSig) })));
    (inp.witness ?? []).forEach((item, k) => {
      if (item.length > 0) at('inputs[].witness[]', `input ${i}'s witness item ${k}, last byte flipped`, input(i, (x) => ({ ...x, witness: x.witness!.map((w, j) => (j === k ? flipByte(w) : w)) })));
    });
  });
  const output = (i: number, f: (x: BitcoinTx['outputs'][number]) => BitcoinTx['outputs'][number]) => (t: BitcoinTx): BitcoinTx => ({ ...t, outputs: t.outputs.map((x, j) => (j === i ? f(x) : x)) });
  tx.outputs.forEach((o, i) => {
    at('outputs[].amount', `output ${i}'s amount ${o.value} -> ${o.value + 1n}`, output(i, (x) => ({ ...x, value: x.value + 1n })));
    if (options.full && o.value > 0n) at('outputs[].amount', `output ${i}'s amount ${o.value} -> ${o.value - 1n}`, output(i, (x) => ({ ...x, value: x.value - 1n })));
    at('outputs[].script', `output ${i}'s script, last byte flipped`, output(i, (x) => ({ ...x, script: flipByte(x.script) })));
  });
  if (options.full) {
    if (tx.inputs.length > 1) at('inputs', 'the last input dropped', (t) => ({ ...t, inputs: t.inputs.slice(0, -1) }));
    if (tx.outputs.length > 1) at('outputs', 'the last output dropped', (t) => ({ ...t, outputs: t.outputs.slice(0, -1) }));
    at('outputs', 'the first output paid twice', (t) => ({ ...t, outputs: [...t.outputs, t.outputs[0]!] }));
  }
  return out;
}

/** The hex of a mutated transaction, written as the original was (0x, case). */
export function txHexLike(original: string, tx: BitcoinTx): string {
  const hex = bytesToHex(encodeTx(tx));
  const body = original.replace(/^0x/i, '');
  const cased = body === body.toUpperCase() && /[A-F]/.test(body) ? hex.toUpperCase() : hex;
  return (original.match(/^0x/i)?.[0] ?? '') + cased;
}

/**
 * Every one-field mutation of a JSON value: each leaf changed (a number or amount up by one, a flag
 * negated, a text one character away, hex one bit away, a transaction by each of its parts), each
 * object's key removed, each array's last item dropped. `prefix` names the answer in the field.
 */
export function jsonMutations(value: unknown, options: MutationOptions, prefix = ''): Mutation[] {
  const out: Mutation[] = [];
  const name = (path: JsonPath, sub = '') => `${prefix}${fieldOf(path)}${sub}`;
  const leaf = (path: JsonPath, v: unknown, to: unknown, what = `${shownValue(v)} -> ${shownValue(to)}`) =>
    out.push({ field: name(path), what: `${whereOf(path)} ${what}`, apply: (root) => replaceAt(root, path, () => to) });
  const walk = (v: unknown, path: JsonPath): void => {
    if (Array.isArray(v)) {
      v.forEach((x, i) => walk(x, [...path, i]));
      if (v.length > 0) out.push({ field: name(path, '[] (dropped)'), what: `${whereOf(path)}: the last of ${v.length} items dropped`, apply: (root) => replaceAt(root, [...path, v.length - 1], () => REMOVE) });
      if (options.full && v.length > 0) out.push({ field: name(path, '[] (doubled)'), what: `${whereOf(path)}: the first item given twice`, apply: (root) => replaceAt(root, path, (old) => [...(old as unknown[]), (old as unknown[])[0]]) });
      return;
    }
    if (v !== null && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        walk(x, [...path, k]);
        out.push({ field: name([...path, k], ' (removed)'), what: `${whereOf([...path, k])} removed`, apply: (root) => replaceAt(root, [...path, k], () => REMOVE) });
      }
      return;
    }
    if (typeof v === 'bigint') {
      // Both ways: an amount listed short and one listed long are different lies (a send-all takes its amount from the listing).
      for (const to of (options.full ? [v + 1n, v - 1n, 0n] : [v + 1n, v - 1n]).filter((t) => t !== v && t >= 0n)) leaf(path, v, to);
    } else if (typeof v === 'number') {
      leaf(path, v, v + 1);
      // Zero always: a count or a height at zero is the likeliest lie (a confirmed transaction said unconfirmed).
      for (const to of (options.full ? [v - 1, 0] : [0]).filter((t) => t !== v && t >= 0)) leaf(path, v, to);
    } else if (typeof v === 'boolean') {
      leaf(path, v, !v);
    } else if (typeof v === 'string') {
      const tx = txOfHex(v);
      if (tx) {
        for (const m of txMutations(tx, options)) {
          out.push({ field: `${name(path)}: ${m.field}`, what: `${whereOf(path)}: ${m.what}`, apply: (root) => replaceAt(root, path, () => txHexLike(v, m.edit(tx))) });
        }
      } else if (HEX.test(v)) {
        leaf(path, v, flipHex(v), 'last hex digit flipped');
      } else {
        leaf(path, v, nudgeText(v));
      }
    } else if (v === null && options.full) {
      leaf(path, v, 0);
    }
  };
  walk(value, []);
  return out;
}
