// Which QR decoder the desk's camera uses (issue 34): jsQR and zxing-wasm (ZXing C++ in WebAssembly)
// read the frames the desk and the signers show, at both densities and in both codes, first as
// drawn (a screenshot) and then as a webcam sees them (about 640 px wide, 2-3 px a module, blurred,
// with noise). Prints per decoder and set: frames read of frames shown, and milliseconds a frame.
//   npx tsx scripts/bench/qr-decoders.ts
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import QRCode from 'qrcode';
import jsQRModule from 'jsqr';
import { prepareZXingModule, readBarcodes } from 'zxing-wasm/reader';
import { psbtFrames } from '../../shared/qr/show.ts';
import type { QrDensity } from '../../shared/qr/ur.ts';

const require = createRequire(import.meta.url);
// jsQR is CommonJS: its function is the module's default export under tsx.
const jsQR = ((jsQRModule as unknown as { default?: typeof jsQRModule }).default ?? jsQRModule) as unknown as (data: Uint8ClampedArray, w: number, h: number, o: { inversionAttempts: string }) => { data: string } | null;
prepareZXingModule({ overrides: { wasmBinary: readFileSync(require.resolve('zxing-wasm/reader/zxing_reader.wasm')).buffer }, fireImmediately: true });

// A real 2-of-3 PSBT with 5 inputs' previous transactions: the coinkite/BBQr test file of 100 outputs (4 KB).
const data = JSON.parse(readFileSync(new URL('../../shared/qr/fixtures/bbqr-test-data.json', import.meta.url), 'utf8')) as { files: Record<string, string> };
const psbt = new Uint8Array(Buffer.from(data.files['1in100out.psbt']!, 'base64'));

interface Image { data: Uint8ClampedArray; width: number; height: number }

/** The frame drawn as RGBA: `px` pixels a module, 4 modules of quiet zone; `camera` adds blur and noise. */
function draw(text: string, px: number, camera: boolean): Image {
  const qr = QRCode.create(text, { errorCorrectionLevel: 'L' });
  const n = qr.modules.size;
  const side = Math.round((n + 8) * px);
  const gray = new Float32Array(side * side);
  for (let y = 0; y < side; y++) for (let x = 0; x < side; x++) {
    const mx = Math.floor(x / px) - 4, my = Math.floor(y / px) - 4;
    gray[y * side + x] = mx >= 0 && my >= 0 && mx < n && my < n && qr.modules.get(my, mx) ? 30 : 225;
  }
  let out = gray;
  if (camera) {
    out = new Float32Array(side * side);
    let seed = 7;
    const rand = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff) - 0.5;
    for (let y = 0; y < side; y++) for (let x = 0; x < side; x++) {
      let s = 0, c = 0;
      for (let dy = -1; dy <= 1; dy++) for (let dx = -1; dx <= 1; dx++) {
        const yy = y + dy, xx = x + dx;
        if (yy >= 0 && xx >= 0 && yy < side && xx < side) { s += gray[yy * side + xx]!; c++; }
      }
      out[y * side + x] = s / c + rand() * 50;
    }
  }
  const rgba = new Uint8ClampedArray(side * side * 4);
  for (let i = 0; i < side * side; i++) { rgba[i * 4] = rgba[i * 4 + 1] = rgba[i * 4 + 2] = out[i]!; rgba[i * 4 + 3] = 255; }
  return { data: rgba, width: side, height: side };
}

async function main(): Promise<void> {
  console.log(`PSBT ${psbt.length} bytes; node ${process.version}`);
  for (const format of ['ur', 'bbqr'] as const) for (const density of ['high', 'low'] as QrDensity[]) {
    const frames = psbtFrames(psbt, format, density);
    const size = QRCode.create(frames[0]!, { errorCorrectionLevel: 'L' }).modules.size;
    for (const camera of [false, true]) {
      // A webcam frame of 640x480 shows the code about 400 px wide.
      const px = camera ? 400 / (size + 8) : 4;
      const images = frames.map((f) => draw(f, px, camera));
      const row = [`${format} ${density} (${frames.length} frames, ${size}x${size} modules, ${camera ? `camera ${px.toFixed(1)} px/module` : 'screenshot 4 px/module'})`];
      for (const [name, decode] of [
        ['jsQR', async (im: Image) => jsQR(im.data, im.width, im.height, { inversionAttempts: 'dontInvert' })?.data ?? null],
        ['zxing-wasm', async (im: Image) => (await readBarcodes(im as unknown as Parameters<typeof readBarcodes>[0], { formats: ['QRCode'], tryHarder: true, maxNumberOfSymbols: 1 }))[0]?.text ?? null],
      ] as const) {
        let ok = 0;
        const t0 = performance.now();
        for (const [i, im] of images.entries()) if ((await decode(im)) === frames[i]) ok++;
        const ms = (performance.now() - t0) / images.length;
        row.push(`${name} ${ok}/${images.length} read, ${ms.toFixed(1)} ms/frame`);
      }
      console.log(row.join(' | '));
    }
  }
}
await main();
