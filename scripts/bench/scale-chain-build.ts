// Builds (or finds cached) the mainnet-shaped scale chain and prints its manifest summary.
//   npx tsx scripts/bench/scale-chain-build.ts --txs 1000000 [--seed ltc1] [--cache-dir DIR]
import { parseArgs } from 'node:util';
import { scaleChain } from './scale-chain.ts';

const { values } = parseArgs({
  options: { txs: { type: 'string', default: '1000000' }, seed: { type: 'string' }, 'cache-dir': { type: 'string' } },
});
const { manifest, datadir, fromCache } = await scaleChain({
  txs: Number(values.txs),
  ...(values.seed ? { seed: values.seed } : {}),
  ...(values['cache-dir'] ? { cacheDir: values['cache-dir'] } : {}),
  progress: (line) => console.log(line),
});
const { txsPerHeight, ...summary } = manifest;
console.log(JSON.stringify({ datadir, fromCache, blocks: txsPerHeight.length, ...summary }, null, 2));
