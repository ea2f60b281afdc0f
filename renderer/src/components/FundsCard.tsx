import type { ReactNode } from 'react';
import { usd } from '../format.ts';
import { ProvisionalBadge } from '../sync.tsx';
import { Card } from '../ui.tsx';

/** The balance at a glance, its USD value at the service's rate, and what is still pending. */
/** `provisional`: the service's index is behind, so the figures are muted and badged (`notice` says why). */
export function FundsCard(props: { title: string; shown: ReactNode; testId?: string; usdBalance: number; pending: ReactNode; provisional?: boolean; notice?: ReactNode }) {
  const { title, shown, testId, usdBalance, pending, provisional = false, notice } = props;
  return (
    <Card title={title} actions={provisional ? <ProvisionalBadge /> : undefined} className={provisional ? 'funds-provisional' : undefined}>
      {notice}
      <p className={`balance${provisional ? ' provisional' : ''}`} {...(testId ? { 'data-testid': testId } : {})}>
        {shown}
      </p>
      <p className="muted">
        <span {...(testId ? { 'data-testid': `${testId}-usd` } : {})}>{usd(usdBalance)}</span> at the service's rate
        {pending && (
          <>
            {' · '}
            {pending}
          </>
        )}
      </p>
    </Card>
  );
}
