// node --import this-file: installs the resolution hook before the bundled main process loads.
import { register } from 'node:module';

register('./electron-stub-hooks.mjs', import.meta.url);
