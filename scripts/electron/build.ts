// Builds the desktop app into out/: the main process and the index writer thread bundled from our
// TypeScript (npm packages stay external, resolved from node_modules at run time as the packaged
// app resolves them), the preload script as one CommonJS file for the sandbox, and the renderer.
// electron-builder.yml packages exactly these.
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { build } from 'esbuild';
import { build as viteBuild } from 'vite';

export const REPO_ROOT = join(import.meta.dirname, '../..');

export async function buildDesktop(outDir = join(REPO_ROOT, 'out')): Promise<void> {
  await rm(outDir, { recursive: true, force: true });
  const common = { bundle: true, platform: 'node', target: 'node22', sourcemap: true, logLevel: 'warning', absWorkingDir: REPO_ROOT } as const;
  await build({
    ...common,
    // The writer finds its thread's file beside itself (service/store/sqlite-index-writer.ts).
    entryPoints: { main: 'main/electron/main.ts', 'sqlite-index-worker': 'service/store/sqlite-index-worker.ts' },
    outdir: join(outDir, 'main'),
    outExtension: { '.js': '.mjs' },
    format: 'esm',
    packages: 'external',
  });
  // A sandboxed preload may require only 'electron': everything else is inlined.
  await build({ ...common, entryPoints: ['preload/preload.ts'], outfile: join(outDir, 'preload', 'preload.cjs'), format: 'cjs', external: ['electron'] });
  await viteBuild({ configFile: join(REPO_ROOT, 'renderer/vite.config.ts'), build: { outDir: join(outDir, 'renderer') }, logLevel: 'warn' });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  buildDesktop().catch((err: unknown) => {
    process.stderr.write(`desktop build failed: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
