// The hardhat dev chain lives in scripts/dev-chain/hardhat.ts (the coordinator and the demo start it
// too); the service's tests keep importing it from here.
export * from '../../scripts/dev-chain/hardhat.ts';
