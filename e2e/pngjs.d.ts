// pngjs (a dependency of qrcode) has no types of its own: what the QR tests use of it.
declare module 'pngjs' {
  export const PNG: { sync: { read(png: Buffer): { width: number; height: number; data: Buffer } } };
}
