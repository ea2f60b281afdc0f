// What the wallet may spend now, on the propose screen: outputs that unsent payments reserve and
// frozen ones are shown apart, not counted as available. With "send all" ticked it also asks what
// sending everything would pay after the fee, so the amount shown follows the rate and the outputs.
import { useEffect, useState } from 'react';
import type { SpendableView } from '../../../main/bridge/contract.ts';
import { call } from '../bridge.ts';
import { amount } from '../format.ts';
import { ProvisionalBadge } from '../sync.tsx';

/** How long typing pauses before the figures are asked again. */
const ASK_AFTER_MS = 350;

export interface SendAllDraft {
  to: string;
  inputs: string[] | null;
  fees: { miners_fee: bigint } | { fee_rate: bigint } | null;
  operator: { address: string; fee_amount: bigint } | null;
}

/** The wallet's spendable figures, asked again when the draft changes; stale answers are dropped. */
export function useSpendable(walletId: string, sendAll: SendAllDraft | null): { data: SpendableView | null; error: string | null } {
  const [state, setState] = useState<{ data: SpendableView | null; error: string | null }>({ data: null, error: null });
  const key = JSON.stringify(sendAll, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
  useEffect(() => {
    let live = true;
    const t = setTimeout(() => {
      const ask = sendAll && sendAll.fees
        ? {
            send_all: {
              ...(sendAll.to.trim() ? { to: sendAll.to.trim() } : {}),
              ...(sendAll.inputs && sendAll.inputs.length > 0 ? { inputs: sendAll.inputs } : {}),
              ...sendAll.fees,
              ...(sendAll.operator ? { operator: sendAll.operator } : {}),
            },
          }
        : {};
      call('payments.spendable', { wallet_id: walletId, ...ask }).then(
        (data) => live && setState({ data, error: null }),
        (e: unknown) => live && setState((s) => ({ data: s.data, error: e instanceof Error ? e.message : String(e) })),
      );
    }, ASK_AFTER_MS);
    return () => {
      live = false;
      clearTimeout(t);
    };
    // `key` is the draft's value: asked again only when it changes.
  }, [walletId, key]);
  return state;
}

/** "Available: …", then what is reserved and frozen, each in the coin's unit. */
export function SpendableLine({ spendable, provisional }: { spendable: { data: SpendableView | null; error: string | null }; provisional: boolean }) {
  const s = spendable.data;
  if (!s) return <p>Available: {spendable.error ? <span className="muted">not known ({spendable.error})</span> : '…'}</p>;
  const n = s.reserved.payments.length;
  return (
    <>
      <p>
        Available: <strong className={provisional ? 'provisional' : undefined} data-testid="available">{amount(s.available.balance, s.unit)}</strong>
        {s.available.unconfirmed_balance !== 0n && <span className="muted"> ({amount(s.available.unconfirmed_balance, s.unit)} of it unconfirmed)</span>}
        {provisional && <> <ProvisionalBadge /></>}
      </p>
      {s.reserved.amount !== 0n && (
        <p className="muted small" data-testid="reserved">
          Not counted: {amount(s.reserved.amount, s.unit)} reserved by {n === 1 ? 'a payment' : `${n} payments`} awaiting signatures or ready (cancel {n === 1 ? 'it' : 'one'} to release {n === 1 ? 'its' : 'their'} outputs).
        </p>
      )}
      {s.frozen.amount !== 0n && (
        <p className="muted small" data-testid="frozen">
          Not counted: {amount(s.frozen.amount, s.unit)} in frozen outputs (pick them by hand to spend them).
        </p>
      )}
    </>
  );
}
