// The node's RPC cookie file (`__cookie__:password`, rewritten at every start of the node). The
// node writes it readable by its own user only, so a service running as another user (the systemd
// unit's `countersign`) meets "permission denied": that is said as such, with the ways out, not as
// a node that is not running.
import { readFile, stat } from 'node:fs/promises';
import { userInfo } from 'node:os';

/** What the file and the reader were when the read failed (all optional: a stat may fail too). */
export interface CookieFacts {
  user?: string;
  uid?: number;
  /** The file's owner, group and permission bits, when the file could be looked at. */
  file?: { uid: number; gid: number; mode: number };
}

/** Why the cookie at `path` could not be read (`code`: the fs error code), with the fix. Pure. */
export function cookieProblem(path: string, code: string | undefined, facts: CookieFacts = {}): string {
  const head = `cannot read the RPC cookie file ${path} (${code ?? 'unreadable'})`;
  if (code !== 'EACCES' && code !== 'EPERM') return `${head}: is the node running with this datadir?`;
  const who = facts.user !== undefined ? `${facts.user}${facts.uid !== undefined ? ` (uid ${facts.uid})` : ''}` : 'the user this service runs as';
  const file = facts.file
    ? `it belongs to uid ${facts.file.uid}, group ${facts.file.gid}, mode ${(facts.file.mode & 0o777).toString(8).padStart(3, '0')}`
    : 'a folder on its way may not be entered';
  return (
    `${head}: permission denied to ${who}; ${file}. The node writes its cookie for its own user only: ` +
    `start the node with -rpccookieperms=group (Bitcoin Core 28 and later; Litecoin Core 0.21: -sysperms with -disablewallet) ` +
    `and add ${facts.user ?? 'the service user'} to the node's group (usermod -aG <node group> ${facts.user ?? '<service user>'}, the data folder open to that group), ` +
    `or give the service an rpcauth user and password in place of the cookie`
  );
}

function errorCode(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null && 'code' in err && typeof err.code === 'string' ? err.code : undefined;
}

/** The cookie's text, trimmed; throws an Error with `cookieProblem`'s words, the fs error as cause. */
export async function readCookieFile(path: string): Promise<string> {
  try {
    return (await readFile(path, 'utf8')).trim();
  } catch (err) {
    const code = errorCode(err);
    const facts: CookieFacts = {};
    if (code === 'EACCES' || code === 'EPERM') {
      const me = userInfo();
      facts.user = me.username;
      facts.uid = me.uid;
      const s = await stat(path).catch(() => null);
      if (s) facts.file = { uid: s.uid, gid: s.gid, mode: s.mode };
    }
    throw new Error(cookieProblem(path, code, facts), { cause: err });
  }
}
