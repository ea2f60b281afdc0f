// Token contracts that bend ERC20's optional metadata the ways deployed tokens do, for tests of how
// the service and the desk read a token's name, symbol and decimals: bytes32 strings (as early
// tokens such as MKR return them), no name or symbol at all, no decimals(), a decimals() that is no
// uint8, and text meant to pass for another token on screen.
import { compileContracts, deploy, type HardhatNode } from './hardhat.ts';

const SOURCE = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;
contract Bytes32Metadata {
  function name() external pure returns (bytes32) { return "Maker"; }
  function symbol() external pure returns (bytes32) { return "MKR"; }
  function decimals() external pure returns (uint8) { return 18; }
}
contract NoNameNoSymbol {
  function decimals() external pure returns (uint8) { return 2; }
}
contract NoDecimals {
  function name() external pure returns (string memory) { return "No Decimals"; }
  function symbol() external pure returns (string memory) { return "NODEC"; }
}
contract WideDecimals {
  function name() external pure returns (string memory) { return "Wide"; }
  function symbol() external pure returns (string memory) { return "WIDE"; }
  function decimals() external pure returns (uint256) { return 1000; }
}
contract Disguised {
  function name() external pure returns (string memory) { return "Tether\\u202eDSU"; }
  function symbol() external pure returns (string memory) { return "USD\\u200bT"; }
  function decimals() external pure returns (uint8) { return 6; }
}
`;

export type OddToken = 'Bytes32Metadata' | 'NoNameNoSymbol' | 'NoDecimals' | 'WideDecimals' | 'Disguised';

/** Deploys one of the odd tokens; its address, lower case. */
export async function deployOddToken(node: HardhatNode, which: OddToken): Promise<string> {
  const artifact = compileContracts('OddTokens.sol', SOURCE)[which];
  if (!artifact) throw new Error(`no contract ${which} in OddTokens.sol`);
  return (await deploy(node, artifact, [])).address;
}
