// Which links the desk may hand to the user's browser (Electron's shell.openExternal): pure, so it
// is unit-tested in plain Node. A compromised or confused renderer must not be able to open an
// arbitrary URL (a phishing page, a custom protocol handler), so only https pages under an
// allow-listed base open; everything else is refused with the reason, for the log.

/**
 * Documentation the desk links to. The renderer links to none today; add a base here when it
 * does (an https origin, optionally with a path prefix).
 */
export const DOCUMENTATION_BASE_URLS: readonly string[] = [];

export type ExternalLinkDecision = { open: true; url: string } | { open: false; reason: string };

const parse = (text: string): URL | null => {
  try {
    return new URL(text);
  } catch {
    return null;
  }
};

/** True when `url` is `base` or lies under its path (segment boundaries, so /tx never matches /txs). */
function isUnder(url: URL, base: URL): boolean {
  if (url.origin !== base.origin) return false;
  const dir = base.pathname.replace(/\/$/, '');
  return url.pathname === dir || url.pathname.startsWith(`${dir}/`);
}

/**
 * Opens only https URLs without credentials that lie under one of `allowedBases` (https base URLs:
 * the documentation host and the block explorers the user configured). A base that is not an
 * https URL allows nothing.
 */
export function decideExternalLink(url: string, allowedBases: readonly string[]): ExternalLinkDecision {
  const u = parse(url);
  if (!u) return { open: false, reason: 'not a URL' };
  if (u.protocol !== 'https:') return { open: false, reason: `only https links open outside the desk, not ${u.protocol}` };
  if (u.username !== '' || u.password !== '') return { open: false, reason: 'links with credentials in them never open' };
  for (const text of allowedBases) {
    const base = parse(text);
    if (base && base.protocol === 'https:' && base.username === '' && base.password === '' && isUnder(u, base)) return { open: true, url: u.href };
  }
  return { open: false, reason: `${u.host} is not the documentation host or a configured block explorer` };
}
