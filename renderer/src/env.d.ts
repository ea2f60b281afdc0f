// Vite bundles CSS imported for its side effect.
declare module '*.css';
// Vite gives an asset's URL for `?url` (the QR decoder's WebAssembly, served with the page).
declare module '*?url' {
  const url: string;
  export default url;
}
