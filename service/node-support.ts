// Which Node runs Countersign: package.json's `engines.node` (">=22") says it once; the launcher
// (cli.ts) refuses an older Node in words before anything native loads (better-sqlite3 13 ends an
// older Node with a segmentation fault and no message). Pure: the caller reads the file and exits.

/** The lowest major version a `>=N` engines range accepts. */
export function requiredNodeMajor(engines: string): number {
  const m = /^\s*>=\s*v?(\d+)/.exec(engines);
  if (!m) throw new Error(`package.json engines.node "${engines}" is not of the form ">=N"`);
  return Number(m[1]);
}

/** Null when `version` (process.versions.node) is supported; otherwise what to tell the operator. */
export function nodeRefusal(version: string, required: number, execPath: string): string | null {
  const major = Number(version.split('.')[0]);
  if (Number.isInteger(major) && major >= required) return null;
  return [
    `Node ${version} (${execPath}) cannot run Countersign: it needs Node >= ${required}; its SQLite module (better-sqlite3) crashes an older Node.`,
    `\`npm ci\` installs Node ${required} as node_modules/.bin/node in the checkout: run the command with that binary`,
    `(as deploy/countersign.service does: /opt/countersign/node_modules/.bin/node --import tsx service/cli.ts ...) or through \`npm run\`.`,
  ].join('\n');
}
