import { describe, expect, it } from 'vitest';
import { chainParams } from './coin-table.ts';
import { coinAmount, tickerOf, unitsToDecimal } from './units.ts';

describe('amounts in messages', () => {
  it('are exact decimals of the coin with its ticker, test networks named', () => {
    expect(unitsToDecimal(1_000_003_750n, 8)).toBe('10.0000375');
    expect(coinAmount(chainParams('litecoin', 'regtest'), 1_000_000_000n)).toBe('10 LTC (regtest)');
    expect(coinAmount(chainParams('litecoin', 'mainnet'), 1n)).toBe('0.00000001 LTC');
    expect(coinAmount(chainParams('litecoin', 'mainnet'), 0n)).toBe('0 LTC');
    expect(tickerOf('bitcoin', 'testnet')).toBe('BTC (testnet)');
  });
});
