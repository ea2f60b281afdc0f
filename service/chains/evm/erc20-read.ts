// An ERC20 token's metadata read from the contract itself over eth_call (the evm-rpc backend).
import type { EvmRpc } from './evm-rpc.ts';
import { DECIMALS_CALL, decodeDecimalsAnswer, decodeTextAnswer, eip55, NAME_CALL, saneName, saneSymbol, SYMBOL_CALL, type TokenInfo } from './erc20-metadata.ts';

export type { TokenInfo } from './erc20-metadata.ts';

/** The three getters at the tip, concurrently (ethers batches them into one request). */
export async function readTokenInfo(rpc: Pick<EvmRpc, 'viewCall'>, contract: string): Promise<TokenInfo> {
  const shown = eip55(contract);
  const [name, symbol, decimals] = await Promise.all([rpc.viewCall(contract, NAME_CALL), rpc.viewCall(contract, SYMBOL_CALL), rpc.viewCall(contract, DECIMALS_CALL)]);
  return { contract: shown, name: saneName(decodeTextAnswer(name)), symbol: saneSymbol(decodeTextAnswer(symbol)), decimals: decodeDecimalsAnswer(shown, decimals) };
}
