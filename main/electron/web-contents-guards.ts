// App-wide guards for every web contents Electron creates (the main window, and any other: a
// devtools page, a window a bug lets open): nothing navigates or redirects away from our renderer,
// no window opens (allowed links go to the user's browser through the allow-list), no <webview>
// attaches, and no permission is granted, neither on request nor on a silent check, but one: the
// camera, alone (no microphone), for the desk's own page, which reads air-gapped signers' QR codes.
import type { App, Session } from 'electron';
import type { Logger } from 'pino';
import { decideExternalLink } from '../bridge/external-links.ts';
import { isTrustedRendererUrl } from '../bridge/security.ts';

export interface GuardOptions {
  app: Pick<App, 'on'>;
  session: Pick<Session, 'setPermissionRequestHandler' | 'setPermissionCheckHandler'>;
  /** The renderer's own URL: the only place a web contents may go. */
  rendererUrl: string;
  /** Read at each click, so a changed setting applies at once. */
  allowedLinkBases: () => readonly string[];
  openExternal: (url: string) => Promise<void>;
  log: Pick<Logger, 'warn' | 'error'>;
}

/** The camera without the microphone, asked by the renderer's own page (issue 34: reading signers' QR codes). */
export function cameraOnly(permission: string, details: { requestingUrl?: string; mediaTypes?: readonly string[] }, rendererUrl: string): boolean {
  const types = details.mediaTypes ?? [];
  return permission === 'media' && types.length > 0 && types.every((t) => t === 'video') && isTrustedRendererUrl(details.requestingUrl ?? '', rendererUrl);
}

export function installWebContentsGuards(options: GuardOptions): void {
  const { rendererUrl, log } = options;
  const openLink = (url: string): void => {
    const decision = decideExternalLink(url, options.allowedLinkBases());
    if (!decision.open) {
      log.warn({ url, reason: decision.reason }, 'refused to open a link outside the desk');
      return;
    }
    options.openExternal(decision.url).catch((err: unknown) => log.error({ err, url: decision.url }, 'the link did not open'));
  };

  options.app.on('web-contents-created', (_event, contents) => {
    contents.on('will-navigate', (event) => {
      if (isTrustedRendererUrl(event.url, rendererUrl)) return;
      event.preventDefault();
      log.warn({ url: event.url }, 'refused a navigation away from the desk');
    });
    contents.on('will-redirect', (event) => {
      if (isTrustedRendererUrl(event.url, rendererUrl)) return;
      event.preventDefault();
      log.warn({ url: event.url }, 'refused a redirect away from the desk');
    });
    contents.on('will-attach-webview', (event) => {
      event.preventDefault();
      log.warn('refused a <webview>');
    });
    // The desk never opens windows of its own; an allowed link opens in the user's browser.
    contents.setWindowOpenHandler(({ url }) => {
      openLink(url);
      return { action: 'deny' };
    });
  });
  options.session.setPermissionRequestHandler((_contents, permission, callback, details) => {
    if (cameraOnly(permission, details, rendererUrl)) return callback(true);
    log.warn({ permission }, 'refused a permission request');
    callback(false);
  });
  options.session.setPermissionCheckHandler((_contents, permission, origin, details) => permission === 'media' && details.mediaType === 'video' && isTrustedRendererUrl(details.requestingUrl ?? origin, rendererUrl));
}
