// The witness-script reader: every shape the spend extension serves reads back to a miniscript
// that compiles to the same bytes (the library is the check); what it cannot read is refused in words.
import { describe, expect, it } from 'vitest';
import { hexToBytes } from './bytes.ts';
import { miniscriptOfWitnessScript } from './miniscript-from-script.ts';
import { compileWshMiniscript, miniscriptPaths } from './miniscript-spend.ts';

const key = (n: number) => `02${n.toString(16).padStart(2, '0').repeat(32)}`;
const [A, B, C, D, E, F, G] = [1, 2, 3, 4, 5, 6, 7].map(key) as [string, string, string, string, string, string, string];

describe('miniscriptOfWitnessScript', () => {
  it.each([
    `or_d(multi(2,${A},${B},${C}),and_v(v:multi(1,${D},${E}),older(144)))`,
    `or_d(multi(2,${A},${B},${C}),and_v(v:thresh(1,pk(${D}),s:pk(${E})),older(144)))`,
    `andor(multi(2,${A},${B},${C}),1,and_v(v:pk(${D}),older(52560)))`,
    `or_d(multi(2,${A},${B},${C}),or_i(and_v(v:multi(1,${D},${E}),older(4320)),and_v(v:pk(${F}),older(8640))))`,
    `or_i(and_v(v:pk(${A}),older(10)),multi(2,${B},${C},${D}))`,
    `and_v(v:pk(${A}),or_d(pk(${B}),and_v(v:pk(${C}),older(300))))`,
    `or_b(pk(${A}),a:pk(${B}))`,
    `thresh(2,pk(${A}),s:pk(${B}),s:pk(${C}),sln:older(100))`,
    `or_d(pk(${A}),and_v(v:pk(${G}),older(16)))`,
    `c:or_i(pk_k(${A}),pk_k(${B}))`,
  ])('reads back %s', (ms) => {
    const compiled = compileWshMiniscript(ms);
    const read = miniscriptOfWitnessScript(compiled.witnessScript);
    expect(read.witnessScript).toEqual(compiled.witnessScript);
    // Same script, same paths.
    expect(miniscriptPaths(read)).toEqual(miniscriptPaths(compiled));
  });

  it('refuses in words what it cannot read', () => {
    const pkh = compileWshMiniscript(`or_d(pk(${A}),and_v(v:pkh(${B}),older(10)))`).witnessScript;
    expect(() => miniscriptOfWitnessScript(pkh)).toThrow('witness_script: the witness script cannot be read as a miniscript this service spends (pkh() and hash locks hide what they check behind a hash); give the vault as a wsh() descriptor instead');
    // A P2PKH-like script and bytes that are no script.
    expect(() => miniscriptOfWitnessScript(hexToBytes('76a914' + '11'.repeat(20) + '88ac'))).toThrow('cannot be read as a miniscript');
    expect(() => miniscriptOfWitnessScript(hexToBytes('4c05aa'))).toThrow('cannot be read as a miniscript');
    // An extra opcode in front of a good vault.
    const good = compileWshMiniscript(`or_d(multi(2,${A},${B},${C}),and_v(v:multi(1,${D},${E}),older(144)))`).witnessScript;
    expect(() => miniscriptOfWitnessScript(Uint8Array.of(0x76, ...good))).toThrow('cannot be read as a miniscript');
  });
});
