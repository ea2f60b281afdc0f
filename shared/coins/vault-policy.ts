/**
 * A miniscript vault as a BIP388 wallet policy: a descriptor template, wsh(<miniscript>) whose keys
 * are @i/<a;b>/* (written @i/** for <0;1>), and the key information vector (each key's xpub and
 * origin). The first number of a key's multipath is its receive branch, the second its change
 * branch; a key used on two paths (a decaying multisig) takes another pair there (<2;3>), as Liana
 * and BIP388 do, so no key appears twice in a script.
 *
 * From a policy: its spending paths (which keys, how many, after how many blocks) and its
 * addresses. Pure; refusals are CoinErrors in words.
 */
import { scriptToAddress } from './address.ts';
import { describeChain, type ChainParams } from './coin-table.ts';
import { CoinError } from './errors.ts';
import { compileVaultMiniscript, miniscriptWitnessScript, type CompiledMiniscript } from './miniscript.ts';
import { p2wshScript } from './multisig-script.ts';
import { derivePublicKey } from './xpub.ts';

export interface VaultKey {
  xpub: string;
  /** Master key fingerprint, 8 lower-case hex digits ('00000000' when unknown). */
  fingerprint: string;
  /** Master key to xpub, "m/48'/0'/0'/2'" ('m' when unknown). */
  derivationPath: string;
}

/** A BIP388 wallet policy. */
export interface VaultPolicy {
  /** "wsh(or_d(multi(2,@0/**,@1/**),and_v(v:pkh(@2/**),older(144))))" */
  template: string;
  keys: readonly VaultKey[];
}

/** One key expression of the template, named for the miniscript library (K<i>_<receive branch>). */
export interface VaultKeyUse {
  name: string;
  /** Index into the policy's keys. */
  key: number;
  receive: number;
  change: number;
}

/** One way to spend: `threshold` signatures of `keys`, once a coin is `blocks` deep (0: at once). */
export interface VaultPath {
  threshold: number;
  /** Key expression names (VaultKeyUse.name), in template order. */
  keys: readonly string[];
  blocks: number;
}

export interface ParsedTemplate {
  miniscript: string;
  uses: readonly VaultKeyUse[];
}

const KEY_EXPRESSION = /@(\d+)\/(?:\*\*|<(\d+);(\d+)>\/\*)/g;

const refuse = (why: string): never => {
  throw new CoinError(`the vault policy is refused: ${why}`);
};

