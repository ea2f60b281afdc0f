// Wallet set-up files other multisig wallets read and write (docs/file-formats.md): BSMS records,
// output descriptors, Caravan and Coldcard files, in and out. The formats are pure codecs in
// shared/files; this module checks them against the chosen coin and network and creates the wallet.
import {
  addressToScript,
  chainParams,
  equalBytes,
  parseXpub,
  type ChainParams,
  type CoinName,
  type NetworkName,
} from '../../../shared/coins/index.ts';
import { requireScriptType, type MultisigScriptType } from '../../../shared/coins/multisig-script.ts';
import { formatBsmsDescriptorRecord, type BsmsKeyRecord } from '../../../shared/files/bsms.ts';
import { caravanNetwork, formatCaravan } from '../../../shared/files/caravan.ts';
import { formatColdcard } from '../../../shared/files/coldcard.ts';
import { FileFormatError } from '../../../shared/files/errors.ts';
import { checkSetup, SCRIPT_TYPE_LABEL, type SetupKey, type WalletScript, type WalletSetup } from '../../../shared/files/setup.ts';
import { parseSetupFile } from '../../../shared/files/setup-file.ts';
import { formatSpecter } from '../../../shared/files/specter.ts';
import { CoordinatorError } from '../errors.ts';
import { fileSafe } from '../file-names.ts';
import type { SignatureFileInput } from '../payments/signature-import.ts';
import type { WalletRow } from '../store/store.ts';
import { refuseExistingWallet } from './identity.ts';
import { walletAddress, walletDescriptor } from './script.ts';
import { createWalletWithBirthday, type Birthday, type BirthdayDeps } from './birthday.ts';
import { requireWallet, walletParams, type CoreDeps, type NewWallet } from './wallets.ts';

export interface SetupChoice {
  /** Used when the file does not name its chain (only Caravan files do). */
  coin: CoinName;
  network: NetworkName;
  name?: string;
  /** Required for BSMS key records, which carry one key each and no policy. */
  m?: number;
  /** For BSMS key records only (every other file says its script): default P2SH, keys as given. */
  scriptType?: MultisigScriptType;
  sortKeys?: boolean;
}

export interface SetupRead {
  wallet: NewWallet;
  /** The wallet's first block, where the file says it (Specter's blockheight); null: the treasurer gives a date or the beginning. */
  birthdayHeight: number | null;
  /** What was read, for the treasurer to review (formats, signed key records, the first-address check). */
  notes: string[];
}

const formatName: Record<WalletSetup['format'], string> = { descriptor: 'output descriptor', bsms: 'BSMS descriptor record', caravan: 'Caravan wallet file', coldcard: 'Coldcard/Electrum multisig file', specter: 'Specter wallet file' };

/**
 * Reads one wallet file, or several BSMS key records (one co-signer each, in the order given),
 * into a NewWallet; checks every key for the chosen coin and network, and a BSMS record's first
 * address against the one this desk derives. Throws CoordinatorError saying which file and why.
 */
