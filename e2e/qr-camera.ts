// The camera side of the QR tests: a signer's animated frames written as the video Chromium's fake
// camera plays (YUV4MPEG2, 4:2:0, drawn from the QR module matrix), and an independent decoder
// (zxing-wasm, ZXing C++) for screenshots of the desk's own frames.
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { PNG } from 'pngjs';
import QRCode from 'qrcode';
import { prepareZXingModule, readBarcodes } from 'zxing-wasm/reader';

const require = createRequire(import.meta.url);
prepareZXingModule({ overrides: { wasmBinary: readFileSync(require.resolve('zxing-wasm/reader/zxing_reader.wasm')).buffer }, fireImmediately: true });

/** Chromium's fake camera flags playing `video` (looped), and granting the camera without a prompt. */
export const fakeCameraArgs = (video: string): string[] => ['--use-fake-ui-for-media-stream', '--use-fake-device-for-media-stream', `--use-file-for-fake-video-capture=${video}`];

/**
 * Writes `frames` as a y4m video: each QR frame held `hold` video frames at `fps` (10 fps, hold 2:
 * five QR frames a second, as a signer shows them), black modules on white, centred in a square.
 */
export function writeQrVideo(path: string, frames: readonly string[], o: { size?: number; fps?: number; hold?: number } = {}): void {
  const size = o.size ?? 640;
  const fps = o.fps ?? 10;
  const hold = o.hold ?? 2;
  const header = Buffer.from(`YUV4MPEG2 W${size} H${size} F${fps}:1 Ip A1:1 C420jpeg\n`);
  const chroma = Buffer.alloc((size / 2) * (size / 2) * 2, 128);
  const chunks: Buffer[] = [header];
  // A code of one or two frames still makes a video of a few seconds (the fake camera loops it).
  const shown = frames.length >= 10 ? frames : Array.from({ length: Math.ceil(10 / Math.max(1, frames.length)) }, () => frames).flat();
  for (const text of shown) {
    const qr = QRCode.create(text, { errorCorrectionLevel: 'L' });
    const n = qr.modules.size;
    const px = Math.floor((size - 16) / (n + 8));
    const offset = Math.floor((size - px * (n + 8)) / 2) + 4 * px;
    const luma = Buffer.alloc(size * size, 235);
    for (let y = 0; y < n; y++)
      for (let x = 0; x < n; x++) {
        if (!qr.modules.get(y, x)) continue;
        for (let dy = 0; dy < px; dy++) luma.fill(16, (offset + y * px + dy) * size + offset + x * px, (offset + y * px + dy) * size + offset + (x + 1) * px);
      }
    for (let h = 0; h < hold; h++) chunks.push(Buffer.from('FRAME\n'), luma, chroma);
  }
  writeFileSync(path, Buffer.concat(chunks));
}

/** The text of the one QR code in a PNG screenshot, or null. */
export async function decodeScreenshot(png: Buffer): Promise<string | null> {
  const image = PNG.sync.read(png);
  const [hit] = await readBarcodes({ data: new Uint8ClampedArray(image.data), width: image.width, height: image.height, colorSpace: 'srgb' } as unknown as Parameters<typeof readBarcodes>[0], {
    formats: ['QRCode'],
    maxNumberOfSymbols: 1,
    tryHarder: true,
  });
  return hit?.text ?? null;
}
