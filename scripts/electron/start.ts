// `npm start`: builds the desktop app into out/ and runs it in Electron (electron-vite preview).
// Electron's binary is downloaded by its own install script, which this repository does not run
// at `npm ci` (allowScripts), so it is fetched here on first start; where that is impossible
// (this build machine), say what to do.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { preview } from 'electron-vite';

const REPO_ROOT = join(import.meta.dirname, '../..');
const require = createRequire(import.meta.url);

function electronBinary(): string | null {
  try {
    // In plain Node the electron package exports the path of its binary, and throws when absent.
    return require('electron') as string;
  } catch {
    return null;
  }
}

function ensureElectron(): string {
  const present = electronBinary();
  if (present) return present;
  process.stdout.write('Electron is not downloaded yet: fetching it once (node node_modules/electron/install.js)\n');
  const install = spawnSync(process.execPath, [join(REPO_ROOT, 'node_modules/electron/install.js')], { stdio: 'inherit' });
  const after = install.status === 0 ? electronBinary() : null;
  if (!after) {
    throw new Error(
      'Electron could not be downloaded (it comes from github.com, outside the npm registry). On a machine with internet access run ' +
        '`node node_modules/electron/install.js` once; or use `npm run web` to open the same desk in a browser.',
    );
  }
  return after;
}

try {
  ensureElectron();
  // Builds with electron.vite.config.ts, then starts Electron on the repository (package.json
  // "main": out/main/main.mjs) and exits with it.
  await preview({ root: REPO_ROOT }, {});
} catch (err) {
  process.stderr.write(`npm start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}
