// `npm run bench -- --hostile [--full] [--kinds payment,bump]`: the hostile-service bench of issue 31
// (dev/desk-testing/hostile-service.ts) on litecoind -regtest; prints the table of every mutation's
// outcome and exits 1 when any is "other".
import { parseArgs } from 'node:util';
import { hostileTable, startHostileBench } from '../../dev/desk-testing/hostile-service.ts';

export async function runHostileBench(argv: readonly string[]): Promise<number> {
  const { values } = parseArgs({ args: [...argv], options: { hostile: { type: 'boolean' }, full: { type: 'boolean' }, kinds: { type: 'string' }, 'no-request-files': { type: 'boolean' }, 'no-psbts': { type: 'boolean' } } });
  const started = Date.now();
  const bench = await startHostileBench();
  try {
    console.log(`set-up: ${((Date.now() - started) / 1000).toFixed(1)} s`);
    const results = await bench.run({
      full: values.full === true,
      ...(values.kinds ? { kinds: values.kinds.split(',').map((k) => k.trim()) } : {}),
      requestFiles: values['no-request-files'] !== true,
      psbts: values['no-psbts'] !== true,
      progress: (line) => console.log(line),
    });
    console.log(hostileTable(results));
    console.log(`${results.length} mutations in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    return results.some((r) => r.outcome === 'other') ? 1 : 0;
  } finally {
    await bench.dispose();
  }
}
