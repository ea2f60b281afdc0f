import { call } from '../bridge.ts';
import { useDeskRevision } from '../sync.tsx';
import { Alert, Card, Loading, useLoad } from '../ui.tsx';
import { PaymentsTable } from './WalletDetail.tsx';

export function PaymentsList() {
  // Loaded again whenever the desk records a change, e.g. a payment its follower saw confirm.
  const payments = useLoad(() => call('payments.list', {}), [useDeskRevision()]);
  return (
    <>
      <div className="page-head">
        <div>
          <h1>Payments</h1>
          <p className="muted">Every payment of every wallet, newest first. A payment is never deleted: cancelled and failed ones keep their reason.</p>
        </div>
      </div>
      {payments.error && <Alert>{payments.error}</Alert>}
      <Card>{payments.data ? <PaymentsTable payments={payments.data} /> : <Loading what="payments" />}</Card>
    </>
  );
}
