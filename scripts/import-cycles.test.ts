// No import circles among the repository's own .ts/.tsx files, type-only imports included: a
// circle means two modules are one reason to change split across two files, and makes load
// order matter. This fails naming every circle it finds.
import { describe, expect, it } from 'vitest';
import { importCycles, relativeSpecifiers, repositoryImportGraph } from './import-graph.ts';

const root = new URL('..', import.meta.url).pathname;

describe('import circles', () => {
  it('reads static, type-only, re-export and dynamic imports, and only relative ones', () => {
    const text = [
      "import { a } from './a.ts';",
      "import type { B } from '../b.ts';",
      "export { c } from './c.ts';",
      "export type { D } from './d.ts';",
      "const e = await import('./e.ts');",
      "import { z } from 'zod';",
      "// import { f } from './f.ts';",
    ].join('\n');
    expect(relativeSpecifiers(text)).toEqual(['./a.ts', '../b.ts', './c.ts', './d.ts', './e.ts']);
  });

  it('finds a circle, a longer circle and a file importing itself, and none in a tree', () => {
    const graph = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['a.ts', 'c.ts']],
      ['c.ts', ['d.ts']],
      ['d.ts', ['e.ts']],
      ['e.ts', ['c.ts']],
      ['f.ts', ['f.ts']],
      ['g.ts', ['a.ts', 'c.ts']],
    ]);
    expect(importCycles(graph)).toEqual(['a.ts -> b.ts -> a.ts', 'c.ts -> d.ts -> e.ts -> c.ts', 'f.ts -> f.ts']);
    expect(importCycles(new Map([['x.ts', ['y.ts', 'z.ts']], ['y.ts', ['z.ts']], ['z.ts', []]]))).toEqual([]);
  });

  it('the repository has none', () => {
    const graph = repositoryImportGraph(root);
    expect(graph.size).toBeGreaterThan(100);
    expect(importCycles(graph)).toEqual([]);
  });
});
