// Module resolution hook: `electron` resolves to the stub beside this file.
const stub = new URL('./electron-stub.mjs', import.meta.url).href;

export async function resolve(specifier, context, nextResolve) {
  if (specifier === 'electron') return { url: stub, shortCircuit: true };
  return nextResolve(specifier, context);
}
