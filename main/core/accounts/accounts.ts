// Single-signer Ether accounts: a software key (kept in a SecretStore) or a Ledger (address only,
// signing delegated to the device). Each lists the ERC20 tokens it follows; balances (with USD)
// and history come from the service's endpoints 1 and 3.
import { randomUUID } from 'node:crypto';
import type { ApiClient } from '../../../shared/api/client.ts';
import { ApiClientError } from '../../../shared/api/client.ts';
import type { Balance } from '../../../shared/api/schemas.ts';
import { formatEthereumAddress, parseEthereumAddress } from '../../../shared/coins/ethereum-address.ts';
import { CoordinatorError } from '../errors.ts';
import type { EtherSigner } from '../ether-signer.ts';
import type { CoordinatorStore } from '../store/store.ts';
import type { AccountRow, TokenRow } from '../store/account-store.ts';
import { addressOfSecret, loadSigner, saveSecret, softwareSecretOf, ETHER_PATH, type AccountSecrets, type KeySource } from './keys.ts';
import { readChainToken, tokenToFollow } from './tokens.ts';

/** What accounts need of the v2 API (a slice of ApiClient, so tests can wrap the real one). */
export type AccountsApi = Pick<
  ApiClient,
  'status' | 'balance' | 'tokenBalance' | 'history' | 'tokenHistory' | 'createEther' | 'signAndSendEther' | 'createErc20' | 'signAndSendErc20' | 'tokenInfo'
>;

export interface AccountDeps {
  store: CoordinatorStore;
  api: AccountsApi;
  /** Who acts, for the audit log. */
  actor: string;
  secrets: AccountSecrets;
  /** A Ledger's signer for this account (main/core/ledger); absent when no device support is wired. */
  ledgerSigner?: (account: AccountRow) => Promise<EtherSigner>;
}

export type NewAccount =
  | { kind: 'software'; name: string; key: KeySource; chainId?: bigint }
  | { kind: 'ledger'; name: string; address: string; derivationPath?: string; chainId?: bigint };

export const COIN = 'ethereum';

/** The chain id a service's ethereum network stands for, when the account does not name one. */
const CHAIN_OF_NETWORK: Readonly<Record<string, bigint>> = { mainnet: 1n, testnet: 11_155_111n, regtest: 31_337n };

/** How a chain is shown: mainnet, or a test chain nobody should mistake for real funds. */
export const networkOfChain = (chainId: bigint): 'mainnet' | 'testnet' | 'regtest' => (chainId === 1n ? 'mainnet' : chainId === 31_337n || chainId === 1_337n ? 'regtest' : 'testnet');

export function requireAccount(deps: Pick<AccountDeps, 'store'>, id: string): AccountRow {
  const a = deps.store.accounts.get(id);
  if (!a) throw new CoordinatorError('unknown_account', `no account ${id} in this store`);
  return a;
}

async function defaultChainId(api: AccountsApi): Promise<bigint> {
  const status = await api.status();
  const eth = status.coins.find((c) => c.coin === COIN);
  if (!eth) throw new CoordinatorError('no_ethereum', 'the service this desk talks to does not serve ethereum, so it cannot hold an Ether account');
  return CHAIN_OF_NETWORK[eth.network] ?? 1n;
}

export function canonicalEtherAddress(text: string, field: string): string {
  try {
    return formatEthereumAddress(parseEthereumAddress(text, field));
  } catch (err) {
    throw new CoordinatorError('bad_address', err instanceof Error ? err.message : String(err));
  }
}

export async function createAccount(deps: AccountDeps, input: NewAccount): Promise<AccountRow> {
  const name = input.name.trim();
  if (!name) throw new CoordinatorError('bad_account', 'the account needs a name');
  const secret = input.kind === 'software' ? softwareSecretOf(input.key) : null;
  const address = secret ? addressOfSecret(secret) : canonicalEtherAddress(input.kind === 'ledger' ? input.address : '', 'address');
  const chainId = input.chainId ?? (await defaultChainId(deps.api));
  const existing = deps.store.accounts.byAddress(address, chainId);
  if (existing) throw new CoordinatorError('bad_account', `${address} is already the account "${existing.name}"`);
  const account: AccountRow = {
    id: randomUUID(),
    name,
    kind: input.kind,
    address,
    chainId,
    derivationPath: secret ? (secret.kind === 'mnemonic' ? secret.path : null) : input.kind === 'ledger' ? (input.derivationPath ?? ETHER_PATH) : null,
    createdAt: new Date().toISOString(),
  };
  // The key first: an account row whose key could not be kept would be an account nobody can spend.
  if (secret) saveSecret(deps.secrets(account.id), secret);
  try {
    deps.store.transaction(() => {
      deps.store.accounts.insert(account);
      const how = secret ? (input.kind === 'software' && input.key.source === 'generate' ? 'new software key' : `imported ${secret.kind === 'mnemonic' ? 'recovery words' : 'private key'}`) : `Ledger at ${account.derivationPath}`;
      deps.store.audit(deps.actor, 'account.create', `Ether account "${name}" ${address} on chain ${chainId} (${how}; ${account.id})`);
    });
  } catch (err) {
    if (secret) deps.secrets(account.id).clear();
    throw err;
  }
  return account;
}

