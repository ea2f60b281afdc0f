// The import graph of the repository's own TypeScript: which tracked .ts/.tsx file imports which,
// by relative specifier (static, type-only, `export ... from` and dynamic `import('...')` alike),
// and the circles in it. TypeScript's own pre-processor reads the specifiers, so comments and
// strings that merely look like imports are not counted.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

export type ImportGraph = ReadonlyMap<string, readonly string[]>;

/** The relative specifiers a file's text imports or re-exports. Pure. */
export function relativeSpecifiers(text: string): string[] {
  return ts.preProcessFile(text, true, true).importedFiles.map((f) => f.fileName).filter((s) => s.startsWith('./') || s.startsWith('../'));
}

/** The tracked file a specifier names (as written, or with .ts/.tsx/index.ts added), or null when it names none. */
function resolveSpecifier(root: string, from: string, specifier: string, tracked: ReadonlySet<string>): string | null {
  const base = relative(root, resolve(root, dirname(from), specifier));
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, join(base, 'index.ts'), join(base, 'index.tsx')]) {
    if (tracked.has(candidate)) return candidate;
  }
  return null;
}

/** Every tracked .ts/.tsx file of the repository at `root`, with the tracked files it imports. */
export function repositoryImportGraph(root: string): ImportGraph {
  const files = execFileSync('git', ['ls-files', '-z', '--', '*.ts', '*.tsx'], { cwd: root, encoding: 'utf8' })
    .split('\0')
    .filter((f) => f !== '' && existsSync(join(root, f)));
  const tracked = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const targets = relativeSpecifiers(readFileSync(join(root, file), 'utf8')).flatMap((s) => resolveSpecifier(root, file, s, tracked) ?? []);
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/**
 * The circles of a graph: for each strongly connected group of files (or a file importing
 * itself), one shortest circle through its first file, as `a -> b -> a`, with the group's size
 * when more files take part. Sorted, so a report is stable. Pure.
 */
export function importCycles(graph: ImportGraph): string[] {
  // Tarjan's strongly connected components, iterative so a deep graph cannot overflow the stack.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const groups: string[][] = [];
  let next = 0;
  for (const start of graph.keys()) {
    if (index.has(start)) continue;
    const work: { node: string; edge: number }[] = [{ node: start, edge: 0 }];
    index.set(start, next);
    low.set(start, next++);
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const top = work[work.length - 1]!;
      const edges = graph.get(top.node) ?? [];
      if (top.edge < edges.length) {
        const to = edges[top.edge++]!;
        if (!index.has(to)) {
          index.set(to, next);
          low.set(to, next++);
          stack.push(to);
          onStack.add(to);
          work.push({ node: to, edge: 0 });
        } else if (onStack.has(to)) {
          low.set(top.node, Math.min(low.get(top.node)!, index.get(to)!));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(top.node)!));
      if (low.get(top.node) === index.get(top.node)) {
        const group: string[] = [];
        let member: string;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          group.push(member);
        } while (member !== top.node);
        if (group.length > 1 || (graph.get(top.node) ?? []).includes(top.node)) groups.push(group.sort());
      }
    }
  }
  return groups.map((group) => describeCircle(graph, group)).sort();
}

/** The shortest circle from the group's first file back to it, through the group's files only. */
function describeCircle(graph: ImportGraph, group: readonly string[]): string {
  const members = new Set(group);
  const first = group[0]!;
  const cameFrom = new Map<string, string>();
  const queue = [first];
  let last: string | undefined;
  while (queue.length > 0 && last === undefined) {
    const node = queue.shift()!;
    for (const to of graph.get(node) ?? []) {
      if (to === first) {
        last = node;
        break;
      }
      if (members.has(to) && !cameFrom.has(to)) {
        cameFrom.set(to, node);
        queue.push(to);
      }
    }
  }
  const path = [first];
  for (let node = last; node !== undefined && node !== first; node = cameFrom.get(node)) path.splice(1, 0, node);
  const circle = [...path, first].join(' -> ');
  return group.length > path.length ? `${circle} (${group.length} files in this circle: ${group.join(', ')})` : circle;
}
