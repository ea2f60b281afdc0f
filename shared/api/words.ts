// Words both programs put in front of a treasurer: the desk's messages and the renderer's screens.

/** "1 block", "6 blocks": a count with its noun in the right number. `many` for irregular plurals. */
export function plural(n: number | bigint, one: string, many = `${one}s`): string {
  return `${n.toLocaleString('en-US')} ${n === 1 || n === 1n ? one : many}`;
}
