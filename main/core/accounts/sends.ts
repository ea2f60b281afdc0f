// Sending Ether or a token from an account: propose (the service builds, this desk decodes and
// re-hashes, checks the funds, stores the verified transaction) -> the person confirms -> sign ->
// sign_and_send -> follow to confirmation. A proposal refused here is never stored or signed.
import { randomUUID } from 'node:crypto';
import { ApiClientError } from '../../../shared/api/client.ts';
import { bytesToHex } from '../../../shared/coins/bytes.ts';
import { normaliseSignature, serializeSigned, transactionHash, type LegacyTx } from '../../../shared/coins/ethereum-tx.ts';
import { CoordinatorError } from '../errors.ts';
import { checkedEtherSignature, decodeUnsignedEtherTx } from '../ether-signer.ts';
import type { AccountRow, SendRow, SendState } from '../store/account-store.ts';
import { accountFunds, canonicalEtherAddress, requireAccount, signerOf, type AccountDeps } from './accounts.ts';
import { ETHER_DECIMALS, etherToGwei, shown, tokenToGwei } from './units.ts';
import { verifyCreatedTransfer } from './verify.ts';
import { plural } from '../../../shared/api/words.ts';

export interface SendInput {
  to: string;
  /** wei, or the token's raw units. */
  amount: bigint;
  /** Contract of a token the account follows; absent for Ether. */
  token?: string;
  gasPrice?: bigint;
  gasLimit?: bigint;
}

function refuse(why: string): never {
  throw new CoordinatorError('send_refused', `refusing the send: ${why}; nothing was signed`);
}

function insufficient(what: string): never {
  throw new CoordinatorError('insufficient_funds', `insufficient funds: ${what}; nothing was signed`);
}

export function requireSend(deps: Pick<AccountDeps, 'store'>, id: string): SendRow {
  const s = deps.store.accounts.send(id);
  if (!s) throw new CoordinatorError('unknown_send', `no send ${id} in this store`);
  return s;
}

/** The parameters endpoints 11-14 take for this send (GWEI amounts, contract and decimals for tokens). */
function serviceParams(account: AccountRow, send: Pick<SendRow, 'to' | 'amount' | 'token'>, gas?: { gasPrice: bigint; gasLimit: bigint }) {
  const base = {
    from: account.address,
    to: send.to,
    amount: send.token ? tokenToGwei(send.amount, send.token.decimals, send.token.symbol) : etherToGwei(send.amount),
    ...(gas ? { gas_price: gas.gasPrice, gas_limit: gas.gasLimit } : {}),
  };
  return send.token ? { ...base, contract_id: send.token.contract, decimal_places: send.token.decimals } : base;
}

const ETH = (wei: bigint) => shown(wei, ETHER_DECIMALS, 'ETH');

export async function proposeSend(deps: AccountDeps, accountId: string, input: SendInput): Promise<SendRow> {
  const account = requireAccount(deps, accountId);
  const to = canonicalEtherAddress(input.to, 'to');
  if (input.amount <= 0n) refuse('the amount must be more than zero');
  let token = null;
  if (input.token !== undefined) {
    const contract = canonicalEtherAddress(input.token, 'token');
    token = deps.store.accounts.tokens(accountId).find((t) => t.contract.toLowerCase() === contract.toLowerCase()) ?? null;
    if (!token) refuse(`account "${account.name}" does not follow the token ${contract}: add it first`);
  }
  const intended = { to, token, amount: input.amount };
  const params = serviceParams(account, intended); // refuses amounts finer than the service's units

  // Before asking the service to build anything: enough of the asset (pending transfers count).
  const funds = await accountFunds(deps, accountId);
  const spendableEther = funds.ether.balance + funds.ether.unconfirmed_balance;
  if (token) {
    const held = funds.tokens.find((t) => t.token.contract === token.contract)!.balance;
    const spendable = held.balance + held.unconfirmed_balance;
    if (input.amount > spendable) insufficient(`the account holds ${shown(spendable, token.decimals, token.symbol)}, less than the ${shown(input.amount, token.decimals, token.symbol)} to send`);
  } else if (input.amount > spendableEther) {
    insufficient(`the account holds ${ETH(spendableEther)}, less than the ${ETH(input.amount)} to send`);
  }

  const query = { ...params, ...(input.gasPrice !== undefined ? { gas_price: input.gasPrice } : {}), ...(input.gasLimit !== undefined ? { gas_limit: input.gasLimit } : {}) };
  const created = 'contract_id' in query ? await deps.api.createErc20(query) : await deps.api.createEther(query);
  let verified;
  try {
    verified = verifyCreatedTransfer(
      { chainId: account.chainId, ...intended, ...(input.gasPrice !== undefined ? { gasPrice: input.gasPrice } : {}), ...(input.gasLimit !== undefined ? { gasLimit: input.gasLimit } : {}) },
      created,
    );
  } catch (err) {
    if (err instanceof CoordinatorError) deps.store.audit(deps.actor, 'account.send_refused', `account ${accountId}: ${err.message}`);
    throw err;
  }
  const needEther = (token ? 0n : input.amount) + verified.fee;
  if (needEther > spendableEther) {
    insufficient(`the account holds ${ETH(spendableEther)}; this send needs ${token ? '' : `${ETH(input.amount)} plus `}up to ${ETH(verified.fee)} of fee (${verified.tx.gasLimit} gas at ${verified.tx.gasPrice} wei)`);
  }

  const id = randomUUID();
  deps.store.transaction(() => {
    // One open proposal per account: a newer one takes the same nonce, so the older could never be sent.
    for (const old of deps.store.accounts.sends(accountId).filter((s) => s.state === 'proposed')) {
      deps.store.accounts.updateSend(old.id, { state: 'cancelled', reason: 'replaced by a newer proposal from this account' });
    }
    deps.store.accounts.insertSend({ id, accountId, token, to, amount: input.amount, unsignedTx: verified.unsignedTx, hash: verified.hash });
    const what = token ? shown(input.amount, token.decimals, token.symbol) : ETH(input.amount);
    deps.store.audit(deps.actor, 'account.send_propose', `send ${id} from ${account.address}: ${what} to ${to}, fee up to ${ETH(verified.fee)}; nonce ${verified.tx.nonce}, chain ${verified.tx.chainId}; hash 0x${bytesToHex(verified.hash)}`);
  });
  return requireSend(deps, id);
}

