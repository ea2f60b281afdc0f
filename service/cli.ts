// The command's entry point (npm run service, deploy/countersign.service, keys, --version): checks
// the Node version before anything else loads. It imports nothing native, so an unsupported Node
// hears why in words instead of dying in better-sqlite3 with a segmentation fault (exit 139).
import { readFileSync } from 'node:fs';
import { nodeRefusal, requiredNodeMajor } from './node-support.ts';

const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string; engines: { node: string } };
const refusal = nodeRefusal(process.versions.node, requiredNodeMajor(manifest.engines.node), process.execPath);
if (refusal !== null) {
  process.stderr.write(`countersign: ${refusal}\n`);
  process.exit(1);
}
const { runCli } = await import('./cli-commands.ts');
await runCli(process.argv.slice(2), manifest.version);
