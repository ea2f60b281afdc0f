// Packaging's inputs that live in the repository: electron-builder reads its resources from the
// folder electron-builder.yml names (buildResources), and there it needs icon.png, at least 512x512
// for the macOS .icns (the Windows .ico takes 256x256). Packages are built on a release machine, so
// a missing or too small icon would otherwise show only there.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const REPO_ROOT = join(import.meta.dirname, '../..');
const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/** The width and height in a PNG's IHDR chunk (the first chunk, right after the signature). */
function pngSize(bytes: Uint8Array): { width: number; height: number } {
  expect([...bytes.subarray(0, 8)]).toEqual(PNG_SIGNATURE);
  expect(new TextDecoder().decode(bytes.subarray(12, 16))).toBe('IHDR');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return { width: view.getUint32(16), height: view.getUint32(20) };
}

describe('electron-builder resources', () => {
  it('the buildResources folder holds icon.png, square and at least 512x512', () => {
    const config = readFileSync(join(REPO_ROOT, 'electron-builder.yml'), 'utf8');
    const folder = /^\s+buildResources:\s*(\S+)\s*$/m.exec(config)?.[1];
    expect(folder).toBe('build');
    const icon = join(REPO_ROOT, folder!, 'icon.png');
    expect(existsSync(icon)).toBe(true);
    const { width, height } = pngSize(readFileSync(icon));
    expect(width).toBe(height);
    expect(width).toBeGreaterThanOrEqual(512);
  });
});