function transition(deps: AccountDeps, send: SendRow, from: readonly SendState[], to: SendState, detail: string, extra: { reason?: string | null; txid?: string; confirmations?: number } = {}): void {
  if (!from.includes(send.state)) throw new CoordinatorError('bad_state', `send ${send.id} is ${send.state}: it cannot become ${to}`);
  deps.store.transaction(() => {
    deps.store.accounts.updateSend(send.id, { state: to, ...extra });
    deps.store.audit(deps.actor, `account.send_${to}`, `send ${send.id}: ${detail}`);
  });
}

export function cancelSend(deps: AccountDeps, id: string, reason = 'cancelled before signing'): SendRow {
  transition(deps, requireSend(deps, id), ['proposed'], 'cancelled', reason, { reason });
  return requireSend(deps, id);
}

/** The decoded transaction of a stored send (it was verified when proposed). */
export const sendTransaction = (send: SendRow): LegacyTx => decodeUnsignedEtherTx(bytesToHex(send.unsignedTx));

/** Signs the verified transaction with the account's signer and hands (r, s, v) to sign_and_send. */
export async function confirmSend(deps: AccountDeps, id: string): Promise<SendRow> {
  const send = requireSend(deps, id);
  if (send.state !== 'proposed') throw new CoordinatorError('bad_state', `send ${id} is ${send.state}: only a proposed send can be confirmed`);
  const account = requireAccount(deps, send.accountId);
  const tx = sendTransaction(send);
  const signer = await signerOf(deps, account);
  const signerAddress = await signer.address();
  if (signerAddress.toLowerCase() !== account.address.toLowerCase()) {
    throw new CoordinatorError('wrong_key', `the ${account.kind === 'ledger' ? 'Ledger' : 'key'} holds ${signerAddress}, not this account's ${account.address}: nothing was signed`);
  }
  // Whatever the signer is, its answer must recover to the account over this very transaction.
  const sig = checkedEtherSignature(tx, account.address, await signer.sign(`0x${bytesToHex(send.unsignedTx)}`));
  const query = { ...serviceParams(account, send, tx), r: sig.r, s: sig.s, v: sig.v };
  let sent;
  try {
    sent = 'contract_id' in query ? await deps.api.signAndSendErc20(query) : await deps.api.signAndSendEther(query);
  } catch (err) {
    if (!(err instanceof ApiClientError)) throw err;
    if (err.status === 0 || err.status >= 500) {
      // Unreachable or failing service: whether it broadcast is unknown, so the send stays as it was.
      throw new CoordinatorError('service', `the service did not take the signed send (${err.message}); it stays proposed: try again when the service answers`);
    }
    transition(deps, send, ['proposed'], 'failed', `refused by the service: ${err.message}`, { reason: err.message });
    throw new CoordinatorError('send_failed', `the service refused the signed send: ${err.message}`);
  }
  const ours = transactionHash(serializeSigned(tx, normaliseSignature(sig.r, sig.s, sig.v, tx.chainId)));
  const theirs = sent.message.toLowerCase();
  transition(deps, send, ['proposed'], 'broadcast', `broadcast as ${ours}`, {
    txid: ours,
    reason: theirs === ours ? null : `the service reported the transaction as ${sent.message}, but the signed transaction's hash is ${ours}`,
  });
  return requireSend(deps, id);
}

/** Follows a broadcast send to its first confirmation through the account's history. */
export async function refreshSend(deps: AccountDeps, id: string): Promise<SendRow> {
  const send = requireSend(deps, id);
  if ((send.state !== 'broadcast' && send.state !== 'confirmed') || !send.txid) return send;
  const account = requireAccount(deps, send.accountId);
  const history = send.token
    ? await deps.api.tokenHistory('ethereum', [account.address], { contract_id: send.token.contract, decimal_places: send.token.decimals }, { limit: 50 })
    : await deps.api.history('ethereum', [account.address], { limit: 50 });
  const entry = history.txs.find((t) => t.txid?.toLowerCase() === send.txid);
  if (!entry) return send;
  if (send.state === 'broadcast' && entry.confirmations >= 1) {
    transition(deps, send, ['broadcast'], 'confirmed', plural(entry.confirmations, 'confirmation'), { confirmations: entry.confirmations });
  } else if (entry.confirmations !== send.confirmations) {
    deps.store.accounts.updateSend(id, { confirmations: entry.confirmations });
  }
  return requireSend(deps, id);
}
