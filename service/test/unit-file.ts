// A systemd unit file read as its settings (deploy/countersign.service in the deploy tests).

/** Every `Key=value` of the unit (repeated keys keep their last value). */
export function unitSettings(text: string): Map<string, string> {
  const settings = new Map<string, string>();
  for (const line of text.split('\n')) {
    const m = /^([A-Za-z]+)=(.*)$/.exec(line.trim());
    if (m) settings.set(m[1]!, m[2]!);
  }
  return settings;
}

/** A command line's words as a POSIX shell splits them (double and single quotes; no expansions). */
export function shellWords(line: string): string[] {
  const words: string[] = [];
  const re = /"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+)/g;
  for (const m of line.matchAll(re)) words.push(m[1] !== undefined ? m[1].replace(/\\(.)/g, '$1') : (m[2] ?? m[3]!));
  return words;
}
