// The shell: header with navigation and the service's status, and hash routes to the screens.
import { useEffect, useState } from 'react';
import { href, parseRoute, type Route } from './navigation.ts';
import { AccountsDetail } from './screens/AccountsDetail.tsx';
import { AccountsList } from './screens/AccountsList.tsx';
import { AccountsNew } from './screens/AccountsNew.tsx';
import { AccountsSend, AccountsSendReview } from './screens/AccountsSend.tsx';
import { AuditLog } from './screens/AuditLog.tsx';
import { CosignerMode } from './screens/CosignerMode.tsx';
import { Relay, useRelay } from './screens/Relay.tsx';
import { NewWallet } from './screens/NewWallet.tsx';
import { PaymentDetailScreen } from './screens/PaymentDetail.tsx';
import { PaymentsList } from './screens/PaymentsList.tsx';
import { ProposePayment } from './screens/ProposePayment.tsx';
import { Settings } from './screens/Settings.tsx';
import { WalletDetailScreen } from './screens/WalletDetail.tsx';
import { WalletsList } from './screens/WalletsList.tsx';
import { SyncBar, SyncProvider, useSync } from './sync.tsx';

function ServiceStatus() {
  const { status } = useSync();
  const s = status.data;
  const ok = s?.ok ?? false;
  const text = status.error ?? (s ? (ok ? `Service ${s.mode === 'embedded' ? '(embedded)' : s.service_url}: connected` : `Service: ${s.message}`) : 'Service: checking…');
  const tip = s?.coins.map((c) => `${c.coin} ${c.network}: block ${c.indexed_height ?? '—'} of ${c.tip_height ?? '—'}`).join('; ');
  return (
    <div className={`service ${ok ? 'service-ok' : 'service-bad'}`} role="status" title={tip} data-testid="service-status">
      <span className="dot" aria-hidden="true" />
      {text}
    </div>
  );
}

function Desk() {
  const [route, setRoute] = useState<Route>(() => parseRoute(window.location.hash));
  useEffect(() => {
    const onHash = () => setRoute(parseRoute(window.location.hash));
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, []);
  useEffect(() => {
    document.getElementById('main')?.focus();
  }, [route]);
  const section = route.screen === 'payments' || route.screen === 'payment' ? 'payments' : route.screen === 'cosigner' ? 'cosigner' : route.screen === 'relay' ? 'relay' : route.screen === 'settings' ? 'settings' : route.screen === 'audit' ? 'audit' : route.screen.includes('account') ? 'accounts' : 'wallets';
  return (
    <div className="app">
      <a className="skip" href="#main" onClick={(e) => (e.preventDefault(), document.getElementById('main')?.focus())}>
        Skip to content
      </a>
      <header className="topbar">
        <div className="brand">
          <span className="logo" aria-hidden="true">◆</span> Countersign
        </div>
        <nav aria-label="Main">
          <a href={href.wallets} aria-current={section === 'wallets' ? 'page' : undefined}>
            Wallets
          </a>
          <a href={href.payments} aria-current={section === 'payments' ? 'page' : undefined}>
            Payments
          </a>
          <a href={href.accounts} aria-current={section === 'accounts' ? 'page' : undefined}>
            Ether accounts
          </a>
          <a href={href.cosigner} aria-current={section === 'cosigner' ? 'page' : undefined}>
            Co-signer mode
          </a>
          <a href={href.relay} aria-current={section === 'relay' ? 'page' : undefined}>
            Relay
            <RelayBadge />
          </a>
          <a href={href.audit} aria-current={section === 'audit' ? 'page' : undefined}>
            Audit log
          </a>
          <a href={href.settings} aria-current={section === 'settings' ? 'page' : undefined}>
            Settings
          </a>
        </nav>
        <ServiceStatus />
      </header>
      <SyncBar />
      {/* Screens of one record are keyed by it: moving to another payment or wallet starts afresh
          (no import results or typed fields carried over from the last one). */}
      <main id="main" tabIndex={-1}>
        {route.screen === 'wallets' && <WalletsList />}
        {route.screen === 'new-wallet' && <NewWallet />}
        {route.screen === 'wallet' && <WalletDetailScreen key={route.id} id={route.id} />}
        {route.screen === 'propose' && <ProposePayment key={route.walletId} walletId={route.walletId} />}
        {route.screen === 'payments' && <PaymentsList />}
        {route.screen === 'payment' && <PaymentDetailScreen key={route.id} id={route.id} />}
        {route.screen === 'cosigner' && <CosignerMode />}
        {route.screen === 'relay' && <Relay />}
        {route.screen === 'settings' && <Settings />}
        {route.screen === 'audit' && <AuditLog />}
        {route.screen === 'accounts' && <AccountsList />}
        {route.screen === 'new-account' && <AccountsNew />}
        {route.screen === 'account' && <AccountsDetail key={route.id} id={route.id} />}
        {route.screen === 'account-send' && <AccountsSend key={route.accountId} accountId={route.accountId} />}
        {route.screen === 'account-send-detail' && <AccountsSendReview key={route.sendId} accountId={route.accountId} sendId={route.sendId} />}
      </main>
    </div>
  );
}

export function App() {
  return (
    <SyncProvider>
      <Desk />
    </SyncProvider>
  );
}

/** How many signing requests wait for the person at this desk, beside the Relay link. */
function RelayBadge() {
  const { status } = useRelay();
  const n = status?.waiting.length ?? 0;
  return n > 0 ? (
    <span className="badge" data-testid="relay-badge">
      {' '}
      {n}
    </span>
  ) : null;
}
