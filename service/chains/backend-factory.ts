// The backend the operator chose for each coin (config.ts: node-rpc, blockbook or electrum; for
// ethereum evm-rpc or blockbook), built from its configuration.
import type { Logger } from 'pino';
import { chainParams, type UtxoCoinName } from '../../shared/coins/coin-table.ts';
import type { CoinConfig, EthereumConfig } from '../config.ts';
import type { Store } from '../store/database.ts';
import type { UtxoBackend } from './backend.ts';
import { BlockbookEthereum } from './blockbook/blockbook-ethereum.ts';
import { BlockbookUtxoBackend } from './blockbook/blockbook-utxo.ts';
import { ElectrumBackend } from './electrum/electrum-backend.ts';
import type { EvmChain } from './evm/evm-chain.ts';
import { EvmBackend } from './evm/evm-backend.ts';
import { NodeRpcBackend } from './utxo/node-rpc-backend.ts';

export interface BackendDeps {
  store: Store;
  log: Logger;
}

export function createUtxoBackend(coin: UtxoCoinName, config: CoinConfig, deps: BackendDeps): UtxoBackend {
  const params = chainParams(coin, config.network);
  const log = deps.log.child({ coin });
  const b = config.backend;
  const fees = { fallbackFeePerKb: BigInt(b.fallbackFeePerKb), minFeePerKb: BigInt(b.minFeePerKb) };
  const genesis = b.genesis === undefined ? {} : { genesis: b.genesis };
  switch (b.type) {
    case 'node-rpc':
      return new NodeRpcBackend({
        params,
        store: deps.store,
        rpc: {
          url: b.url,
          timeoutMs: b.timeoutMs,
          ...(b.username !== undefined ? { username: b.username } : {}),
          ...(b.password !== undefined ? { password: b.password } : {}),
          ...(b.cookieFile !== undefined ? { cookieFile: b.cookieFile } : {}),
        },
        log,
        pollIntervalMs: b.pollIntervalMs,
        index: b.index,
        ...genesis,
        ...fees,
        ...(b.replacements !== undefined ? { replacements: b.replacements } : {}),
      });
    case 'blockbook':
      return new BlockbookUtxoBackend({ params, ...genesis, url: b.url, pageSize: b.pageSize, timing: { timeoutMs: b.timeoutMs, retries: b.retries, backoffMs: b.backoffMs }, fees, log });
    case 'electrum':
      return new ElectrumBackend({
        params,
        ...genesis,
        server: { host: b.host, port: b.port, tls: b.tls, verifyCertificate: b.verifyCertificate, ...(b.certificateSha256 !== undefined ? { certificateSha256: b.certificateSha256 } : {}) },
        timing: { timeoutMs: b.timeoutMs, retries: b.retries, backoffMs: b.backoffMs },
        fees,
        log,
      });
  }
}

export function createEvmChain(config: EthereumConfig, deps: BackendDeps): EvmChain {
  const log = deps.log.child({ coin: 'ethereum' });
  const b = config.backend;
  switch (b.type) {
    case 'evm-rpc':
      return new EvmBackend({
        network: config.network,
        url: b.url,
        store: deps.store,
        log,
        startHeight: b.startHeight ?? null,
        pollIntervalMs: b.pollIntervalMs,
        timeoutMs: b.timeoutMs,
      });
    case 'blockbook':
      return new BlockbookEthereum({
        network: config.network,
        url: b.url,
        // config.ts requires chainId off mainnet
        chainId: BigInt(b.chainId ?? 1),
        erc20GasLimit: BigInt(b.erc20GasLimit),
        pageSize: b.pageSize,
        timing: { timeoutMs: b.timeoutMs, retries: b.retries, backoffMs: b.backoffMs },
        store: deps.store,
        log,
      });
  }
}
