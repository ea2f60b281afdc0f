/**
 * The resource limits a P2WSH miniscript must meet to be spendable at all, computed from the
 * miniscript's structure the way Bitcoin Core (script/miniscript.h: CalcOps, CalcStackSize,
 * CalcWitnessSize) and rust-miniscript (ExtData: ops, stack_elem_count_sat, max_sat_size) compute
 * them, and refused in words before a vault is made or read:
 * - consensus, MAX_OPS_PER_SCRIPT: at most 201 non-push opcodes. EvalScript counts every opcode it
 *   meets, in a branch that runs or not, and a CHECKMULTISIG that runs adds its key count: so the
 *   script's own count plus the worst satisfaction's multisig keys;
 * - standardness, MAX_STANDARD_P2WSH_STACK_ITEMS: at most 100 witness items besides the script;
 * - standardness, MAX_STANDARD_P2WSH_SCRIPT_SIZE: a witness script of at most 3,600 bytes.
 * The largest satisfaction's size (bytes) is computed too: what a spend's witness can weigh.
 * Pure; the miniscript is the wrapper's text (key names), its script the compiled one.
 */
import { CoinError } from './errors.ts';

/** Consensus: non-push opcodes one script may execute (CHECKMULTISIG adds its keys). */
export const MAX_OPS_PER_SCRIPT = 201;
/** Standardness: witness stack items of a P2WSH input, the witness script not counted. */
export const MAX_STANDARD_P2WSH_STACK_ITEMS = 100;
/**
 * The most keys a vault's script can hold: each takes at least a 20-byte hash and its push in a
 * 3,600-byte script. A vault is not bound by an M-of-N wallet's 15 co-signers (its multi() and
 * thresh() are, its paths together are not), so files that carry its keys take this many.
 */
export const MAX_VAULT_KEYS = Math.floor(3600 / 21);

/** What spending a miniscript costs at most. */
export interface MiniscriptResources {
  /** Non-push opcodes of the script, run or not. */
  staticOps: number;
  /** staticOps plus the key counts of the CHECKMULTISIGs the worst satisfaction runs. */
  ops: number;
  /** The most witness items a satisfaction needs, the witness script not counted. */
  witnessItems: number;
  /** The largest satisfaction's items in bytes (each with its length byte), `signatureBytes` per signature. */
  satisfactionBytes: number;
  /** The fragment with the most keys, in words ("its thresh() of 70 keys"), for the advice. */
  widest: string;
  /** The most parts (sub-fragments) of one thresh() in it, 0 without one. */
  threshParts: number;
}

/**
 * The most parts of one thresh() the desk spends. The satisfier (@bitcoinerlab/miniscript 2.0)
 * walks every subset of a thresh()'s parts, 2^n of them, even with only one signing set's keys
 * known. Measured on this machine (a decaying thresh(4 of n) with two timelocks, one set's keys
 * known): 10 parts 0.03-0.08 s, 12 parts 0.07-0.11 s, 16 parts 0.7-0.9 s, 20 parts 5 s; a spend
 * asks once per signing set and input, the desk and the service each. Beyond 12 a payment of a few
 * coins would stall both, so such a vault is refused when it is made or read.
 */
export const MAX_THRESH_PARTS = 12;

interface Node {
  name: string;
  /** Sub-fragments (thresh's k and multi's arguments are in `args`). */
  subs: Node[];
  args: string[];
}

const WRAPPERS = 'asctdvjnlu';

/** name(args) with wrappers as nodes of their own: "sln:older(5)" is s(l(n(older(5)))). */
function parse(text: string): Node {
  const wrap = /^([a-z]+):/.exec(text);
  if (wrap && [...wrap[1]!].every((c) => WRAPPERS.includes(c))) {
    let inner = parse(text.slice(wrap[0].length));
    for (const w of [...wrap[1]!].reverse()) inner = { name: `${w}:`, subs: [inner], args: [] };
    return inner;
  }
  if (text === '0' || text === '1') return { name: text, subs: [], args: [] };
  const open = text.indexOf('(');
  if (open < 0 || !text.endsWith(')')) throw new CoinError(`the miniscript is refused: "${text.slice(0, 30)}" is not a fragment`);
  const name = text.slice(0, open);
  const parts: string[] = [];
  let depth = 0;
  let start = open + 1;
  for (let i = open + 1; i < text.length - 1; i++) {
    const c = text[i];
    if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === ',' && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start, text.length - 1));
  const scalar = ['pk', 'pkh', 'pk_k', 'pk_h', 'older', 'after', 'sha256', 'hash256', 'ripemd160', 'hash160', 'multi'].includes(name);
  if (scalar) return { name, subs: [], args: parts };
  if (name === 'thresh') return { name, subs: parts.slice(1).map(parse), args: [parts[0]!] };
  return { name, subs: parts.map(parse), args: [] };
}

