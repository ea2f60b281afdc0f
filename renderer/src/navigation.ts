// Where the desk's screens live: routes as hash URLs (#/wallets/<id>/pay ...), read by App and
// linked to by every screen. Its own module so screens link without importing App, which imports them.
export type Route =
  | { screen: 'wallets' }
  | { screen: 'new-wallet' }
  | { screen: 'wallet'; id: string }
  | { screen: 'propose'; walletId: string }
  | { screen: 'payments' }
  | { screen: 'payment'; id: string }
  | { screen: 'cosigner' }
  | { screen: 'relay' }
  | { screen: 'settings' }
  | { screen: 'audit' }
  | { screen: 'accounts' }
  | { screen: 'new-account' }
  | { screen: 'account'; id: string }
  | { screen: 'account-send'; accountId: string }
  | { screen: 'account-send-detail'; accountId: string; sendId: string };

export function parseRoute(hash: string): Route {
  const parts = hash.replace(/^#\/?/, '').split('/').filter(Boolean).map(decodeURIComponent);
  const [a, b, c, d] = parts;
  if (a === 'accounts' && b === 'new') return { screen: 'new-account' };
  if (a === 'accounts' && b && c === 'send' && d) return { screen: 'account-send-detail', accountId: b, sendId: d };
  if (a === 'accounts' && b && c === 'send') return { screen: 'account-send', accountId: b };
  if (a === 'accounts' && b) return { screen: 'account', id: b };
  if (a === 'accounts') return { screen: 'accounts' };
  if (a === 'wallets' && b === 'new') return { screen: 'new-wallet' };
  if (a === 'wallets' && b && c === 'pay') return { screen: 'propose', walletId: b };
  if (a === 'wallets' && b) return { screen: 'wallet', id: b };
  if (a === 'payments' && b) return { screen: 'payment', id: b };
  if (a === 'payments') return { screen: 'payments' };
  if (a === 'cosigner') return { screen: 'cosigner' };
  if (a === 'relay') return { screen: 'relay' };
  if (a === 'settings') return { screen: 'settings' };
  if (a === 'audit') return { screen: 'audit' };
  return { screen: 'wallets' };
}

export const href = {
  wallets: '#/wallets',
  newWallet: '#/wallets/new',
  wallet: (id: string) => `#/wallets/${encodeURIComponent(id)}`,
  propose: (id: string) => `#/wallets/${encodeURIComponent(id)}/pay`,
  payments: '#/payments',
  payment: (id: string) => `#/payments/${encodeURIComponent(id)}`,
  cosigner: '#/cosigner',
  relay: '#/relay',
  settings: '#/settings',
  audit: '#/audit',
  accounts: '#/accounts',
  newAccount: '#/accounts/new',
  account: (id: string) => `#/accounts/${encodeURIComponent(id)}`,
  accountSend: (id: string) => `#/accounts/${encodeURIComponent(id)}/send`,
  accountSendDetail: (id: string, sendId: string) => `#/accounts/${encodeURIComponent(id)}/send/${encodeURIComponent(sendId)}`,
};

export const go = (to: string): void => {
  window.location.hash = to;
};
