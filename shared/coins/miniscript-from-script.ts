// Reads a P2WSH witness script back as the miniscript it was compiled from, so multi_sig/create can
// take a vault as its witness script alone (docs/api-decisions.md, section 12). Our own code:
// @bitcoinerlab/miniscript compiles and satisfies but has no script-to-miniscript reader. The
// reading is a guess checked whole: the miniscript found is compiled again by the library and must
// give back exactly the script's bytes, else the script is refused. It reads the fragments the
// spend extension serves (pk, multi, older, thresh, the and/or combinators and wrappers), from the
// script's end as the compiled forms are postfix; pkh() is refused (its key is behind a hash).
import { bytesToHex, equalBytes } from './bytes.ts';
import { CoinError } from './errors.ts';
import { type CompiledMiniscript, compileWshMiniscript } from './miniscript-spend.ts';
import { decodeScript, type ScriptChunk, smallIntValue } from './script.ts';

const OP = {
  IF: 0x63,
  NOTIF: 0x64,
  ELSE: 0x67,
  ENDIF: 0x68,
  VERIFY: 0x69,
  TOALTSTACK: 0x6b,
  FROMALTSTACK: 0x6c,
  IFDUP: 0x73,
  DUP: 0x76,
  SWAP: 0x7c,
  SIZE: 0x82,
  EQUAL: 0x87,
  EQUALVERIFY: 0x88,
  ZERONOTEQUAL: 0x92,
  ADD: 0x93,
  BOOLAND: 0x9a,
  BOOLOR: 0x9b,
  CHECKSIG: 0xac,
  CHECKSIGVERIFY: 0xad,
  CHECKMULTISIG: 0xae,
  CHECKMULTISIGVERIFY: 0xaf,
  CSV: 0xb2,
} as const;

/** Tokens that begin a scope: an and_v chain read backwards stops at them. */
const BOUNDARY = new Set<number>([OP.IF, OP.NOTIF, OP.ELSE, OP.IFDUP, OP.SWAP, OP.TOALTSTACK]);

class Unreadable extends Error {}

/** A number pushed as a small-int opcode or a minimal script number. */
function numberAt(c: ScriptChunk | undefined): number {
  if (c === undefined) throw new Unreadable('a number is missing');
  const small = smallIntValue(c.opcode);
  if (small !== null && c.data === undefined) return small;
  if (c.data === undefined || c.data.length === 0 || c.data.length > 4) throw new Unreadable('not a number');
  let n = 0;
  c.data.forEach((b, i) => (n += b * 2 ** (8 * i)));
  if ((c.data[c.data.length - 1]! & 0x80) !== 0) throw new Unreadable('a negative number');
  return n;
}

const isKey = (c: ScriptChunk | undefined): c is ScriptChunk & { data: Uint8Array } => c?.data?.length === 33 && (c.data[0] === 2 || c.data[0] === 3);

class Reader {
  constructor(private readonly t: readonly ScriptChunk[]) {}

  private op(i: number): number | undefined {
    return this.t[i]?.opcode;
  }

  /** The and_v chain of expressions ending before `end`, back to `start` or a boundary: [text, first index]. */
  chain(end: number, start: number): [string, number] {
    let [text, s] = this.atom(end, start);
    while (s > start && !BOUNDARY.has(this.op(s - 1)!)) {
      const [left, ls] = this.atom(s, start);
      text = `and_v(${left},${text})`;
      s = ls;
    }
    return [text, s];
  }

  /** The smallest expression ending before `end`. */
  atom(end: number, start: number): [string, number] {
    const last = end - 1;
    if (last < start) throw new Unreadable('an expression is missing');
    const c = this.t[last]!;
    if (isKey(c)) return [`pk_k(${bytesToHex(c.data)})`, last];
    switch (c.opcode) {
      case 0x00:
        if (c.data?.length === 0) return ['0', last];
        break;
      case 0x51:
        return ['1', last];
      case OP.CHECKSIG:
      case OP.CHECKSIGVERIFY: {
        const v = c.opcode === OP.CHECKSIGVERIFY ? 'v:' : '';
        const key = this.t[last - 1];
        if (isKey(key) && last - 1 >= start) return [`${v}pk(${bytesToHex(key.data)})`, last - 1];
        const [x, s] = this.atom(last, start);
        return [`${v}c:${x}`, s];
      }
      case OP.CHECKMULTISIG:
      case OP.CHECKMULTISIGVERIFY: {
        const n = numberAt(this.t[last - 1]);
        const first = last - 2 - n;
        if (first < start) throw new Unreadable('multi() runs past its scope');
        const keys = this.t.slice(last - 1 - n, last - 1);
        if (!keys.every(isKey)) throw new Unreadable('multi() keys');
        const k = numberAt(this.t[first]);
        return [`${c.opcode === OP.CHECKMULTISIGVERIFY ? 'v:' : ''}multi(${k},${keys.map((key) => bytesToHex(key.data!)).join(',')})`, first];
      }
      case OP.CSV:
        if (last - 1 < start) throw new Unreadable('older() without its number');
        return [`older(${numberAt(this.t[last - 1])})`, last - 1];
      case OP.VERIFY:
      case OP.ZERONOTEQUAL: {
        const [x, s] = this.atom(last, start);
        return [`${c.opcode === OP.VERIFY ? 'v' : 'n'}:${x}`, s];
      }
      case OP.BOOLAND:
      case OP.BOOLOR: {
        const [y, ys] = this.w(last, start);
        const [x, xs] = this.chain(ys, start);
        return [`${c.opcode === OP.BOOLAND ? 'and_b' : 'or_b'}(${x},${y})`, xs];
      }
      case OP.EQUAL:
      case OP.EQUALVERIFY: {
        if (this.t[last - 1]?.data?.length === 20 || this.t[last - 1]?.data?.length === 32) throw new Unreadable('pkh() and hash locks hide what they check behind a hash');
        // thresh(k, X1, W2, ..., Wn): X1 W2 ADD ... Wn ADD <k> EQUAL
        const k = numberAt(this.t[last - 1]);
        const subs: string[] = [];
        let s = last - 1;
        while (this.op(s - 1) === OP.ADD) {
          const [w, ws] = this.w(s - 1, start);
          subs.unshift(w);
          s = ws;
        }
        if (subs.length === 0) throw new Unreadable('hash locks are not served');
        const [x, xs] = this.chain(s, start);
        return [`${c.opcode === OP.EQUALVERIFY ? 'v:' : ''}thresh(${k},${[x, ...subs].join(',')})`, xs];
      }
      case OP.ENDIF:
        return this.ifs(last, start);
    }
    throw new Unreadable(`opcode 0x${c.opcode.toString(16)} at token ${last}`);
  }

