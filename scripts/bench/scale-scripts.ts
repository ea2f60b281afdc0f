// The scripts of the scale chain and their keys, held compactly: millions of scripts live in a few
// typed arrays (type, public keys, scriptPubKey) instead of one object each. Private keys are
// never stored: they are sha256(seed, script id, key number), derived again when a coin is spent.
import * as ecc from 'tiny-secp256k1';
import {
  compileScript,
  encodeAddress,
  hash160,
  OP,
  p2pkhScript,
  p2shScript,
  sha256,
  witnessScript,
} from '../../shared/coins/index.ts';
import type { ChainParams } from '../../shared/coins/index.ts';
import { SCRIPT_TYPES, type ScriptType } from './scale-plan.ts';

const PUBS = 66; // two fresh compressed keys per multisig script, one otherwise
const SPK = 34; // the longest scriptPubKey (P2WSH)
/** Multisig third keys: a small pool of co-signer keys shared by many wallets (a custody service). */
const COSIGNERS = 64;

export class ScriptBook {
  count = 0;
  private types: Uint8Array;
  private pubs: Uint8Array;
  private spks: Uint8Array;
  private spkLens: Uint8Array;
  /** Outputs paying each script so far. */
  received: Uint32Array;
  private readonly seed: Uint8Array;
  private readonly cosigners: Uint8Array[];

  constructor(
    seed: string,
    capacity = 1 << 16,
  ) {
    this.seed = new TextEncoder().encode(`countersign scale key ${seed}`);
    this.types = new Uint8Array(capacity);
    this.pubs = new Uint8Array(capacity * PUBS);
    this.spks = new Uint8Array(capacity * SPK);
    this.spkLens = new Uint8Array(capacity);
    this.received = new Uint32Array(capacity);
    this.cosigners = Array.from({ length: COSIGNERS }, (_, i) => publicKeyOf(this.derive(0xffffffff - i, 0)));
  }

  /** A new script of `type`; its keys are derived and its scriptPubKey computed now. */
  create(type: ScriptType): number {
    const id = this.count++;
    if (id >= this.types.length) this.grow();
    this.types[id] = SCRIPT_TYPES.indexOf(type);
    const multisig = type === 'p2sh' || type === 'p2wsh';
    this.pubs.set(publicKeyOf(this.privateKey(id, 0)), id * PUBS);
    if (multisig) this.pubs.set(publicKeyOf(this.privateKey(id, 1)), id * PUBS + 33);
    let spk: Uint8Array;
    if (type === 'p2pkh') spk = p2pkhScript(hash160(this.pub(id, 0)));
    else if (type === 'p2wpkh') spk = witnessScript(0, hash160(this.pub(id, 0)));
    else if (type === 'p2sh') spk = p2shScript(hash160(this.multisig(id)));
    else spk = witnessScript(0, sha256(this.multisig(id)));
    this.spks.set(spk, id * SPK);
    this.spkLens[id] = spk.length;
    return id;
  }

  type(id: number): ScriptType {
    return SCRIPT_TYPES[this.types[id]!]!;
  }

  scriptPubKey(id: number): Uint8Array {
    return this.spks.subarray(id * SPK, id * SPK + this.spkLens[id]!);
  }

  pub(id: number, k: 0 | 1): Uint8Array {
    return this.pubs.subarray(id * PUBS + k * 33, id * PUBS + k * 33 + 33);
  }

  /** 2-of-3: the script's two own keys, then its co-signer's. Signed by the two own keys. */
  multisig(id: number): Uint8Array {
    return compileScript([OP.OP_1 + 1, this.pub(id, 0), this.pub(id, 1), this.cosigners[id % COSIGNERS]!, OP.OP_1 + 2, OP.OP_CHECKMULTISIG]);
  }

  privateKey(id: number, k: 0 | 1): Uint8Array {
    return this.derive(id, k);
  }

  address(params: ChainParams, id: number): string {
    const spk = this.scriptPubKey(id);
    const type = this.type(id);
    const hash = type === 'p2pkh' ? spk.subarray(3, 23) : spk.subarray(2);
    return encodeAddress(params, { type, hash });
  }

  private derive(id: number, k: number): Uint8Array {
    const data = new Uint8Array(this.seed.length + 5);
    data.set(this.seed);
    new DataView(data.buffer).setUint32(this.seed.length, id >>> 0);
    data[this.seed.length + 4] = k;
    return sha256(data);
  }

  private grow(): void {
    const cap = this.types.length * 2;
    const bigger = <T extends Uint8Array | Uint32Array>(old: T, make: (n: number) => T, per: number): T => {
      const next = make(cap * per);
      next.set(old);
      return next;
    };
    this.types = bigger(this.types, (n) => new Uint8Array(n), 1);
    this.pubs = bigger(this.pubs, (n) => new Uint8Array(n), PUBS);
    this.spks = bigger(this.spks, (n) => new Uint8Array(n), SPK);
    this.spkLens = bigger(this.spkLens, (n) => new Uint8Array(n), 1);
    this.received = bigger(this.received, (n) => new Uint32Array(n), 1);
  }
}

function publicKeyOf(privateKey: Uint8Array): Uint8Array {
  const pub = ecc.pointFromScalar(privateKey, true);
  if (!pub) throw new Error('derived an invalid private key'); // odds 2^-128
  return pub;
}
