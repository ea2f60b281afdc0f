// A payment's place among replacements: what it replaces, what replaced or dropped it, and, while it
// is stuck unconfirmed, a fee bump or cancel (BIP125) or a child from its change paying for it.
import { useState } from 'react';
import type { CpfpView, PaymentDetail, Unit } from '../../../main/bridge/contract.ts';
import { plural } from '../../../shared/api/words.ts';
import { call } from '../bridge.ts';
import { amount, shortId, usd } from '../format.ts';
import { go, href } from '../navigation.ts';
import { Alert, Card, message, useLoad } from '../ui.tsx';

const KIND: Record<PaymentDetail['replacement']['kind'], string> = {
  payment: 'payment',
  bump: 'fee bump',
  cancel: 'cancel',
  cpfp: 'child-pays-for-parent',
};

/** A reason from the core (lower case, no full stop) as a sentence on screen. */
const sentence = (s: string): string => (s === '' ? s : `${s[0]!.toUpperCase()}${s.slice(1)}${s.endsWith('.') ? '' : '.'}`);

const STATE: Record<PaymentDetail['state'], string> = {
  awaiting_signatures: 'awaiting signatures',
  ready: 'ready to submit',
  broadcast: 'sent',
  confirmed: 'confirmed',
  cancelled: 'cancelled',
  failed: 'failed',
};

/**
 * The review of a proposed child, in words: its own fee (in the coin and in USD) and size beside the
 * package rate it brings, the package it lifts (the parent with its proven unconfirmed ancestors),
 * and what was left out because nothing proves it unconfirmed.
 */
export function cpfpReview(c: CpfpView, unit: Unit, parent: 'parent' | 'deposit'): string {
  const n = c.parent.ancestors.length;
  const own = `Child proposed: its own fee is ${amount(c.child.miners_fee, unit)} (${c.child.usd === null ? 'no USD rate from the service' : usd(c.child.usd)}) for ${c.child.vsize} vbytes`;
  const left = c.left_out.map((w) => ` ${sentence(w)}`).join('');
  if (!c.parent_counted) return `${own}, ${c.package_rate} ${unit.smallest}/vB on its own.${left}`;
  const pkg = n === 0 ? `the ${parent}'s` : `the ${parent} and its ${n} unconfirmed ancestor${n === 1 ? '' : 's'}' (together)`;
  return `${own}; with ${pkg} ${amount(c.parent.miners_fee, unit)} for ${c.parent.vsize} vbytes the ${n === 0 ? 'pair' : 'package'} pays ${c.package_rate} ${unit.smallest}/vB.${left}`;
}

/** "replaced by", "replaces", "dropped": one line each, linking to the other payment. */
export function ReplacementLinks({ p }: { p: PaymentDetail }) {
  const r = p.replacement;
  if (!r.replaces && !r.replaced_by && !r.dropped_by && !r.dropped_by_txid && r.kind === 'payment' && r.replacements.length === 0 && r.children.length === 0) return null;
  return (
    <ul className="replacement-links" data-testid="replacement-links">
      {r.kind !== 'payment' && r.kind !== 'cpfp' && <li>This is a {KIND[r.kind]}.</li>}
      {r.kind === 'cpfp' && (
        <li data-testid="cpfp-parent">
          This is a speed-up (child pays for parent): it spends {r.parent ? <>the change of <a href={href.payment(r.parent)}>the payment it speeds up</a></> : 'an unconfirmed deposit'} back to the {r.home}, and its fee pays for both.
        </li>
      )}
      {r.children.map((c) => (
        <li key={c.id} data-testid="cpfp-child">
          Sped up by <a href={href.payment(c.id)}>a child paying for it</a> (child pays for parent, {STATE[c.state]}).
        </li>
      ))}
      {r.replaces && (
        <li>
          Replaces <a href={href.payment(r.replaces)}>payment {shortId(r.replaces)}</a>.
        </li>
      )}
      {r.replaced_by && (
        <li data-testid="replaced-by">
          Replaced by <a href={href.payment(r.replaced_by)}>payment {shortId(r.replaced_by)}</a>.
        </li>
      )}
      {r.refused && r.replaces && (
        <li data-testid="refused-replacement">
          The network refused this {KIND[r.kind]} (its reason is above), so <a href={href.payment(r.replaces)}>payment {shortId(r.replaces)}</a>, which it was to replace, is still
          stuck: pull it through there by a child from its change.
        </li>
      )}
      {r.replacements
        .filter((q) => q.id !== r.replaced_by)
        .map((q) => (
          <li key={q.id} data-testid="replacement-attempt">
            {q.kind === 'cancel' ? 'Cancel' : 'Fee bump'} proposed: <a href={href.payment(q.id)}>payment {shortId(q.id)}</a> ({q.refused ? 'refused by the network' : STATE[q.state]}).
          </li>
        ))}
      {r.dropped_parent && (r.dropped_by || r.dropped_by_txid) && (
        <li data-testid="dropped">
          Dropped: it spends the change of <a href={href.payment(r.dropped_parent)}>payment {shortId(r.dropped_parent)}</a>, which{' '}
          {r.dropped_by ? <a href={href.payment(r.dropped_by)}>payment {shortId(r.dropped_by)}</a> : <>transaction {r.dropped_by_txid}, sent from elsewhere,</>} replaced.
        </li>
      )}
      {r.dropped_by && !r.dropped_parent && (
        <li data-testid="dropped">
          Dropped: <a href={href.payment(r.dropped_by)}>payment {shortId(r.dropped_by)}</a> spent the same coins and confirmed.
        </li>
      )}
    </ul>
  );
}

