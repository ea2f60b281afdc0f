// The accounts.* channels over main/core/accounts: thin translations from core rows to the
// contract's views. Secrets never appear in a view: only whether and how the desk can sign.
import { bytesToHex } from '../../shared/coins/bytes.ts';
import { formatEthereumAddress } from '../../shared/coins/ethereum-address.ts';
import { accountFunds, accountHistory, addToken, canonicalEtherAddress, createAccount, networkOfChain, requireAccount, signingState, type AccountDeps } from '../core/accounts/accounts.ts';
import { readChainToken } from '../core/accounts/tokens.ts';
import type { AccountRow, SendRow, TokenRow } from '../core/store/account-store.ts';
import { ETHER_DECIMALS, SENDABLE_PLACES } from '../core/accounts/units.ts';
import { decodeErc20Transfer } from '../core/accounts/verify.ts';
import { cancelSend, confirmSend, proposeSend, refreshSend, requireSend, sendTransaction } from '../core/accounts/sends.ts';
import type { AccountSendView, AccountSummary, TokenView, Unit } from './contract.ts';
import type { Handlers } from './dispatch.ts';
import { unitOf } from './units.ts';

type AccountChannels = 'accounts.list' | 'accounts.create' | 'accounts.get' | 'accounts.tokenInfo' | 'accounts.addToken' | 'accounts.history' | 'accounts.send';

// `places`: the screen refuses as typed what the service could not take (finer than GWEI).
const etherUnit = (a: AccountRow): Unit => ({ ...unitOf('ethereum', networkOfChain(a.chainId), ETHER_DECIMALS), places: SENDABLE_PLACES });
const tokenView = (t: TokenRow): TokenView => ({
  contract: t.contract,
  symbol: t.symbol,
  decimals: t.decimals,
  unit: { ticker: t.symbol, decimals: t.decimals, smallest: `${t.symbol} base unit`, places: Math.min(t.decimals, SENDABLE_PLACES) },
});

function explainSend(s: SendRow, a: AccountRow): string {
  switch (s.state) {
    case 'proposed':
      return `Checked by this desk: the transaction pays exactly what was asked, and its hash is the one to sign. Confirm to sign it ${a.kind === 'ledger' ? 'on the Ledger' : 'with the account key'} and send it; nothing is signed until then.`;
    case 'broadcast':
      return 'Signed and handed to the network; waiting for it to be mined into a block.';
    case 'confirmed':
      return `Mined (${s.confirmations} confirmation${s.confirmations === 1 ? '' : 's'}). Nothing more to do.`;
    case 'cancelled':
      return `Cancelled: ${s.reason ?? 'no reason recorded'}. It was never signed.`;
    case 'failed':
      return `Failed: ${s.reason ?? 'no reason recorded'}. Nothing was sent; propose it again.`;
  }
}

