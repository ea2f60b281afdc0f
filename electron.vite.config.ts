// The desktop build (electron-vite): `npm run build:desktop` writes out/, `npm run dev:desktop`
// serves the renderer with hot reload and rebuilds main and preload on change.
// - main: the main process and the index writer thread, ESM, npm packages left external (resolved
//   from node_modules at run time, as the packaged app resolves them). The writer finds its
//   thread's file beside itself (service/index/sqlite-index-writer.ts), so every chunk is written
//   into out/main itself, not a subfolder.
// - preload: one CommonJS file that requires only 'electron', as the sandbox demands.
// - renderer: renderer/vite.config.ts (the web-mode build), written to out/renderer instead.
// electron-builder.yml packages exactly out/ (and package.json, whose "main" is out/main/main.mjs).
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'electron-vite';
import type { Plugin } from 'vite';
import { relaxForDevServer } from './main/bridge/security.ts';
import renderer from './renderer/vite.config.ts';

const at = (path: string): string => fileURLToPath(new URL(path, import.meta.url));

// Hot reload needs inline scripts and styles: under the dev server only, index.html's meta CSP
// is relaxed as the window's header CSP is (main/electron/main.ts).
const devCsp: Plugin = {
  name: 'countersign:dev-csp',
  apply: 'serve',
  transformIndexHtml: (html) => html.replace(/(http-equiv="Content-Security-Policy" content=")([^"]*)"/, (_m, head: string, policy: string) => `${head}${relaxForDevServer(policy)}"`),
};

// Electron 45 runs a newer Node; the bundles also run in plain Node 22 in the tests (with a stub
// for the electron module), so they keep to what Node 22 parses.
const target = 'node22';

export default defineConfig({
  main: {
    build: {
      outDir: at('out/main'),
      target,
      sourcemap: true,
      // Dependencies are external by default; the optional USB transport (a native module) too.
      externalizeDeps: { include: ['@ledgerhq/hw-transport-node-hid'] },
      rolldownOptions: {
        input: { main: at('main/electron/main.ts'), 'sqlite-index-worker': at('service/index/sqlite-index-worker.ts'), 'block-parse-worker': at('service/chains/utxo/block-parse-worker.ts') },
        output: { format: 'es', entryFileNames: '[name].mjs', chunkFileNames: '[name]-[hash].mjs' },
      },
    },
  },
  preload: {
    build: {
      outDir: at('out/preload'),
      target,
      sourcemap: true,
      // A sandboxed preload may require only 'electron' (external by the preset): everything else is inlined.
      externalizeDeps: false,
      rolldownOptions: {
        input: { preload: at('preload/preload.ts') },
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: {
    ...renderer,
    plugins: [...(renderer.plugins ?? []), devCsp],
    build: { ...renderer.build, outDir: at('out/renderer'), rolldownOptions: { input: at('renderer/index.html') } },
  },
});
