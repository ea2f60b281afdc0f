// States that explain themselves: one sentence per payment state, saying what happens next. Pure.
import type { PaymentState } from './contract.ts';

export interface ExplainInput {
  state: PaymentState;
  m: number;
  /** The fewest signatures any input has. */
  signed: number;
  reason: string | null;
  lastError: string | null;
  confirmations: number;
}

export function explainPayment(p: ExplainInput): string {
  switch (p.state) {
    case 'awaiting_signatures': {
      const missing = p.m - p.signed;
      return `Waiting for signatures: ${p.signed} of ${p.m} so far. Export the signing request, have ${missing} more co-signer${missing === 1 ? '' : 's'} sign it, then import their signature files.`;
    }
    case 'ready':
      return p.lastError
        ? `Fully signed, but the network refused the last submission: ${p.lastError}. It can be submitted again.`
        : 'Fully signed: every input has its signatures. Submit it to broadcast the payment.';
    case 'broadcast':
      return p.confirmations > 0
        ? `Broadcast; ${p.confirmations} confirmation${p.confirmations === 1 ? '' : 's'} so far.`
        : 'Broadcast to the network; waiting for it to be mined into a block.';
    case 'confirmed':
      return `Confirmed in a block (${p.confirmations} confirmation${p.confirmations === 1 ? '' : 's'}). Nothing more to do.`;
    case 'cancelled':
      return `Cancelled: ${p.reason ?? 'no reason recorded'}. Signature files for it are refused.`;
    case 'failed':
      return `Failed: ${p.reason ?? 'no reason recorded'}.`;
  }
}
