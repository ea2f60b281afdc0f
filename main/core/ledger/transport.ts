// How the desk reaches a Ledger: an injected opener (USB in the app, an APDU replay in tests). The
// USB module (@ledgerhq/hw-transport-node-hid, a native optional dependency) is imported only when
// a person asks for a device, so the desk starts and works without it.
import type * as HwTransport from '@ledgerhq/hw-transport';
import { ledgerErrorOf, LedgerError, usbMissing, type LedgerContext } from './errors.ts';

/** @ledgerhq/hw-transport's Transport (a CommonJS default export, hence `.default`). */
export type Transport = HwTransport.default;

export interface LedgerConnector {
  /** Identifiers of the Ledgers plugged in (empty when none). */
  list(): Promise<string[]>;
  /** Opens the Ledger `id`, or the first one plugged in. */
  open(id?: string): Promise<Transport>;
}

interface NodeHidModule {
  list(): Promise<string[]>;
  open(path: string): Promise<Transport>;
}

const USB_MODULE = '@ledgerhq/hw-transport-node-hid';

function asNodeHid(mod: unknown): NodeHidModule {
  const candidate = (mod as { default?: unknown }).default ?? mod;
  const inner = (candidate as { default?: unknown }).default ?? candidate;
  const m = inner as Partial<NodeHidModule>;
  if (typeof m.list !== 'function' || typeof m.open !== 'function') throw usbMissing(new Error(`${USB_MODULE} loaded but has no list()/open()`));
  return { list: () => m.list!.call(inner), open: (path) => m.open!.call(inner, path) };
}

/**
 * The USB connector of the desktop app. `load` imports the module (injected so a test can show what
 * a build without it says); it runs on first use, never at start.
 */
export function usbConnector(load: () => Promise<unknown> = () => import(/* @vite-ignore */ USB_MODULE as string)): LedgerConnector {
  let hid: Promise<NodeHidModule> | null = null;
  const module = (): Promise<NodeHidModule> => {
    hid ??= load().then(asNodeHid, (err: unknown) => {
      hid = null;
      throw usbMissing(err);
    });
    return hid;
  };
  return {
    async list() {
      return (await module()).list();
    },
    async open(id) {
      const m = await module();
      const path = id ?? (await m.list())[0];
      if (path === undefined) throw new LedgerError('ledger_not_found', 'no Ledger found: plug it in with a USB cable, unlock it and open the app');
      return m.open(path);
    },
  };
}

/**
 * Opens a device, runs `fn`, always closes it, and turns whatever the device or the cable did into
 * a LedgerError. `ctx` may be filled in by `fn` as it learns (the open app), for the message.
 */
export async function withLedger<T>(connector: LedgerConnector, ctx: LedgerContext, fn: (transport: Transport, ctx: LedgerContext) => Promise<T>): Promise<T> {
  let transport: Transport;
  try {
    transport = await connector.open();
  } catch (err) {
    throw ledgerErrorOf(err, { ...ctx, doing: 'opening the device' });
  }
  try {
    return await fn(transport, ctx);
  } catch (err) {
    throw ledgerErrorOf(err, ctx);
  } finally {
    await transport.close().catch(() => undefined);
  }
}
