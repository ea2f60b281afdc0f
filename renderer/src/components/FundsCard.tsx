import type { ReactNode } from 'react';
import { usd } from '../format.ts';
import { Card } from '../ui.tsx';

/** The balance at a glance, its USD value at the service's rate, and what is still pending. */
export function FundsCard({ title, shown, testId, usdBalance, pending }: { title: string; shown: ReactNode; testId?: string; usdBalance: number; pending: ReactNode }) {
  return (
    <Card title={title}>
      <p className="balance" {...(testId ? { 'data-testid': testId } : {})}>
        {shown}
      </p>
      <p className="muted">
        {usd(usdBalance)} at the service's rate
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