/** [ops run by CHECKMULTISIGs, witness items, witness bytes]; null: no such (dis)satisfaction. */
type Cost = readonly [number, number, number] | null;
const add = (...cs: Cost[]): Cost => (cs.some((c) => c === null) ? null : cs.reduce<[number, number, number]>((s, c) => [s[0] + c![0], s[1] + c![1], s[2] + c![2]], [0, 0, 0]));
// Each measure is its own worst case, as Core and rust-miniscript take them (not one witness's).
const max = (...cs: Cost[]): Cost => {
  const ok = cs.filter((c): c is readonly [number, number, number] => c !== null);
  return ok.length === 0 ? null : [Math.max(...ok.map((c) => c[0])), Math.max(...ok.map((c) => c[1])), Math.max(...ok.map((c) => c[2]))];
};
const NONE: Cost = [0, 0, 0];
/** An empty push (0, false) and a push of 0x01 (1, true) as witness items. */
const FALSE: Cost = [0, 1, 1];
const TRUE: Cost = [0, 1, 2];

interface SatDsat {
  sat: Cost;
  dsat: Cost;
}

function costs(n: Node, sig: number): SatDsat {
  const [x, y, z] = n.subs.map((s) => costs(s, sig));
  switch (n.name) {
    case '0':
      return { sat: null, dsat: NONE };
    case '1':
      return { sat: NONE, dsat: null };
    case 'pk_k':
    case 'pk':
      return { sat: [0, 1, sig], dsat: FALSE };
    case 'pk_h':
    case 'pkh':
      return { sat: [0, 2, sig + 34], dsat: [0, 2, 1 + 34] };
    case 'older':
    case 'after':
      return { sat: NONE, dsat: null };
    case 'sha256':
    case 'hash256':
    case 'ripemd160':
    case 'hash160':
      return { sat: [0, 1, 33], dsat: [0, 1, 33] };
    case 'multi': {
      const k = Number(n.args[0]);
      const keys = n.args.length - 1;
      return { sat: [keys, k + 1, 1 + k * sig], dsat: [keys, k + 1, k + 1] };
    }
    case 'and_v':
      return { sat: add(x!.sat, y!.sat), dsat: null };
    case 'and_b':
      return { sat: add(x!.sat, y!.sat), dsat: add(x!.dsat, y!.dsat) };
    case 'and_n':
      return { sat: add(x!.sat, y!.sat), dsat: x!.dsat };
    case 'or_b':
      return { sat: max(add(x!.sat, y!.dsat), add(x!.dsat, y!.sat)), dsat: add(x!.dsat, y!.dsat) };
    case 'or_d':
      return { sat: max(x!.sat, add(x!.dsat, y!.sat)), dsat: add(x!.dsat, y!.dsat) };
    case 'or_c':
      return { sat: max(x!.sat, add(x!.dsat, y!.sat)), dsat: null };
    case 'or_i':
      return { sat: max(add(x!.sat, TRUE), add(y!.sat, FALSE)), dsat: max(add(x!.dsat, TRUE), add(y!.dsat, FALSE)) };
    case 'andor':
      return { sat: max(add(x!.sat, y!.sat), add(x!.dsat, z!.sat)), dsat: add(x!.dsat, z!.dsat) };
    case 'thresh': {
      // sats[j]: the worst cost with j of the subs satisfied so far and the others dissatisfied.
      const k = Number(n.args[0]);
      let sats: Cost[] = [NONE];
      for (const s of n.subs.map((sub) => costs(sub, sig))) {
        const next: Cost[] = [add(sats[0]!, s.dsat)];
        for (let j = 1; j < sats.length; j++) next.push(max(add(sats[j]!, s.dsat), add(sats[j - 1]!, s.sat)));
        next.push(add(sats[sats.length - 1]!, s.sat));
        sats = next;
      }
      return { sat: sats[k] ?? null, dsat: sats[0]! };
    }
    case 'a:':
    case 's:':
    case 'c:':
    case 'n:':
      return x!;
    case 'v:':
    case 't:':
      return { sat: x!.sat, dsat: null };
    case 'd:':
      return { sat: add(x!.sat, TRUE), dsat: FALSE };
    case 'j:':
      return { sat: x!.sat, dsat: FALSE };
    case 'l:':
      return { sat: add(x!.sat, FALSE), dsat: max(TRUE, add(x!.dsat, FALSE)) };
    case 'u:':
      return { sat: add(x!.sat, TRUE), dsat: max(add(x!.dsat, TRUE), FALSE) };
    default:
      throw new CoinError(`the miniscript is refused: ${n.name}(...) is not a fragment this desk knows`);
  }
}

