// States that explain themselves: one sentence per payment state, saying what happens next. Pure.
import type { PaymentState, SigningPathView } from './contract.ts';
import { plural } from '../../shared/api/words.ts';
import { signatureCount } from './signing-path.ts';

export interface ExplainInput {
  state: PaymentState;
  /** The path it is signed on (signing-path.ts): how many sign, and who. */
  path: Pick<SigningPathView, 'threshold' | 'keys' | 'recovery' | 'name'>;
  /** The fewest signatures any input has. */
  signed: number;
  reason: string | null;
  lastError: string | null;
  confirmations: number;
}

export function explainPayment(p: ExplainInput): string {
  switch (p.state) {
    case 'awaiting_signatures': {
      const missing = Math.max(0, p.path.threshold - p.signed);
      // M of N: any co-signer; a vault path: only its keys' holders.
      const who = p.path.name === 'co-signers' ? `co-signer${missing === 1 ? '' : 's'}` : `of ${p.path.keys.join(', ')} (the ${p.path.name})`;
      return `Waiting for signatures: ${signatureCount(p.signed, p.path)} so far. Export the signing request, have ${missing} more ${who} sign it, then import their signature files.`;
    }
    case 'ready':
      return p.lastError
        ? `Fully signed, but the network refused the last submission: ${p.lastError}. It can be submitted again.`
        : `Fully signed: every input has its ${plural(p.path.threshold, 'signature')}${p.path.name === 'co-signers' ? '' : ` on the ${p.path.name}`}. Submit it to broadcast the payment.`;
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