export function createAccountHandlers(deps: AccountDeps): Pick<Handlers, AccountChannels> {
  const { store } = deps;

  const summary = (a: AccountRow): AccountSummary => {
    const sign = signingState(deps, a);
    return {
      id: a.id,
      name: a.name,
      kind: a.kind,
      address: a.address,
      chain_id: a.chainId.toString(),
      network: networkOfChain(a.chainId),
      derivation_path: a.derivationPath,
      created_at: a.createdAt,
      unit: etherUnit(a),
      tokens: store.accounts.tokens(a.id).map(tokenView),
      can_sign: sign.canSign,
      signing: sign.note,
    };
  };

  const sendView = (s: SendRow): AccountSendView => {
    const a = requireAccount(deps, s.accountId);
    const tx = sendTransaction(s);
    // What the transaction itself pays, decoded again here: the screen never shows the service's word for it.
    const pays = s.token ? decodeErc20Transfer(tx.data) : { to: formatEthereumAddress(tx.to), amount: tx.value };
    return {
      id: s.id,
      account_id: a.id,
      account_name: a.name,
      from: a.address,
      to: pays?.to ?? s.to,
      token: s.token ? tokenView(s.token) : null,
      amount: pays?.amount ?? s.amount,
      unit: s.token ? tokenView(s.token).unit : etherUnit(a),
      fee_amount: tx.gasLimit * tx.gasPrice,
      fee_unit: etherUnit(a),
      gas_price: tx.gasPrice.toString(),
      gas_limit: tx.gasLimit.toString(),
      nonce: tx.nonce.toString(),
      chain_id: tx.chainId.toString(),
      tx_to: formatEthereumAddress(tx.to),
      hash: `0x${bytesToHex(s.hash)}`,
      state: s.state,
      explanation: explainSend(s, a),
      reason: s.reason,
      txid: s.txid,
      confirmations: s.confirmations,
      created_at: s.createdAt,
      updated_at: s.updatedAt,
    };
  };

  /** Brings broadcast sends up to date; a failing service leaves them as stored. */
  const refreshed = async (s: SendRow): Promise<SendRow> => {
    if (s.state !== 'broadcast') return s;
    try {
      return await refreshSend(deps, s.id);
    } catch (err) {
      if (!(err instanceof Error)) throw err;
      return s;
    }
  };

  return {
    'accounts.list': async () => store.accounts.list().map(summary),

    'accounts.create': async (input) => {
      const a = await createAccount(
        deps,
        input.kind === 'software'
          ? {
              kind: 'software',
              name: input.name,
              key:
                input.key.source === 'generate'
                  ? { source: 'generate' }
                  : input.key.source === 'mnemonic'
                    ? { source: 'mnemonic', words: input.key.words, passphrase: input.key.passphrase }
                    : { source: 'private_key', privateKey: input.key.private_key },
            }
          : { kind: 'ledger', name: input.name, address: input.address, ...(input.derivation_path ? { derivationPath: input.derivation_path } : {}) },
      );
      return summary(a);
    },

    'accounts.get': async ({ account_id }) => {
      const a = requireAccount(deps, account_id);
      const funds = await accountFunds(deps, account_id);
      const sends = await Promise.all(store.accounts.sends(account_id).slice(0, 20).map(refreshed));
      const fundsOf = (b: { balance: bigint; unconfirmed_balance: bigint; usd_balance: number }) => ({ balance: b.balance, unconfirmed_balance: b.unconfirmed_balance, usd_balance: b.usd_balance });
      return {
        ...summary(a),
        ether: fundsOf(funds.ether),
        token_balances: funds.tokens.map((t) => ({ ...tokenView(t.token), ...fundsOf(t.balance) })),
        sends: sends.map(sendView),
      };
    },

    'accounts.tokenInfo': async ({ contract }) => {
      const t = await readChainToken(deps.api, canonicalEtherAddress(contract, 'contract'));
      return { contract: t.contract, name: t.name, symbol: t.symbol, decimals: t.decimals, symbol_needed: t.symbolNeeded };
    },

    'accounts.addToken': async ({ account_id, contract, symbol, decimals }) => {
      await addToken(deps, account_id, { contract, symbol, decimals });
      return summary(requireAccount(deps, account_id));
    },

    'accounts.history': async ({ account_id, limit, offset }) => {
      const a = requireAccount(deps, account_id);
      const h = await accountHistory(deps, account_id, { limit, offset });
      return {
        total: h.total,
        entries: h.entries.map((e) => ({
          txid: e.txid,
          asset: e.token?.symbol ?? 'ETH',
          amount: e.amount,
          unit: e.token ? tokenView(e.token).unit : etherUnit(a),
          confirmations: e.confirmations,
          time: e.time,
        })),
      };
    },

    'accounts.send': async (input) => {
      switch (input.action) {
        case 'propose':
          return sendView(
            await proposeSend(deps, input.account_id, {
              to: input.to,
              amount: input.amount,
              ...(input.token ? { token: input.token } : {}),
              ...(input.gas_price !== undefined ? { gasPrice: input.gas_price } : {}),
              ...(input.gas_limit !== undefined ? { gasLimit: input.gas_limit } : {}),
            }),
          );
        case 'confirm':
          return sendView(await confirmSend(deps, input.send_id));
        case 'cancel':
          return sendView(cancelSend(deps, input.send_id));
        case 'get':
          return sendView(await refreshed(requireSend(deps, input.send_id)));
      }
    },
  };
}
