// The wallet's labels out and in as a BIP329 file (Sparrow and other wallets read and write it).
// A file with a bad line is refused whole, and the refusal names its lines.
import { useState } from 'react';
import type { LabelImportView } from '../../../main/bridge/contract.ts';
import { call } from '../bridge.ts';
import { Alert, Card, FileDrop, download, message, type PickedFile } from '../ui.tsx';

const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** "12 labels imported, 2 lines for other wallets left as they were". */
export const importWords = (r: LabelImportView): string =>
  `${count(r.imported, 'label', 'labels')} imported${r.ignored ? `, ${count(r.ignored, 'line', 'lines')} for other wallets left as they were` : ''}.`;

export function WalletLabelsFile({ walletId, onImported }: { walletId: string; onImported: () => void }) {
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const exportFile = async () => {
    setError(null);
    setDone(null);
    try {
      const f = await call('labels.export', { wallet_id: walletId });
      download(f.file_name, f.text);
    } catch (err) {
      setError(message(err));
    }
  };
  const importFile = async (files: PickedFile[]) => {
    const file = files[0];
    if (!file) return;
    setError(null);
    setDone(null);
    setBusy(true);
    try {
      setDone(`${file.name}: ${importWords(await call('labels.import', { wallet_id: walletId, file }))}`);
      onImported();
    } catch (err) {
      setError(message(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Card title="Labels file (BIP329)">
      <p className="muted small">The labels of this wallet's addresses, transactions and outputs, as the JSON lines file Sparrow and other wallets read and write.</p>
      <div className="label-io">
        <button type="button" onClick={() => void exportFile()} data-testid="labels-export">
          Export labels
        </button>
        <FileDrop label={busy ? 'Importing…' : 'Import a labels file'} hint="a .jsonl file; lines about other wallets are left out" multiple={false} onFiles={(f) => void importFile(f)} testId="labels-import" accept=".jsonl,.json,.txt" />
      </div>
      <div aria-live="polite">
        {done && (
          <Alert kind="success">
            <span data-testid="labels-import-result">{done}</span>
          </Alert>
        )}
        {error && (
          <Alert>
            <span data-testid="labels-import-error">{error}</span>
          </Alert>
        )}
      </div>
    </Card>
  );
}
