// The service's stdout as an operator's log collector reads it: one JSON object per line. JSON.parse
// keeps the last of two equal keys without a word, so each line is first walked by a strict reader
// that refuses a key repeated in one object (pino writes a child logger's fields and a call's fields
// side by side: `"coin"` twice is easy to write and breaks collectors that refuse or merge them).

export type LogLine = Record<string, unknown> & { level: number; msg: string; time: number };

/** Throws on a key repeated within one object (at any depth), naming it; otherwise JSON.parse's answer. */
export function parseLogLine(text: string): LogLine {
  let i = 0;
  const ws = () => {
    while (i < text.length && ' \t\r\n'.includes(text[i]!)) i++;
  };
  const str = (): string => {
    const start = i;
    i++; // "
    while (text[i] !== '"') {
      if (i >= text.length) throw new Error(`unterminated string in log line: ${text}`);
      i += text[i] === '\\' ? 2 : 1;
    }
    i++;
    return JSON.parse(text.slice(start, i)) as string;
  };
  const value = (path: string): void => {
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      const keys = new Set<string>();
      ws();
      if (text[i] === '}') return void i++;
      for (;;) {
        ws();
        const key = str();
        if (keys.has(key)) throw new Error(`duplicate key "${key}" in ${path || 'the line'}: ${text}`);
        keys.add(key);
        ws();
        i++; // :
        value(path ? `${path}.${key}` : key);
        ws();
        if (text[i++] === '}') return;
      }
    } else if (c === '[') {
      i++;
      ws();
      if (text[i] === ']') return void i++;
      for (let n = 0; ; n++) {
        value(`${path}[${n}]`);
        ws();
        if (text[i++] === ']') return;
      }
    } else if (c === '"') {
      str();
    } else {
      while (i < text.length && !',}] \t\r\n'.includes(text[i]!)) i++;
    }
  };
  const parsed = JSON.parse(text) as LogLine; // refuses what is not JSON at all, with its own words
  value('');
  return parsed;
}