/** The rate field with the service's presets (1, 6, 24 blocks). */
function RateField({ walletId, value, onChange, label, smallest }: { walletId: string; value: string; onChange: (v: string) => void; label: string; smallest: string }) {
  const presets = useLoad(() => call('payments.feeEstimates', { wallet_id: walletId }), [walletId]);
  return (
    <div>
      <label>
        {label} ({smallest}/vB)
        <input inputMode="numeric" value={value} onChange={(e) => onChange(e.target.value.trim())} data-testid="stuck-rate" />
      </label>
      {presets.data && (
        <div className="presets" role="group" aria-label="Fee rate presets">
          {presets.data.presets.map((e) => (
            <button type="button" key={e.blocks} onClick={() => onChange(String(e.fee_rate))}>
              {plural(e.blocks, 'block')}: {e.fee_rate}
              {e.source === 'fallback' ? ' (fallback)' : ''}
            </button>
          ))}
        </div>
      )}
    </div>
  );
}

/** Offered while the payment is broadcast and unconfirmed, and nothing replaces it yet. */
export function StuckPayment({ p }: { p: PaymentDetail }) {
  const r = p.replacement;
  const [rate, setRate] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [cpfp, setCpfp] = useState<{ text: string; id: string } | null>(null);
  if (p.state !== 'broadcast' || r.relief === null) return null;
  const valid = /^[0-9]{1,12}$/.test(rate) && BigInt(rate) >= 1n;
  /** `f` answers the new payment's id to open, or null to stay (the review is shown here). */
  const run = async (f: () => Promise<string | null>) => {
    setError(null);
    setBusy(true);
    try {
      const next = await f();
      if (next !== null) go(href.payment(next));
    } catch (err) {
      setError(message(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Card title="Stuck? Pull it through" className="stuck-payment">
      {error && <Alert>{error}</Alert>}
      {cpfp && (
        <Alert kind="success">
          <span data-testid="cpfp-review">{cpfp.text}</span> <a href={href.payment(cpfp.id)}>Open the child payment to collect signatures</a>.
        </Alert>
      )}
      {r.relief === 'replace' ? (
        <p className="muted">
          This payment signals replacement (BIP125). A fee bump pays the same recipients at a higher rate (less change); a cancel sends everything back to the {r.home}. Either is a new payment the
          co-signers sign again; it must pay a higher fee and a higher rate than this one ({p.fee_rate} {p.unit.smallest}/vB).
        </p>
      ) : (
        <p className="muted">
          {sentence(r.not_replaceable ?? '')} A child spending its change back to the {r.home} pays for both: child fee = target × (parent + child size) − parent fee.
        </p>
      )}
      <RateField walletId={p.wallet_id} value={rate} onChange={setRate} label={r.relief === 'replace' ? 'New fee rate' : 'Target rate for the pair'} smallest={p.unit.smallest} />
      <div className="form-actions">
        {r.relief === 'replace' ? (
          <>
            <button
              type="button"
              className="primary"
              disabled={!valid || busy}
              data-testid="bump"
              onClick={() => void run(async () => (await call('payments.replace', { payment_id: p.id, action: 'bump', fee_rate: BigInt(rate) })).id)}
            >
              Propose fee bump
            </button>
            <button
              type="button"
              className="danger"
              disabled={!valid || busy}
              data-testid="cancel-replace"
              onClick={() => void run(async () => (await call('payments.replace', { payment_id: p.id, action: 'cancel', fee_rate: BigInt(rate) })).id)}
            >
              Propose cancel (back to the {r.home})
            </button>
          </>
        ) : (
          r.change_output && (
            <button
              type="button"
              className="primary"
              disabled={!valid || busy}
              data-testid="cpfp"
              onClick={() =>
                void run(async () => {
                  const c = await call('payments.cpfp', { wallet_id: p.wallet_id, txid: r.change_output!.txid, vout: r.change_output!.vout, target_rate: BigInt(rate) });
                  setCpfp({
                    id: c.payment.id,
                    text: cpfpReview(c, p.unit, 'parent'),
                  });
                  return null;
                })
              }
            >
              Propose child-pays-for-parent
            </button>
          )
        )}
      </div>
    </Card>
  );
}
