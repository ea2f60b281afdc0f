// The repository stands alone: no tracked file reaches for a folder beside the checkout (a
// `../shared` that climbs out of the repository) or names the external design notes, API seed or
// vector folder. The contract lives in docs/, the vectors in shared/coins/fixtures/vectors/.
import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';

const root = new URL('..', import.meta.url);

// Files that may name these on purpose. Keep it tiny: this file spells out what it looks for.
const ALLOWED = new Set(['scripts/standalone.test.ts']);

// Names of files and folders that exist only outside the repository.
const EXTERNAL_NAMES = /SEMANTICS\.md|DESIGN\.md|address-transaction-api-v2|shared\/(vectors|seed|hooks)\b/g;
// A relative path to a `shared` folder, and what follows it.
const RELATIVE_SHARED = /(?:\.\.\/)+shared\b(\/[\w.-]+)?/g;

/**
 * What in `text` points outside the repository: an external name, or a relative `../shared` that
 * does not go on into one of our own shared/ folders (`ownFolders`: coins, api, files). Paths are
 * not resolved against the file: test probes and scripts name paths relative to other places.
 */
export function outsideReferences(text: string, ownFolders: ReadonlySet<string>): string[] {
  const found = [...text.matchAll(EXTERNAL_NAMES)].map((m) => m[0]);
  for (const m of text.matchAll(RELATIVE_SHARED)) {
    const next = m[1]?.slice(1);
    if (next === undefined || !ownFolders.has(next)) found.push(m[0]);
  }
  return found;
}

function trackedFiles(): string[] {
  const out = execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8', maxBuffer: 64 << 20 });
  return out.split('\0').filter((f) => f !== '');
}

describe('the repository stands alone', () => {
  it('tells an outside reference from an in-repo one', () => {
    const own = new Set(['coins', 'api', 'files']);
    expect(outsideReferences('see `../shared/SEMANTICS.md`', own)).toEqual(['SEMANTICS.md', '../shared/SEMANTICS.md']);
    expect(outsideReferences("new URL('../../../../shared/vectors/a.json')", own)).toEqual(['shared/vectors', '../../../../shared/vectors']);
    expect(outsideReferences('a clone with ../shared beside it', own)).toEqual(['../shared']);
    expect(outsideReferences("import { x } from '../shared/coins/index.ts';", own)).toEqual([]);
    expect(outsideReferences("import { x } from '../../shared/api/client.ts';", own)).toEqual([]);
    expect(outsideReferences('the layering of docs/architecture.md', own)).toEqual([]);
  });

  it('no tracked file refers to ../shared, its vectors, seed, SEMANTICS.md or DESIGN.md', async () => {
    const files = trackedFiles();
    expect(files).toContain('package.json');
    // Our own shared/ folders (coins, api, files): relative paths into them are in-repo imports.
    const own = new Set(files.filter((f) => /^shared\/[^/]+\//.test(f)).map((f) => f.split('/')[1]!));
    expect(own).toContain('coins');
    const offenders: string[] = [];
    for (const file of files) {
      if (ALLOWED.has(file)) continue;
      let text: string;
      try {
        text = await readFile(new URL(file, root), 'latin1');
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') continue; // deleted in the work tree, not yet committed
        throw e;
      }
      const refs = outsideReferences(text, own);
      if (refs.length > 0) offenders.push(`${file}: ${[...new Set(refs)].join(', ')}`);
    }
    expect(offenders).toEqual([]);
  });
});
