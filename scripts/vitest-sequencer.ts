// The order vitest starts test files in, with files run two at a time: the long ones first (those
// that start litecoind, hardhat or Chromium), and the many short unit files last, where they fill
// the time while the last long file ends. Without this, a fresh clone (no timings cached) starts
// the largest files first, and a short file that runs a long scenario may start last and run alone.
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const LONG = /\.(regtest|e2e|hardhat)\.test\.ts$/;

export default class LongFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files); // cached timings when there are, else the file sizes
    return [...sorted.filter((f) => LONG.test(f.moduleId)), ...sorted.filter((f) => !LONG.test(f.moduleId))];
  }
}
