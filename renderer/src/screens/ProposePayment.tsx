import { useEffect, useState, type FormEvent } from 'react';
import type { FieldRefusal } from '../../../main/bridge/contract.ts';
import { go, href } from '../navigation.ts';
import { call } from '../bridge.ts';
import { SubmitActions, TextField } from '../components/form.tsx';
import { amount, formatUnits, readAmount, readAsWords } from '../format.ts';
import { useSync } from '../sync.tsx';
import { Alert, Card, Loading, useAction, useLoad } from '../ui.tsx';
import { BatchRecipients, emptyRow, type BatchRow } from './BatchRecipients.tsx';
import { FeeChoice, feeArgs, type FeeMode } from './FeeChoice.tsx';
import { CoinControl } from './CoinControl.tsx';
import { SpendableLine, useSpendable } from './Spendable.tsx';
import { pathOpenings } from '../vault-paths.ts';
import { VaultPathChoice } from './VaultPathChoice.tsx';

/** How long typing pauses before the draft is checked: one check per pause, not per key. */
const CHECK_AFTER_MS = 350;

interface Draft {
  to: string;
  amount: bigint | null;
  fee: bigint | null;
  operator: { address: string; fee: bigint | null } | null;
}

/** The desk's refusals of the draft as typed, by field, and its warnings; stale answers are dropped. */
function useDraftCheck(walletId: string, draft: Draft): { refusals: FieldRefusal[]; warnings: string[] } {
  const [refusals, setRefusals] = useState<FieldRefusal[]>([]);
  const [warnings, setWarnings] = useState<string[]>([]);
  const key = JSON.stringify(draft, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
  useEffect(() => {
    let live = true;
    const t = setTimeout(() => {
      const { to, amount: units, fee, operator } = draft;
      call('payments.checkDraft', {
        wallet_id: walletId,
        ...(to.trim() ? { to: to.trim() } : {}),
        ...(units !== null ? { amount: units } : {}),
        ...(fee !== null ? { miners_fee: fee } : {}),
        ...(operator ? { operator: { ...(operator.address.trim() ? { address: operator.address.trim() } : {}), ...(operator.fee !== null ? { fee_amount: operator.fee } : {}) } } : {}),
      }).then(
        (c) => {
          if (!live) return;
          setRefusals(c.refusals);
          setWarnings(c.warnings);
        },
        // The check is a help, not a gate: a failure of it leaves the final check to Propose.
        () => {
          if (!live) return;
          setRefusals([]);
          setWarnings([]);
        },
      );
    }, CHECK_AFTER_MS);
    return () => {
      live = false;
      clearTimeout(t);
    };
    // `key` is the draft's value: the effect runs again only when what was typed changes.
  }, [walletId, key]);
  return { refusals, warnings };
}

export function ProposePayment({ walletId }: { walletId: string }) {
  const wallet = useLoad(() => call('wallets.get', { wallet_id: walletId }), [walletId]);
  const [to, setTo] = useState('');
  const [value, setValue] = useState('');
  const [fee, setFee] = useState('0.0002');
  const [withOperator, setWithOperator] = useState(false);
  const [opAddress, setOpAddress] = useState('');
  const [opFee, setOpFee] = useState('');
  const [purpose, setPurpose] = useState('');
  // A batch: several recipients in one transaction; null while paying one address.
  const [batch, setBatch] = useState<BatchRow[] | null>(null);
  const [batchRefused, setBatchRefused] = useState<number | null>(null);
  // A preset rate from the service's estimates by default; a custom rate, or a fixed fee.
  const [feeMode, setFeeMode] = useState<FeeMode>('normal');
  const [customRate, setCustomRate] = useState('');
  // Coin control: the outputs picked by hand; null lets the desk pick.
  const [picked, setPicked] = useState<string[] | null>(null);
  // Send all: everything free (or picked) to one address, the fee taken from the amount.
  const [sendAll, setSendAll] = useState(false);
  const presets = useLoad(() => call('payments.feePresets', { wallet_id: walletId }), [walletId]);
  const { busy, refusal, setError, run } = useAction();
  const { coins } = useSync();
  // A vault: its paths and when each opens for its coins, read again as the chain moves.
  const [vaultPath, setVaultPath] = useState(0);
  const chain = wallet.data ? coins.find((c) => c.coin === wallet.data?.coin && c.network === wallet.data?.network) : undefined;
  const vault = useLoad(() => (wallet.data?.vault ? call('vaults.get', { wallet_id: walletId }) : Promise.resolve(null)), [walletId, wallet.data?.vault, chain?.tip, chain?.indexed]);
  // Before the wallet loads no amount is read (its unit is not known yet).
  const unit = wallet.data?.unit ?? { ticker: '', decimals: 0, smallest: '' };
  const typedAmount = readAmount(value, unit);
  const typedFee = readAmount(fee, unit);
  const typedOpFee = readAmount(opFee, unit);
  const units = typedAmount.units;
  const feeUnits = feeMode === 'fixed' ? typedFee.units : 0n;
  const fees = feeArgs(feeMode, presets.data ?? null, feeUnits, customRate);
  const opUnits = withOperator ? typedOpFee.units : null;
  const everything = sendAll && !batch;
  const spendable = useSpendable(walletId, everything ? { to, inputs: picked, fees, operator: withOperator && opUnits !== null && opAddress.trim() ? { address: opAddress.trim(), fee_amount: opUnits } : null } : null);
  const sendAllFigures = everything && spendable.data?.send_all && 'amount' in spendable.data.send_all ? spendable.data.send_all : null;
  const { refusals, warnings } = useDraftCheck(walletId, { to: batch ? '' : to, amount: batch || everything ? null : units, fee: feeMode === 'fixed' ? feeUnits : null, operator: withOperator ? { address: opAddress, fee: opUnits } : null });
  const batchFees = { fee: feeMode === 'fixed' ? feeUnits : null, operatorFee: withOperator ? opUnits : null };
  // A refusal from Propose stands beside its field until the draft changes.
  useEffect(() => setError(null), [to, value, fee, feeMode, customRate, withOperator, opAddress, opFee, batch, vaultPath, picked, setError]);
  const w = wallet.data;
  if (wallet.error) return <Alert>{wallet.error}</Alert>;
  if (!w) return <Loading what="the wallet" />;
  const sync = coins.find((c) => c.coin === w.coin && c.network === w.network);
  // What is typed wrong is said first; then what the desk refuses of the draft (address, dust, funds).
  const errorOf = (field: string, typed: string | null = null): string | null => typed ?? refusals.find((r) => r.field === field)?.message ?? (refusal?.field === field ? refusal.message : null);
  const errors = {
    to: batch ? null : errorOf('to'),
    amount: batch || everything ? null : errorOf('amount', typedAmount.error),
    miners_fee: feeMode === 'fixed' ? errorOf('miners_fee', typedFee.error) : null,
    fee_rate: feeMode === 'fixed' || fees !== null ? null : `a fee rate is a whole number of ${w.unit.smallest}/vB, at least 1`,
    'operator.address': withOperator ? errorOf('operator.address') : null,
    'operator.fee_amount': withOperator ? errorOf('operator.fee_amount', typedOpFee.error) : null,
  };
  // A blank amount has no words (it is not typed yet) but still holds Propose back.
  const unfilled = (batch === null && !everything && units === null) || feeUnits === null || (withOperator && opUnits === null);
  // The path chosen must be open for the coins the payment may spend (a vault's form waits for its paths).
  const openings = vault.data ? pathOpenings(vault.data, picked) : null;
  const chosenPath = openings?.find((o) => o.path.blocks === vaultPath) ?? null;
  const pathClosed = w.vault && (chosenPath === null || !chosenPath.open);
  // Send all that the desk refuses (nothing free, dust left) holds Propose back while its refusal shows.
  const sendAllRefused = everything && !!spendable.data?.send_all && 'refused' in spendable.data.send_all;
  const refused = unfilled || sendAllRefused || Object.values(errors).some((e) => e !== null) || (batch !== null && batchRefused !== 0) || pathClosed;
  const batchUnits = batch?.map((r) => readAmount(r.amount, w.unit).units);
  const paid = batchUnits ? (batchUnits.every((u) => u !== null) ? batchUnits.reduce<bigint>((s, u) => s + (u ?? 0n), 0n) : null) : everything ? (sendAllFigures?.amount ?? null) : units;
  // Send all: the fee is known (the desk's), so the total is everything chosen.
  const fixedOrKnownFee = everything ? (sendAllFigures?.miners_fee ?? null) : feeUnits;
  const total = paid !== null && fixedOrKnownFee !== null && (!withOperator || opUnits !== null) ? paid + fixedOrKnownFee + (opUnits ?? 0n) : null;
  // In a batch the recipient fields are rows: a refusal of the amount (the wallet holds too little) stands alone.
  const fieldless = refusal && (refusal.field === null || !(refusal.field in errors) || (batch !== null && (refusal.field === 'to' || refusal.field === 'amount'))) ? refusal.message : null;

  // What was typed for one recipient becomes the batch's first row, and the first row comes back.
  const toggleBatch = (on: boolean) => {
    if (on) return setBatch([{ ...emptyRow(), to, amount: value }]);
    const first = batch?.[0];
    if (first && (first.to.trim() || first.amount.trim())) {
      setTo(first.to);
      setValue(first.amount);
    }
    setBatch(null);
  };

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (refused || fees === null) return;
    const operator = { ...(withOperator ? { operator: { address: opAddress, fee_amount: opUnits ?? 0n } } : {}), ...(picked && picked.length > 0 ? { inputs: picked } : {}), ...(w.vault ? { vault_path: vaultPath } : {}) };
    if (batch) {
      return run(async () => {
        const p = await call('payments.propose', { wallet_id: walletId, rows: batch, ...fees, ...operator, ...(purpose.trim() ? { purpose: purpose.trim() } : {}) });
        go(href.payment(p.id));
      });
    }
    if (everything) {
      return run(async () => {
        const p = await call('payments.propose', { wallet_id: walletId, to, send_all: true, ...fees, ...operator, ...(purpose.trim() ? { purpose: purpose.trim() } : {}) });
        go(href.payment(p.id));
      });
    }
    if (units === null) return;
    return run(async () => {
      const p = await call('payments.propose', {
        wallet_id: walletId,
        to,
        amount: units,
        ...fees,
        ...operator,
        ...(purpose.trim() ? { purpose: purpose.trim() } : {}),
      });
      go(href.payment(p.id));
    });
  };

  return (
    <form onSubmit={(e) => void submit(e)}>
      <div className="page-head">
        <div>
          <a className="back" href={href.wallet(w.id)}>
            ← {w.name}
          </a>
          <h1>Propose a payment</h1>
          <p className="muted">
            The service builds the transaction; this desk decodes it and checks every input, output and hash before storing it.{' '}
            <span data-testid="propose-signers">
              {w.vault
                ? chosenPath
                  ? `Nothing moves until ${chosenPath.path.threshold} of ${chosenPath.path.keys.length} (${chosenPath.path.keys.join(', ')}) sign, on the ${chosenPath.path.signing.name}.`
                  : 'Nothing moves until the keys of the path chosen below sign.'
                : `Nothing moves until ${w.m} of ${w.n} co-signers sign.`}
            </span>
          </p>
        </div>
      </div>
      <Card>
        <SpendableLine spendable={spendable} provisional={!!sync && !sync.final} />
        <label className="inline">
          <input type="checkbox" checked={batch !== null} onChange={(e) => toggleBatch(e.target.checked)} data-testid="batch-mode" /> Pay several recipients in one transaction (a batch)
        </label>
        {batch ? (
          <BatchRecipients walletId={walletId} unit={w.unit} rows={batch} onRows={setBatch} onRefusals={setBatchRefused} {...batchFees} />
        ) : (
          <>
            <TextField label="Pay to (address)" value={to} onChange={setTo} required spellCheck={false} className="mono" data-testid="pay-to" error={errors.to} errorTestId="pay-to-error" />
            {warnings.map((text) => (
              <p key={text} className="alert alert-warning" role="alert" data-testid="pay-to-dropped-warning">
                Careful: {text}.
              </p>
            ))}
          </>
        )}
        {!batch && (
          <label className="inline">
            <input type="checkbox" checked={sendAll} onChange={(e) => setSendAll(e.target.checked)} data-testid="send-all" /> Send all: everything available{picked && picked.length > 0 ? ' in the outputs picked' : ''} to this address, the miners&apos; fee taken from the amount
          </label>
        )}
        <div className="grid-2">
          {!batch && !everything && <TextField label={`Amount (${w.unit.ticker})`} value={value} onChange={setValue} required inputMode="decimal" placeholder="0.00" data-testid="pay-amount" error={errors.amount} errorTestId="pay-amount-error" />}
          {!batch && !everything && readAsWords(value, units, w.unit) && (
            <p className="muted small read-as" aria-live="polite" data-testid="pay-amount-read">
              {readAsWords(value, units, w.unit)}
            </p>
          )}
        </div>
        {everything && (
          <p aria-live="polite" data-testid="send-all-amount">
            {sendAllFigures ? (
              <>
                Amount ({w.unit.ticker}): <strong>{formatUnits(sendAllFigures.amount, w.unit.decimals)}</strong>{' '}
                <span className="muted">
                  (everything in {sendAllFigures.outputs === 1 ? '1 output' : `${sendAllFigures.outputs} outputs`}, less the miners&apos; fee of {amount(sendAllFigures.miners_fee, w.unit)}; no change)
                </span>
              </>
            ) : spendable.data?.send_all && 'refused' in spendable.data.send_all ? (
              <span className="field-error" role="alert">{spendable.data.send_all.refused}</span>
            ) : fees === null ? (
              <span className="muted">Amount: choose the fee first.</span>
            ) : (
              <span className="muted">Amount: working it out…</span>
            )}
          </p>
        )}
        <TextField
          label={
            <>
              Purpose <span className="muted small">(optional: what the payment is for, shown in the lists and the books)</span>
            </>
          }
          value={purpose}
          onChange={setPurpose}
          maxLength={255}
          placeholder="e.g. March payroll, invoice 2026-114"
          data-testid="pay-purpose"
          error={refusal?.field === 'purpose' ? refusal.message : null}
        />
        <FeeChoice unit={w.unit} presets={presets} mode={feeMode} onMode={setFeeMode} customRate={customRate} onCustomRate={setCustomRate} rateError={errors.fee_rate} />
        {feeMode === 'fixed' && <TextField label={`Miners' fee (${w.unit.ticker})`} value={fee} onChange={setFee} required inputMode="decimal" data-testid="pay-fee" error={errors.miners_fee} errorTestId="pay-fee-error" />}
        <label className="inline">
          <input type="checkbox" checked={withOperator} onChange={(e) => setWithOperator(e.target.checked)} /> Add an operator fee output
        </label>
        {withOperator && (
          <div className="grid-2">
            <TextField label="Operator fee address" value={opAddress} onChange={setOpAddress} required className="mono" error={errors['operator.address']} errorTestId="pay-operator-address-error" />
            <TextField label={`Operator fee (${w.unit.ticker})`} value={opFee} onChange={setOpFee} required inputMode="decimal" error={errors['operator.fee_amount']} errorTestId="pay-operator-fee-error" />
          </div>
        )}
        <CoinControl walletId={walletId} unit={w.unit} picked={picked} onPicked={setPicked} />
        {w.vault && (vault.data ? <VaultPathChoice vault={vault.data} picked={picked} chosen={vaultPath} onChoose={setVaultPath} /> : vault.error ? <Alert>{vault.error}</Alert> : <Loading what="the vault's paths" />)}
        <p className="total" aria-live="polite">
          Total leaving the wallet: <strong>{total === null ? '—' : amount(total, w.unit)}</strong>
          {feeMode !== 'fixed' && !everything && <span className="muted"> and the miners&apos; fee at the rate chosen (shown in the review)</span>}
        </p>
      </Card>
      {fieldless && <Alert>{fieldless}</Alert>}
      <SubmitActions label="Propose payment" busyLabel="Building and checking…" busy={busy} disabled={refused} testId="propose" cancelHref={href.wallet(w.id)} />
    </form>
  );
}
