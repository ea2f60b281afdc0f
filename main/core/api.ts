// What core needs of the v2 API: a slice of ApiClient, so tests can wrap the real client.
import type { ApiClient } from '../../shared/api/client.ts';

export type CoordinatorApi = Pick<ApiClient, 'toNetworkAddresses' | 'history' | 'utxos' | 'createMultisig' | 'signAndSendMultisig' | 'rawTransaction' | 'tokenInfo' | 'feeEstimates' | 'status' | 'watchStatus' | 'watchWindow'>;