const threshParts = (n: Node): number => Math.max(n.name === 'thresh' ? n.subs.length : 0, ...n.subs.map(threshParts));

/** The fragment with the most keys, in words. */
function widest(n: Node): { keys: number; words: string } {
  const own =
    n.name === 'multi' ? { keys: n.args.length - 1, words: `its multi() of ${n.args.length - 1} keys` }
    : n.name === 'thresh' ? { keys: n.subs.length, words: `its thresh() of ${n.subs.length} parts` }
    : { keys: 0, words: 'its keys' };
  return n.subs.map(widest).reduce((best, w) => (w.keys > best.keys ? w : best), own);
}

/**
 * The resources of `miniscript` (key names as the wrapper holds them) compiled to `script` (any
 * keys: every key is 33 bytes). `signatureBytes`: one signature item with its length byte (74 for a
 * 72-byte DER signature and its hash type, the largest low-S one).
 */
export function miniscriptResources(miniscript: string, staticOps: number, signatureBytes = 74): MiniscriptResources {
  const root = parse(miniscript);
  const { sat } = costs(root, signatureBytes);
  if (sat === null) throw new CoinError('the miniscript is refused: it has no satisfaction');
  return { staticOps, ops: staticOps + sat[0], witnessItems: sat[1], satisfactionBytes: sat[2], widest: widest(root).words, threshParts: threshParts(root) };
}

/** Why coins sent to this script could never be spent (or relayed), in words; null when within every limit. */
export function resourceProblem(r: MiniscriptResources, scriptBytes: number, maxScriptBytes: number): string | null {
  const advice = `Use fewer keys in ${r.widest}`;
  if (r.ops > MAX_OPS_PER_SCRIPT) {
    const how = r.ops === r.staticOps ? '' : ` (${r.staticOps} in the script, ${r.ops - r.staticOps} more counted for the keys of its multi() when it runs)`;
    return `its script has ${r.ops} operations${how}; Bitcoin allows ${MAX_OPS_PER_SCRIPT}: coins sent to it could never be spent. ${advice}`;
  }
  if (r.witnessItems > MAX_STANDARD_P2WSH_STACK_ITEMS) {
    return `a spend of it needs up to ${r.witnessItems} witness items; nodes relay at most ${MAX_STANDARD_P2WSH_STACK_ITEMS}: its coins could not be spent through the network. ${advice}`;
  }
  if (scriptBytes > maxScriptBytes) {
    return `its script is ${scriptBytes.toLocaleString('en-US')} bytes; nodes relay a witness script of at most ${maxScriptBytes.toLocaleString('en-US')}: its coins could not be spent through the network. ${advice}`;
  }
  if (r.threshParts > MAX_THRESH_PARTS) {
    return `it has a thresh() of ${r.threshParts} parts (keys and timelocks); this desk works out the witnesses of a thresh() of at most ${MAX_THRESH_PARTS}: it could not sign a spend of it. Use fewer keys in its thresh() of ${r.threshParts} parts`;
  }
  return null;
}
