// Following an ERC20 token: the person pastes the contract, the desk shows what the contract
// reports of itself (name, symbol, decimals), and the person confirms. Nothing about the token is
// typed but its address, and a symbol only for a contract that has none the desk can show.
import { useState, type FormEvent } from 'react';
import type { AccountDetail, TokenPreview } from '../../../main/bridge/contract.ts';
import { call } from '../bridge.ts';
import { Alert, useAction } from '../ui.tsx';
import { TextField } from './form.tsx';

const none = <span className="muted">none reported</span>;

export function FollowToken({ account, onAdded }: { account: AccountDetail; onAdded: () => void }) {
  const [open, setOpen] = useState(false);
  const [contract, setContract] = useState('');
  const [preview, setPreview] = useState<TokenPreview | null>(null);
  const [symbol, setSymbol] = useState('');
  const { busy, error, setError, run } = useAction();
  const close = () => {
    setOpen(false);
    setContract('');
    setPreview(null);
    setSymbol('');
    setError(null);
  };
  if (!open)
    return (
      <div className="form-actions">
        <button type="button" onClick={() => setOpen(true)} data-testid="add-token-open">
          Follow a token
        </button>
      </div>
    );

  const read = (e: FormEvent) => {
    e.preventDefault();
    return run(async () => setPreview(await call('accounts.tokenInfo', { contract })));
  };
  if (!preview)
    return (
      <form onSubmit={(e) => void read(e)} className="subform" aria-label="Follow a token">
        <TextField label="Token contract address" value={contract} onChange={setContract} required className="mono" placeholder="0x…" data-testid="token-contract" />
        <p className="muted small">The desk reads the token's name, symbol and decimals from the contract itself and shows them before you confirm.</p>
        {error && <Alert>{error}</Alert>}
        <div className="form-actions">
          <button type="submit" className="primary" disabled={busy} data-testid="token-read">
            {busy ? 'Reading the contract…' : 'Read token'}
          </button>
          <button type="button" onClick={close}>
            Cancel
          </button>
        </div>
      </form>
    );

  const follow = (e: FormEvent) => {
    e.preventDefault();
    return run(async () => {
      // The decimals shown go along: should the contract answer otherwise now, the desk refuses.
      await call('accounts.addToken', { account_id: account.id, contract: preview.contract, decimals: preview.decimals, symbol: preview.symbol_needed ? symbol : (preview.symbol ?? undefined) });
      close();
      onAdded();
    });
  };
  const shownSymbol = preview.symbol_needed ? symbol.trim() || 'token' : preview.symbol;
  return (
    <form onSubmit={(e) => void follow(e)} className="subform" aria-label="Follow a token">
      <p className="small">
        <strong>As the contract reports it</strong>
      </p>
      <dl className="facts" data-testid="token-preview">
        <dt>Name</dt>
        <dd data-testid="token-name">{preview.name ?? none}</dd>
        <dt>Symbol</dt>
        <dd data-testid="token-symbol-read">{preview.symbol ?? none}</dd>
        <dt>Decimals</dt>
        <dd data-testid="token-decimals-read">{preview.decimals}</dd>
        <dt>Contract</dt>
        <dd className="mono">{preview.contract}</dd>
      </dl>
      <p className="muted small">
        Balances and sends of this token use these {preview.decimals} decimals: 1 {shownSymbol} is 10<sup>{preview.decimals}</sup> of the contract's units.
      </p>
      {preview.symbol_needed && (
        <TextField
          label="Symbol to show (the contract reports none this desk can show)"
          value={symbol}
          onChange={setSymbol}
          required
          maxLength={12}
          data-testid="token-symbol"
        />
      )}
      {error && <Alert>{error}</Alert>}
      <div className="form-actions">
        <button type="submit" className="primary" disabled={busy} data-testid="token-add">
          {busy ? 'Checking…' : `Follow ${shownSymbol}`}
        </button>
        <button type="button" onClick={() => setPreview(null)}>
          Another contract
        </button>
        <button type="button" onClick={close}>
          Cancel
        </button>
      </div>
    </form>
  );
}
