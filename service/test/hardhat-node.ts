// The hardhat dev chain lives in dev/chains/hardhat.ts (the coordinator and the demo start it
// too); the service's tests keep importing it from here.
export * from '../../dev/chains/hardhat.ts';
