import { describe, expect, it } from 'vitest';
import { parseLogLine } from './log-lines.ts';

describe('parseLogLine', () => {
  it('reads a pino line', () => {
    expect(parseLogLine('{"level":30,"time":1,"msg":"a \\"quoted\\" }","coin":"litecoin","n":[1,{"a":2}]}')).toMatchObject({ level: 30, coin: 'litecoin' });
  });

  it('refuses a key written twice, at the top or nested', () => {
    expect(() => parseLogLine('{"level":30,"coin":"litecoin","msg":"x","coin":"litecoin"}')).toThrow(/duplicate key "coin" in the line/);
    expect(() => parseLogLine('{"a":[{"b":1,"b":2}]}')).toThrow(/duplicate key "b" in a\[0\]/);
  });

  it('refuses what is not JSON', () => {
    expect(() => parseLogLine('listening on 8080')).toThrow();
  });
});
