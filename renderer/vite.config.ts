// Builds the renderer to dist/renderer with relative URLs, so the same files load from
// file:// in Electron and from the web-mode server.
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: './',
  plugins: [react()],
  build: {
    outDir: fileURLToPath(new URL('../dist/renderer', import.meta.url)),
    emptyOutDir: true,
    // No inline assets: the CSP allows scripts and styles from 'self' only.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    // One chunk is right for a desktop app loaded from disk; zod (shared/api) makes it ~0.5 MB.
    chunkSizeWarningLimit: 1500,
  },
});
