// Vite bundles CSS imported for its side effect.
declare module '*.css';
// Vite gives a file as a base64 data URL for `?url&inline` (the QR decoder's WebAssembly, inside its lazily loaded chunk).
declare module '*?url&inline' {
  const url: string;
  export default url;
}