  /** A W expression (s:X or a:X) ending before `end`. */
  private w(end: number, start: number): [string, number] {
    if (this.op(end - 1) === OP.FROMALTSTACK) {
      const [x, s] = this.chain(end - 1, start);
      if (this.op(s - 1) !== OP.TOALTSTACK) throw new Unreadable('a: without TOALTSTACK');
      return [`a:${x}`, s - 1];
    }
    const [x, s] = this.chain(end, start);
    if (this.op(s - 1) !== OP.SWAP) throw new Unreadable('a W expression without SWAP');
    return [`s:${x}`, s - 1];
  }

  /** The IF/NOTIF structure whose ENDIF is at `endif`. */
  private ifs(endif: number, start: number): [string, number] {
    let depth = 0;
    let els = -1;
    let open = -1;
    for (let i = endif - 1; i >= start; i--) {
      const o = this.op(i);
      if (o === OP.ENDIF) depth += 1;
      else if ((o === OP.IF || o === OP.NOTIF) && depth-- === 0) {
        open = i;
        break;
      } else if (o === OP.ELSE && depth === 0) els = i;
    }
    if (open < 0) throw new Unreadable('ENDIF without IF');
    const part = (from: number, to: number) => {
      const [x, s] = this.chain(to, from);
      if (s !== from) throw new Unreadable('a branch holds more than one expression');
      return x;
    };
    if (this.op(open) === OP.NOTIF) {
      const z = part(open + 1, els < 0 ? endif : els);
      if (els >= 0) {
        const [x, s] = this.atom(open, start);
        return [`andor(${x},${part(els + 1, endif)},${z})`, s];
      }
      if (this.op(open - 1) === OP.IFDUP) {
        const [x, s] = this.atom(open - 1, start);
        return [`or_d(${x},${z})`, s];
      }
      const [x, s] = this.atom(open, start);
      return [`or_c(${x},${z})`, s];
    }
    if (els >= 0) {
      const x = part(open + 1, els);
      const z = part(els + 1, endif);
      if (z === '0') return [`u:${x}`, open];
      if (x === '0') return [`l:${z}`, open];
      return [`or_i(${x},${z})`, open];
    }
    const x = part(open + 1, endif);
    if (this.op(open - 1) === OP.DUP && open - 1 >= start) return [`d:${x}`, open - 1];
    if (this.op(open - 1) === OP.ZERONOTEQUAL && this.op(open - 2) === OP.SIZE && open - 2 >= start) return [`j:${x}`, open - 2];
    throw new Unreadable('IF without ELSE');
  }
}


/**
 * The miniscript a witness script was compiled from, proven by compiling it again to the same
 * bytes. Refused in words when the script is not one this reader knows.
 */
export function miniscriptOfWitnessScript(script: Uint8Array, field = 'witness_script'): CompiledMiniscript {
  const refuse = (why: string) =>
    new CoinError(`${field}: the witness script cannot be read as a miniscript this service spends (${why}); give the vault as a wsh() descriptor instead`, field);
  let chunks: ScriptChunk[];
  try {
    chunks = decodeScript(script);
  } catch (err) {
    throw refuse((err as Error).message);
  }
  let text: string;
  try {
    const [ms, s] = new Reader(chunks).chain(chunks.length, 0);
    if (s !== 0) throw new Unreadable('tokens left before the expression');
    text = ms;
  } catch (err) {
    if (err instanceof Unreadable) throw refuse(err.message);
    throw err;
  }
  let compiled: CompiledMiniscript;
  try {
    compiled = compileWshMiniscript(text, field);
  } catch (err) {
    if (err instanceof CoinError) throw refuse(err.message);
    throw err;
  }
  if (!equalBytes(compiled.witnessScript, script)) throw refuse(`read as ${text}, which compiles to other bytes`);
  return compiled;
}
