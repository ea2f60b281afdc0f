// Draws build/icon.png (512x512, what electron-builder turns into the .icns and .ico) from the
// desk's one icon, renderer/icon.svg, in Debian's Chromium: one drawing, no image tools needed.
// Run: node --import tsx scripts/electron/icon.ts
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS } from '../../e2e/browser.ts';

const ROOT = join(import.meta.dirname, '../..');
const SIZE = 512;
const svg = readFileSync(join(ROOT, 'renderer/icon.svg'));
const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
try {
  const page = await browser.newPage({ viewport: { width: SIZE, height: SIZE } });
  await page.setContent(`<body style="margin:0"><img width="${SIZE}" height="${SIZE}" src="data:image/svg+xml;base64,${svg.toString('base64')}"></body>`);
  await page.screenshot({ path: join(ROOT, 'build/icon.png'), omitBackground: true });
} finally {
  await browser.close();
}
