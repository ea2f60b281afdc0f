// The preload script: exposes exactly the bridge (one invoke function over the allow-listed IPC
// channels), nothing of Node or Electron. Bundled to preload.cjs for the sandbox; untested here
// because Electron cannot start on the build machine.
import { contextBridge, ipcRenderer } from 'electron';
import { isChannel, ipcName } from '../main/bridge/channels.ts';
import type { Bridge, BridgeResult } from '../main/bridge/contract.ts';

const bridge = {
  invoke: (channel, input) => {
    if (!isChannel(channel)) return Promise.resolve({ ok: false, error: { code: 'forbidden', message: `no bridge channel "${String(channel)}"` } });
    return ipcRenderer.invoke(ipcName(channel), input) as Promise<BridgeResult<never>>;
  },
} satisfies Bridge;

contextBridge.exposeInMainWorld('countersign', bridge);
