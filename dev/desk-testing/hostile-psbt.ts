// The hostile-service bench's PSBT leg (issue 31, part 2): a co-signer's wallet signs the desk's PSBT
// (bitcoinjs-lib, as Sparrow would), and the PSBT comes back with one part changed at a time: each
// entry of each map (global, inputs, outputs) with its key or value one bit away, a transaction in
// it changed by each of its parts (txMutations), or the entry left out. Walked from the PSBT itself,
// so an entry type the desk starts writing is covered without a list to keep.
import { BIP32Factory } from 'bip32';
import { Psbt as JsPsbt } from 'bitcoinjs-lib';
import * as ecc from 'tiny-secp256k1';
import { bytesToHex, hexToBytes, type ChainParams } from '../../shared/coins/index.ts';
import { decodePsbt, encodePsbt, GLOBAL, INPUT, OUTPUT, type Psbt, type PsbtEntry } from '../../shared/files/psbt.ts';
import { base64 } from '@scure/base';
import { txHexLike, txMutations, txOfHex, type MutationOptions } from './hostile-mutations.ts';
import { jsNetwork } from './keys.ts';

const bip32 = BIP32Factory(ecc);

/** The PSBT signed by the co-signer whose master key is `masterXprv`, found through the PSBT's key origins. */
export function signPsbt(params: ChainParams, psbt: string, masterXprv: string): string {
  const network = jsNetwork(params);
  const signed = JsPsbt.fromBase64(psbt, { network });
  signed.signAllInputsHD(bip32.fromBase58(masterXprv, network));
  return signed.toBase64();
}

const names = (o: Record<string, number>) => new Map(Object.entries(o).map(([k, v]) => [v, k.toLowerCase()]));
const NAMES = { global: names(GLOBAL), input: names(INPUT), output: names(OUTPUT) };

export interface PsbtMutation {
  field: string;
  what: string;
  base64: string;
}

const flipLast = (b: Uint8Array): Uint8Array => {
  const c = Uint8Array.from(b);
  c[c.length - 1] = c[c.length - 1]! ^ 1;
  return c;
};

/** Every one-part change of a PSBT (base64), each as a whole PSBT again. */
export function psbtMutations(text: string, options: MutationOptions): PsbtMutation[] {
  const psbt: Psbt = decodePsbt(base64.decode(text));
  const out: PsbtMutation[] = [];
  const maps: { name: string; where: string; kind: keyof typeof NAMES; get: (p: Psbt) => PsbtEntry[]; set: (p: Psbt, m: PsbtEntry[]) => Psbt }[] = [
    { name: 'global', where: 'global', kind: 'global', get: (p) => p.global, set: (p, m) => ({ ...p, global: m }) },
    ...psbt.inputs.map((_, i) => ({ name: 'inputs[]', where: `input ${i}`, kind: 'input' as const, get: (p: Psbt) => p.inputs[i]!, set: (p: Psbt, m: PsbtEntry[]) => ({ ...p, inputs: p.inputs.map((x, j) => (j === i ? m : x)) }) })),
    ...psbt.outputs.map((_, i) => ({ name: 'outputs[]', where: `output ${i}`, kind: 'output' as const, get: (p: Psbt) => p.outputs[i]!, set: (p: Psbt, m: PsbtEntry[]) => ({ ...p, outputs: p.outputs.map((x, j) => (j === i ? m : x)) }) })),
  ];
  for (const map of maps) {
    map.get(psbt).forEach((entry, k) => {
      const type = NAMES[map.kind].get(entry.type) ?? `0x${entry.type.toString(16)}`;
      const field = `psbt ${map.name} ${type}`;
      const edited = (e: PsbtEntry | null) => base64.encode(encodePsbt(map.set(psbt, e ? map.get(psbt).map((x, j) => (j === k ? e : x)) : map.get(psbt).filter((_, j) => j !== k))));
      const tx = txOfHex(bytesToHex(entry.value));
      if (tx) {
        for (const m of txMutations(tx, options)) out.push({ field: `${field}: ${m.field}`, what: `${map.where} ${type}: ${m.what}`, base64: edited({ ...entry, value: hexToBytes(txHexLike(bytesToHex(entry.value), m.edit(tx))) }) });
      } else if (entry.value.length > 0) {
        out.push({ field: `${field} value`, what: `${map.where} ${type} entry ${k}: value's last byte flipped`, base64: edited({ ...entry, value: flipLast(entry.value) }) });
      }
      if (entry.keyData.length > 0) out.push({ field: `${field} key`, what: `${map.where} ${type} entry ${k}: key's last byte flipped`, base64: edited({ ...entry, keyData: flipLast(entry.keyData) }) });
      out.push({ field: `${field} (left out)`, what: `${map.where} ${type} entry ${k} left out`, base64: edited(null) });
    });
  }
  return out;
}
