// The block explorers the user configured, kept in the desk's settings table as a JSON array of
// https base URLs (none by default). They join the documentation host in the allow-list of links
// the desktop app may open in the user's browser (main/bridge/external-links.ts).
import { z } from 'zod';
import type { CoordinatorStore } from '../store/store.ts';

export const EXPLORER_SETTING = 'explorer_base_urls';

const ExplorerBaseUrls = z.array(z.string().url().refine((u) => u.startsWith('https://'), 'an explorer base URL starts with https://'));

export interface ExplorerBases {
  urls: string[];
  /** Why the stored value was ignored, when it was. */
  problem: string | null;
}

/** The configured explorer base URLs; a stored value that is not a list of https URLs allows none. */
export function explorerBaseUrls(store: Pick<CoordinatorStore, 'setting'>): ExplorerBases {
  const raw = store.setting(EXPLORER_SETTING);
  if (raw === null) return { urls: [], problem: null };
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return { urls: [], problem: `the ${EXPLORER_SETTING} setting is not JSON` };
  }
  const parsed = ExplorerBaseUrls.safeParse(value);
  if (!parsed.success) return { urls: [], problem: `the ${EXPLORER_SETTING} setting is refused: ${parsed.error.issues.map((i) => i.message).join('; ')}` };
  return { urls: parsed.data, problem: null };
}