export interface TokenInput {
  contract: string;
  /** Optional: a check against the contract's own symbol, or its name where the contract has none. */
  symbol?: string | undefined;
  /** Optional: a check against the contract's own decimals (a difference is refused). */
  decimals?: number | undefined;
}

/** Follows a token with the decimals and symbol its contract reports (main/core/accounts/tokens.ts). */
export async function addToken(deps: AccountDeps, accountId: string, input: TokenInput): Promise<TokenRow> {
  const account = requireAccount(deps, accountId);
  const contract = canonicalEtherAddress(input.contract, 'contract');
  const token = tokenToFollow(await readChainToken(deps.api, contract), input);
  // The account screen reads every followed token's balance: a contract that cannot answer one is refused now.
  try {
    await deps.api.tokenBalance(COIN, account.address, { contract_id: contract, decimal_places: token.decimals });
  } catch (err) {
    if (err instanceof ApiClientError && err.status < 500) throw new CoordinatorError('bad_token', `the service cannot read this token's balances: ${err.message}`);
    throw err;
  }
  deps.store.transaction(() => {
    if (!deps.store.accounts.addToken(accountId, token)) throw new CoordinatorError('bad_token', `account "${account.name}" already follows ${contract}`);
    deps.store.audit(deps.actor, 'account.token', `account ${accountId} follows ${token.symbol} (${contract}, ${token.decimals} decimals as the contract reports)`);
  });
  return token;
}

export interface AccountFunds {
  ether: Balance;
  tokens: { token: TokenRow; balance: Balance }[];
}

export async function accountFunds(deps: AccountDeps, accountId: string): Promise<AccountFunds> {
  const a = requireAccount(deps, accountId);
  const tokens = deps.store.accounts.tokens(accountId);
  const [ether, ...balances] = await Promise.all([
    deps.api.balance(COIN, a.address),
    ...tokens.map((t) => deps.api.tokenBalance(COIN, a.address, { contract_id: t.contract, decimal_places: t.decimals })),
  ]);
  return { ether: ether!, tokens: tokens.map((token, i) => ({ token, balance: balances[i]! })) };
}

export interface AccountHistoryEntry {
  txid: string;
  /** null for Ether. */
  token: TokenRow | null;
  /** Positive received, negative sent; in the smallest unit of the asset. */
  amount: bigint;
  confirmations: number;
  time: number;
}

/** Ether and every followed token's transfers, newest first (pending on top). */
export async function accountHistory(deps: AccountDeps, accountId: string, page: { limit: number; offset: number }): Promise<{ total: number; entries: AccountHistoryEntry[] }> {
  const a = requireAccount(deps, accountId);
  const tokens = deps.store.accounts.tokens(accountId);
  const [ether, ...perToken] = await Promise.all([
    deps.api.history(COIN, [a.address], { limit: 1000 }),
    ...tokens.map((t) => deps.api.tokenHistory(COIN, [a.address], { contract_id: t.contract, decimal_places: t.decimals }, { limit: 1000 })),
  ]);
  const entries: AccountHistoryEntry[] = [ether!, ...perToken].flatMap((h, i) =>
    h.txs.map((tx) => ({
      txid: tx.txid ?? `${tx.address}@${tx.time}`,
      token: i === 0 ? null : tokens[i - 1]!,
      amount: tx.is_deposit ? tx.amount : -tx.amount,
      confirmations: tx.confirmations,
      time: tx.time,
    })),
  );
  entries.sort((x, y) => x.confirmations - y.confirmations || y.time - x.time);
  return { total: entries.length, entries: entries.slice(page.offset, page.offset + page.limit) };
}

/** Who signs for this account: its kept software key, or its Ledger. */
export async function signerOf(deps: AccountDeps, account: AccountRow): Promise<EtherSigner> {
  if (account.kind === 'software') return loadSigner(deps.secrets(account.id), account.name);
  if (!deps.ledgerSigner) throw new CoordinatorError('no_ledger', `account "${account.name}" signs on a Ledger, and this desk has no Ledger support wired in: nothing was signed`);
  return deps.ledgerSigner(account);
}

/** Whether this desk can sign for the account now, and if not why (for the screen). */
export function signingState(deps: AccountDeps, account: AccountRow): { canSign: boolean; note: string } {
  if (account.kind === 'ledger') {
    return deps.ledgerSigner
      ? { canSign: true, note: `signs on a Ledger (Ethereum app, ${account.derivationPath ?? ETHER_PATH}); the device shows what it signs` }
      : { canSign: false, note: 'signs on a Ledger, which this desk cannot reach: it can show balances and history only' };
  }
  const store = deps.secrets(account.id);
  return store.load() !== null
    ? { canSign: true, note: `software key kept by this desk (${store.persistent ? 'encrypted by the operating system' : 'in memory only: it is gone when the desk stops'})` }
    : { canSign: false, note: 'the software key is no longer kept by this desk: it can show balances and history only' };
}