export function readWalletSetup(files: readonly SignatureFileInput[], choice: SetupChoice): SetupRead {
  if (files.length === 0) throw new CoordinatorError('bad_input', 'choose a set-up file');
  const read = files.map((f) => {
    try {
      // Every multisig script type and key order: the wallet takes the file's.
      return { file: f.name, parsed: parseSetupFile(f.text, 'any-multisig') };
    } catch (err) {
      if (err instanceof FileFormatError) throw new CoordinatorError('malformed', `${f.name}: ${err.message}`);
      throw err;
    }
  });
  const walletFiles = read.flatMap((r) => (r.parsed.kind === 'wallet' ? [{ file: r.file, setup: r.parsed.setup }] : []));
  const keyRecords = read.flatMap((r) => (r.parsed.kind === 'key' ? [{ file: r.file, record: r.parsed.record }] : []));
  if (walletFiles.length > 1 || (walletFiles.length === 1 && keyRecords.length > 0)) {
    throw new CoordinatorError('bad_input', 'choose one wallet set-up file, or the BSMS key records of all co-signers (not both)');
  }
  let setup: WalletSetup;
  const notes: string[] = [];
  if (walletFiles.length === 1) {
    setup = walletFiles[0]!.setup;
    notes.push(`${walletFiles[0]!.file}: ${formatName[setup.format]}, ${setup.m} of ${setup.keys.length}, ${scriptWords(setup)}`);
  } else {
    if (choice.m === undefined) throw new CoordinatorError('bad_input', 'BSMS key records carry one key each and no policy: say how many signatures are required');
    const keys = keyRecords.map((k) => k.record.key);
    try {
      setup = { format: 'bsms', name: null, m: choice.m, keys, keyNetwork: checkSetup(choice.m, keys), chain: null, firstAddress: null, scriptType: choice.scriptType ?? 'p2sh', sortKeys: choice.sortKeys === true };
    } catch (err) {
      if (err instanceof FileFormatError) throw new CoordinatorError('malformed', err.message);
      throw err;
    }
    notes.push(...keyRecords.map((k: { file: string; record: BsmsKeyRecord }) => `${k.file}: BSMS key record of ${k.record.key.name}, ${k.record.signed ? 'signature verified' : 'unsigned'}`));
  }
  const coin = setup.chain?.coin ?? choice.coin;
  const network = setup.chain?.network ?? choice.network;
  let params: ChainParams;
  try {
    params = chainParams(coin, network);
  } catch (err) {
    throw new CoordinatorError('bad_input', err instanceof Error ? err.message : String(err));
  }
  try {
    requireScriptType(params, setup.scriptType);
  } catch (err) {
    throw new CoordinatorError('bad_wallet', `${err instanceof Error ? err.message : String(err)} (the file describes a ${SCRIPT_TYPE_LABEL[setup.scriptType]} wallet)`);
  }
  for (const k of setup.keys) {
    try {
      parseXpub(params, k.xpub, `co-signer ${k.name}'s xpub`);
    } catch (err) {
      throw new CoordinatorError('bad_wallet', `${err instanceof Error ? err.message : String(err)} (choose the coin and network the file was made for)`);
    }
  }
  if (setup.firstAddress !== null) {
    // In the wallet's own script type and key order: a record of another wallet of the same keys does not match.
    const ours = walletAddress(params, setup, setup.keys.map((k) => k.xpub), false, 0);
    let theirs: Uint8Array | null;
    try {
      theirs = addressToScript(params, setup.firstAddress);
    } catch {
      theirs = null;
    }
    if (!theirs || !equalBytes(theirs, addressToScript(params, ours.address))) {
      throw new CoordinatorError('tampered', `the record's first address ${setup.firstAddress} is not the first address ${ours.address} these keys give on ${coin} ${network}: the record was altered, or is for another coin or network`);
    }
    notes.push(`first address ${ours.address} matches the record`);
  }
  const birthdayHeight = setup.birthday ?? null;
  if (birthdayHeight !== null) notes.push(`the file says the wallet's first block is ${birthdayHeight}: it is read from there`);
  return {
    birthdayHeight,
    wallet: {
      coin: params.coin,
      network,
      name: choice.name?.trim() || setup.name || 'Imported wallet',
      m: setup.m,
      cosigners: setup.keys.map((k) => ({ name: k.name, xpub: k.xpub, fingerprint: k.fingerprint, derivationPath: k.derivationPath })),
      scriptType: setup.scriptType,
      sortKeys: setup.sortKeys,
    },
    notes,
  };
}

/** Reads a set-up file for the new-wallet form; one that describes a wallet this desk has is refused, naming it. */
export function readNewWalletSetup(deps: Pick<CoreDeps, 'store'>, files: readonly SignatureFileInput[], choice: SetupChoice): SetupRead {
  const read = readWalletSetup(files, choice);
  const { coin, network, m, cosigners, scriptType, sortKeys } = read.wallet;
  refuseExistingWallet(deps.store, { params: chainParams(coin, network), m, xpubs: cosigners.map((c) => c.xpub), ...(scriptType ? { scriptType } : {}), ...(sortKeys !== undefined ? { sortKeys } : {}) });
  return read;
}

