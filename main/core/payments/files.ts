// The files a treasurer picks to add signatures to payments: Countersign signature files and
// PSBTs, told apart by content (or a .psbt name), each handed to its own importer.
import { recogniseFile } from '../../../shared/files/file-kind.ts';
import { CoordinatorError } from '../errors.ts';
import { importPsbtFile } from './psbt-exchange.ts';
import { importSignatureFile, refused, type FileResult, type SignatureFileInput } from './signature-import.ts';
import type { CoreDeps } from '../wallets/wallets.ts';

/** Signature files and PSBTs picked together: each goes to its own importer. */
export function importPaymentFiles(deps: CoreDeps, files: readonly SignatureFileInput[]): FileResult[] {
  return files.map((f) => {
    try {
      // A text file named .psbt goes to the PSBT reader, which says why it is none; any other
      // kind of file is named by the signature reader, with where it belongs.
      const { kind } = recogniseFile(f.text);
      return kind === 'psbt' || (kind === 'text' && /\.psbt$/i.test(f.name)) ? importPsbtFile(deps, f) : importSignatureFile(deps, f);
    } catch (err) {
      if (err instanceof CoordinatorError) return refused(f.name, 'malformed', err.message);
      throw err;
    }
  });
}
