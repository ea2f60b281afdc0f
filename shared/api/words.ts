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
