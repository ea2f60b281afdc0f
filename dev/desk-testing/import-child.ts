// Crash-safety test helper, run as a child process: imports signature files one by one, printing
// "committed <name>" after each commit and pausing so the parent can SIGKILL it mid-batch.
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { importSignatureFile } from '../../main/core/payments/signature-import.ts';
import { openStore } from '../../main/core/store/store.ts';
import type { CoordinatorApi } from '../../main/core/api.ts';

const [dbPath, ...files] = process.argv.slice(2);
if (!dbPath) throw new Error('usage: import-child <db> <files...>');
const store = openStore(dbPath);
const offline = new Proxy({}, { get: () => () => Promise.reject(new Error('offline')) }) as CoordinatorApi;
for (const file of files) {
  const result = importSignatureFile({ store, api: offline, actor: 'crash-child' }, { name: basename(file), text: readFileSync(file, 'utf8') });
  process.stdout.write(`committed ${result.file} ${result.status}\n`);
  await new Promise((r) => setTimeout(r, 30_000));
}
