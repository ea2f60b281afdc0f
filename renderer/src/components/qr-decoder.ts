// The camera's QR decoder (zxing-wasm), loaded lazily with the scan dialog so the main bundle does
// not carry it. Its WebAssembly travels inside this chunk as base64 and is handed to the module as
// bytes (emscripten's `wasmBinary`): nothing is fetched, so it works the same whether the page came
// from the web-mode server or from file:// in the packaged desk, where fetch and XHR of a file are
// not reliably allowed. Compiling it needs the CSP's 'wasm-unsafe-eval' and nothing more.
import { prepareZXingModule, readBarcodes } from 'zxing-wasm/reader';
import wasmDataUrl from 'zxing-wasm/reader/zxing_reader.wasm?url&inline';

/** The bytes of a base64 data URL, decoded here (a fetch of the data URL would be a request the CSP refuses). */
function dataUrlBytes(url: string): Uint8Array<ArrayBuffer> {
  const text = atob(url.slice(url.indexOf(',') + 1));
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  return bytes;
}

let ready: Promise<unknown> | null = null;

/** The first QR code's text in the image, or null when none reads. */
export async function readQrText(image: ImageData): Promise<string | null> {
  ready ??= prepareZXingModule({ overrides: { wasmBinary: dataUrlBytes(wasmDataUrl).buffer }, fireImmediately: true });
  await ready;
  const [hit] = await readBarcodes(image, { formats: ['QRCode'], maxNumberOfSymbols: 1, tryHarder: true });
  return hit?.text || null;
}