/** The miniscript inside wsh(...) with each key expression named, and what each name stands for. */
export function parseTemplate(template: string, keyCount: number): ParsedTemplate {
  const m = /^wsh\((.*)\)$/s.exec(template);
  if (!m) {
    if (/^sh\(wsh\(/.test(template)) refuse('sh(wsh(...)) vaults are not made here: a vault is native P2WSH, wsh(...)');
    if (/^tr\(/.test(template)) refuse('tr(...) is taproot, which this desk does not spend');
    refuse('a vault template is wsh(<miniscript>)');
  }
  const uses: VaultKeyUse[] = [];
  const miniscript = m![1]!.replace(KEY_EXPRESSION, (_all, i: string, a?: string, b?: string) => {
    const key = Number(i);
    const receive = a === undefined ? 0 : Number(a);
    const change = b === undefined ? 1 : Number(b);
    if (key >= keyCount) refuse(`@${key} names no key: the policy has ${keyCount} key${keyCount === 1 ? '' : 's'}`);
    if (receive === change) refuse(`@${key}/<${receive};${change}>/* gives receive and change the same branch`);
    if (receive > 0x7fffffff || change > 0x7fffffff) refuse(`@${key}'s branches must be unhardened numbers`);
    const name = `K${key}_${receive}`;
    const same = uses.find((u) => u.name === name);
    if (!same) uses.push({ name, key, receive, change });
    return name;
  });
  if (miniscript.includes('@')) refuse('a key is not written @i/** or @i/<a;b>/*');
  for (let i = 0; i < keyCount; i++) if (!uses.some((u) => u.key === i)) refuse(`key @${i} is not used by the template`);
  for (const u of uses) {
    const clash = uses.find((v) => v !== u && v.key === u.key && (v.receive === u.change || v.change === u.receive || v.change === u.change));
    if (clash) refuse(`@${u.key} derives the same branch on two paths (<${u.receive};${u.change}> and <${clash.receive};${clash.change}>)`);
  }
  return { miniscript, uses };
}

// --- paths -----------------------------------------------------------------------------------

interface Node {
  name: string;
  args: (Node | string)[];
}

/** name(args) with wrappers (v:, a:, s:, ...) dropped: they change how a fragment sits on the stack, not who can spend. */
function parseNode(text: string): Node {
  const t = text.replace(/^[a-z]+:(?=[a-z_]+\()/, '');
  const open = t.indexOf('(');
  if (open < 0 || !t.endsWith(')')) return refuse(`"${t.slice(0, 30)}" is not a miniscript fragment`);
  const inner = t.slice(open + 1, -1);
  const args: (Node | string)[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i <= inner.length; i++) {
    const c = inner[i];
    if (c === '(') depth++;
    else if (c === ')') depth--;
    else if ((c === ',' && depth === 0) || i === inner.length) {
      const arg = inner.slice(start, i);
      args.push(arg.includes('(') ? parseNode(arg) : arg);
      start = i + 1;
    }
  }
  return { name: t.slice(0, open), args };
}

const node = (a: Node | string | undefined): Node => (typeof a === 'object' ? a : refuse(`"${String(a)}" stands where a fragment belongs`));

function both(x: VaultPath[], y: VaultPath[]): VaultPath[] {
  const out: VaultPath[] = [];
  for (const a of x) {
    for (const b of y) {
      const allOf = (p: VaultPath) => p.threshold === p.keys.length;
      if (a.keys.length > 0 && b.keys.length > 0 && !(allOf(a) && allOf(b))) {
        refuse('a path needs signatures of two key sets at once, a shape whose paths this desk cannot show');
      }
      out.push({ threshold: a.threshold + b.threshold, keys: [...a.keys, ...b.keys], blocks: Math.max(a.blocks, b.blocks) });
    }
  }
  return out;
}

function pathsOf(n: Node): VaultPath[] {
  switch (n.name) {
    case 'pk':
    case 'pkh':
    case 'pk_k':
    case 'pk_h':
      return [{ threshold: 1, keys: [String(n.args[0])], blocks: 0 }];
    case 'multi':
      return [{ threshold: Number(n.args[0]), keys: n.args.slice(1).map(String), blocks: 0 }];
    case 'older':
      return [{ threshold: 0, keys: [], blocks: Number(n.args[0]) }];
    case 'and_v':
    case 'and_b':
    case 'and_n':
      return both(pathsOf(node(n.args[0])), pathsOf(node(n.args[1])));
    case 'or_b':
    case 'or_c':
    case 'or_d':
    case 'or_i':
      return [...pathsOf(node(n.args[0])), ...pathsOf(node(n.args[1]))];
    case 'andor':
      return [...both(pathsOf(node(n.args[0])), pathsOf(node(n.args[1]))), ...pathsOf(node(n.args[2]))];
    case 'thresh': {
      const k = Number(n.args[0]);
      const subs = n.args.slice(1).map((a) => pathsOf(node(a)));
      const keys: string[] = [];
      const locks: number[] = [];
      for (const s of subs) {
        const only = s.length === 1 ? s[0]! : undefined;
        if (only && only.keys.length === 1 && only.threshold === 1 && only.blocks === 0) keys.push(only.keys[0]!);
        else if (only && only.keys.length === 0) locks.push(only.blocks);
        else refuse('thresh(...) over anything but single keys and timelocks is a shape whose paths this desk cannot show');
      }
      // Each timelock that has passed stands for one signature: k of the keys now, k-1 after the first, ...
      locks.sort((a, b) => a - b);
      const out: VaultPath[] = [{ threshold: k, keys, blocks: 0 }];
      locks.forEach((blocks, j) => {
        if (k - j - 1 >= 1) out.push({ threshold: k - j - 1, keys, blocks });
      });
      return out;
    }
    default:
      return refuse(`${n.name}(...) is not a fragment of the vaults this desk holds (keys, multi, thresh, older, and/or)`);
  }
}

/**
 * Every set of keys that can spend, with its threshold and relative timelock, in the order the
 * miniscript lists them; a shape whose paths this desk cannot show is refused (a CoinError). The
 * satisfier is asked about one set at a time (miniscript-spend.ts), never the whole miniscript.
 */
export function signingSets(miniscript: string): VaultPath[] {
  return pathsOf(parseNode(miniscript));
}

/** The policy's spending paths, soonest first; the same keys and threshold at two locks count once (the sooner). */
export function pathsOfMiniscript(miniscript: string): VaultPath[] {
  const all = signingSets(miniscript).sort((a, b) => a.blocks - b.blocks);
  const seen = new Set<string>();
  return all.filter((p) => {
    const id = `${p.threshold}:${[...p.keys].sort().join(',')}`;
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
}

// --- the analysed policy and its addresses ----------------------------------------------------

/** A policy checked once: its template parsed, its miniscript analysed (sane) and compiled, its paths. */
export interface CheckedVault {
  policy: VaultPolicy;
  uses: readonly VaultKeyUse[];
  compiled: CompiledMiniscript;
  paths: readonly VaultPath[];
}

const checkedCache = new Map<string, CheckedVault>();

/** Checks a policy: template, sanity (refused in words), paths. Cached by its text. */
export function checkVault(policy: VaultPolicy): CheckedVault {
  const id = `${policy.template}|${policy.keys.map((k) => `${k.fingerprint}${k.derivationPath}${k.xpub}`).join(',')}`;
  const hit = checkedCache.get(id);
  if (hit) return hit;
  if (policy.keys.length === 0) refuse('it has no keys');
  const { miniscript, uses } = parseTemplate(policy.template, policy.keys.length);
  const compiled = compileVaultMiniscript(miniscript);
  const paths = pathsOfMiniscript(miniscript);
  if (paths.some((p) => p.threshold < 1)) refuse('a spending path needs no signature');
  const checked: CheckedVault = { policy, uses, compiled, paths };
  if (checkedCache.size > 200) checkedCache.clear();
  checkedCache.set(id, checked);
  return checked;
}

/** One derived address of a vault. */
export interface VaultAddress {
  change: boolean;
  index: number;
  address: string;
  witnessScript: Uint8Array;
  scriptPubKey: Uint8Array;
  /** Per key expression name: its derivation path below the xpub ("2/7") and its public key. */
  derived: Readonly<Record<string, { key: number; path: string; publicKey: Uint8Array }>>;
}

/** The vault's address at (change, index): each key expression derived at its branch, the witness script, P2WSH. */
export function vaultAddress(params: ChainParams, policy: VaultPolicy, change: boolean, index: number): VaultAddress {
  if (!params.segwit) throw new CoinError(`${describeChain(params)} has no segwit: a miniscript vault (P2WSH) cannot be made on it`);
  if (!Number.isInteger(index) || index < 0 || index > 0x7fffffff) throw new CoinError(`address index ${index} is not an unhardened index`);
  const v = checkVault(policy);
  const derived: Record<string, { key: number; path: string; publicKey: Uint8Array }> = {};
  const pubkeys: Record<string, Uint8Array> = {};
  for (const u of v.uses) {
    const path = `${change ? u.change : u.receive}/${index}`;
    const publicKey = derivePublicKey(params, policy.keys[u.key]!.xpub, path, { xpub: `key @${u.key}` });
    derived[u.name] = { key: u.key, path, publicKey };
    pubkeys[u.name] = publicKey;
  }
  const witnessScript = miniscriptWitnessScript(v.compiled, pubkeys);
  const scriptPubKey = p2wshScript(witnessScript);
  const address = scriptToAddress(params, scriptPubKey);
  if (address === null) throw new CoinError(`internal error: ${describeChain(params)} has no P2WSH address form`);
  return { change, index, address, witnessScript, scriptPubKey, derived };
}
