// vitest's global set-up: a folder for this run's one renderer build, which every browser test file
// shares (e2e/browser.ts builds it on first use), instead of a vite build per file. Removed at
// the run's end. The renderer's sources do not change during a run, and the web server only reads it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Where this run's shared renderer build goes (e2e/browser.ts). */
    rendererRunDir: string;
  }
}

export default function setup(project: TestProject): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'countersign-renderer-run-'));
  project.provide('rendererRunDir', dir);
  return () => rmSync(dir, { recursive: true, force: true });
}
