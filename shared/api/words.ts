// Words both programs put in front of a treasurer: the desk's messages and the renderer's screens.

/** "1 block", "6 blocks": a count with its noun in the right number. `many` for irregular plurals. */
export function plural(n: number | bigint, one: string, many = `${one}s`): string {
  return `${n.toLocaleString('en-US')} ${n === 1 || n === 1n ? one : many}`;
}

const EXPECTED: Record<string, string> = { string: 'text', number: 'a number', bigint: 'a whole amount', boolean: 'true or false', array: 'a list', object: 'an object' };

/**
 * A schema's complaint about a field, in words: where ("outputs[1].amount") and what is wrong ("is
 * missing", "should be text"); the schema's own message where it has one of its own.
 */
export function fieldProblem(issue: { code?: string; path: readonly PropertyKey[]; message: string; expected?: unknown } | undefined): string {
  if (!issue) return 'it is not what was expected';
  const where = issue.path.reduce<string>((s, p) => (typeof p === 'number' ? `${s}[${p}]` : s === '' ? String(p) : `${s}.${String(p)}`), '') || 'the whole answer';
  if (issue.code === 'invalid_type') {
    if (/received undefined/.test(issue.message)) return `${where} is missing`;
    const want = typeof issue.expected === 'string' ? EXPECTED[issue.expected] : undefined;
    if (want) return `${where} should be ${want}`;
  }
  return `${where}: ${issue.message}`;
}

/**
 * Edits (insert, delete, replace, swap two neighbours) from one word to another, ignoring case:
 * "netwrok" is one from "network", "cookiefile" none from "cookieFile".
 */
export function editDistance(a: string, b: string): number {
  const s = a.toLowerCase();
  const t = b.toLowerCase();
  // rows[i][j]: edits from s's first i letters to t's first j (optimal string alignment)
  const rows: number[][] = Array.from({ length: s.length + 1 }, (_, i) => Array.from({ length: t.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= s.length; i++) {
    for (let j = 1; j <= t.length; j++) {
      const replace = s[i - 1] === t[j - 1] ? 0 : 1;
      let best = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + replace);
      if (i > 1 && j > 1 && s[i - 1] === t[j - 2] && s[i - 2] === t[j - 1]) best = Math.min(best, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = best;
    }
  }
  return rows[s.length]![t.length]!;
}

/**
 * The known word a mistyped one most likely meant, or null when none is close: at most a third of
 * the known word's letters may differ (at least one), so "litecion" finds "litecoin" but "index"
 * finds nothing among "network", "backend".
 */
export function nearestWord(word: string, known: Iterable<string>): string | null {
  let best: string | null = null;
  let bestDistance = Infinity;
  for (const candidate of known) {
    const d = editDistance(word, candidate);
    if (d <= Math.max(1, Math.floor(candidate.length / 3)) && d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
}
