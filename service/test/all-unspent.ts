// Tests compare whole lists of unspent outputs: read them page by page, as a client must, with a
import { expect } from 'vitest';
// small page so every comparison also proves the paging (each page after the last one's cursor).
import type { UnspentPage, UnspentPageRequest } from '../chains/backend.ts';

export async function allUnspent(reader: { unspent(scripts: readonly Uint8Array[], page: UnspentPageRequest): Promise<UnspentPage> }, scripts: readonly Uint8Array[], limit = 2) {
  const rows: UnspentPage['rows'] = [];
  let after: string | null = null;
  do {
    const page: UnspentPage = await reader.unspent(scripts, { limit, after });
    expect(page.rows.length).toBeLessThanOrEqual(limit);
    rows.push(...page.rows);
    after = page.next;
  } while (after !== null);
  return rows;
}
