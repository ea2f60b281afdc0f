// The allow-list of bridge channels, with no dependency at all: the sandboxed Electron preload
// bundles this file alone, and the IPC and HTTP transports refuse any name not listed here.
export const CHANNELS = [
  'service.status',
  'desk.changes',
  'coins.list',
  'settings.get',
  'settings.setService',
  'wallets.list',
  'wallets.create',
  'wallets.get',
  'wallets.receiveAddress',
  'wallets.history',
  'wallets.unspent',
  'wallets.freezeOutput',
  'wallets.readSetup',
  'wallets.exportSetup',
  'payments.list',
  'payments.get',
  'payments.checkDraft',
  'payments.propose',
  'payments.checkBatch',
  'payments.feePresets',
  'settings.setReplaceable',
  'payments.proposeBatch',
  'payments.exportRequest',
  'payments.exportPsbt',
  'payments.importSignatures',
  'payments.submit',
  'payments.cancel',
  'payments.feeEstimates',
  'payments.replace',
  'payments.cpfp',
  'cosigner.open',
  'cosigner.sign',
  'ledger.devices',
  'ledger.xpub',
  'ledger.registerWallet',
  'ledger.showAddress',
  'ledger.signPayment',
  'accounts.list',
  'accounts.create',
  'accounts.get',
  'accounts.tokenInfo',
  'accounts.addToken',
  'accounts.history',
  'accounts.send',
  'audit.list',
  'audit.export',
  'labels.list',
  'labels.set',
  'labels.export',
  'labels.import',
  'books.series',
  'books.export',
] as const;

export type Channel = (typeof CHANNELS)[number];

const known: ReadonlySet<string> = new Set(CHANNELS);
export const isChannel = (name: string): name is Channel => known.has(name);

/** The IPC channel name of a bridge channel (a prefix keeps them apart from Electron's own). */
export const ipcName = (channel: Channel): string => `countersign:${channel}`;