/**
 * Creates the wallet a set-up file describes and registers it with a watching service, as a new
 * wallet is (createWalletWithBirthday): from the file's birthday, else from `otherwise` (the
 * treasurer's date, or the beginning).
 */
export async function importWalletSetup(deps: BirthdayDeps, files: readonly SignatureFileInput[], choice: SetupChoice, otherwise: Birthday = { source: 'genesis' }): Promise<WalletRow> {
  const { wallet, notes, birthdayHeight } = readWalletSetup(files, choice);
  const created = await createWalletWithBirthday(deps, wallet, birthdayHeight !== null ? { source: 'file', height: birthdayHeight } : otherwise);
  deps.store.audit(deps.actor, 'wallet.import_setup', `wallet ${created.id} from ${notes.join('; ')}`, files.map((f) => f.name).join(', '), { walletId: created.id });
  return created;
}

// ---- wallet set-up out ----------------------------------------------------------------------------

export type SetupExportFormat = 'bsms' | 'descriptor' | 'caravan' | 'coldcard' | 'specter';

/** How the wallet's scripts read in words, for notes and refusals. */
function scriptWords(w: WalletScript): string {
  return `${SCRIPT_TYPE_LABEL[w.scriptType]}, ${w.sortKeys ? 'keys sorted (BIP67)' : 'keys in the given order'}`;
}

/** The wallet as another wallet imports it: its script type and key order, keys in the wallet's order. */
export function exportWalletSetup(deps: Pick<CoreDeps, 'store'>, walletId: string, format: SetupExportFormat): { fileName: string; text: string } {
  const w = requireWallet(deps, walletId);
  // A multisig file of a vault would name other addresses (its recovery paths lost): vaults.ts writes its own.
  if (w.vaultTemplate) throw new CoordinatorError('unsupported', `"${w.name}" is a vault with recovery paths: export it as a vault descriptor or a BIP388 policy, not a plain multisig file`);
  const params = walletParams(w);
  const keys: SetupKey[] = deps.store.cosigners(w.id).map((c) => ({ name: c.name, xpub: c.xpub, fingerprint: c.fingerprint, derivationPath: c.derivationPath }));
  const script: WalletScript = { scriptType: w.scriptType, sortKeys: w.sortKeys };
  const base = fileSafe(w.name);
  // Caravan and Coldcard always sort the keys: a given-order wallet has other addresses there.
  const sortedOnly = (product: string) => {
    if (!w.sortKeys) throw new CoordinatorError('unsupported', `${product} always sorts the keys (BIP67), and this wallet keeps its co-signers' order: there it would have other addresses. Export it as a BSMS record or a descriptor`);
  };
  try {
    switch (format) {
      case 'descriptor':
        return { fileName: `${base}-descriptor.txt`, text: `${walletDescriptor(w, keys)}\n` };
      case 'bsms': {
        const first = walletAddress(params, w, keys.map((k) => k.xpub), false, 0).address;
        return { fileName: `${base}.bsms`, text: formatBsmsDescriptorRecord(w.m, keys, first, script) };
      }
      case 'caravan': {
        const network = caravanNetwork(w.coin, w.network);
        if (network === null) throw new CoordinatorError('unsupported', `Caravan handles Bitcoin wallets only; export this ${w.coin} wallet as a BSMS record or a descriptor`);
        sortedOnly('Caravan');
        return { fileName: `${base}-caravan.json`, text: formatCaravan(w.name, network, w.m, keys, script) };
      }
      case 'coldcard':
        sortedOnly('Coldcard');
        return { fileName: `${base}-multisig.txt`, text: formatColdcard(w.name, w.m, keys, script) };
      case 'specter':
        return { fileName: `${base}-specter.json`, text: formatSpecter(w.name, w.m, keys, script, w.birthdayHeight ?? 0) };
    }
  } catch (err) {
    if (err instanceof FileFormatError) throw new CoordinatorError('unsupported', err.message);
    throw err;
  }
}
