// An amount as a person types it, read into smallest units: the one reader for every amount field
// of the desk (single payment, batch rows and CSV, fees, Ether and tokens). It lives in shared/api
// so the renderer and main read the same way. Pure.
//
// An amount is ASCII digits with at most one decimal point, in the coin's unit: "1250", "1.25",
// ".5" (0.5) and "1." (1) are read; whitespace around it is ignored. Anything else is refused
// rather than guessed: "1,250" is 1250 to some readers and 1.25 to others, so a comma is never
// read, and neither are spaces inside, signs, exponents, letters or other scripts' digits.

/** Why a text is not an amount; `amountRefusalWords` says it to a person. */
export type AmountRefusal =
  | { kind: 'empty' }
  | { kind: 'comma'; readings: string[] }
  | { kind: 'space'; joined: string }
  | { kind: 'negative' }
  | { kind: 'plus'; unsigned: string }
  | { kind: 'foreign-digits' }
  | { kind: 'points'; count: number }
  | { kind: 'not-a-number'; char: string }
  | { kind: 'decimals'; places: number; max: number }
  | { kind: 'zero' };

export type AmountReading = { ok: true; units: bigint } | { ok: false; text: string; refusal: AmountRefusal };

const refuse = (text: string, refusal: AmountRefusal): AmountReading => ({ ok: false, text, refusal });

/** What "1,250" or "1,234.5" could have meant: without thousands separators, and with a decimal comma. */
function commaReadings(t: string): string[] {
  const out: string[] = [];
  // Thousands separators: groups of three after the first comma, an optional decimal point after.
  if (/^[0-9]{1,3}(,[0-9]{3})+(\.[0-9]+)?$/.test(t)) out.push(t.replace(/,/g, ''));
  // A decimal comma: one comma, no point (and dots as thousands separators, "1.250,5").
  if (/^[0-9]+,[0-9]+$/.test(t)) out.push(t.replace(',', '.').replace(/\.?0+$/, '') || '0');
  else if (/^[0-9]{1,3}(\.[0-9]{3})+,[0-9]+$/.test(t)) out.push(t.replace(/\./g, '').replace(',', '.'));
  return out;
}

/**
 * `text` in smallest units of a unit with `decimals` decimals, or why not. `places` is how many
 * decimals may be typed when fewer than the unit has (Ether goes to the service in GWEI: 9).
 */
export function parseAmount(text: string, decimals: number, places = decimals): AmountReading {
  const t = text.trim();
  if (t === '') return refuse(t, { kind: 'empty' });
  const m = /^([0-9]*)(?:\.([0-9]*))?$/.exec(t);
  if (m && t !== '.') {
    const whole = m[1] ?? '';
    const fraction = m[2] ?? '';
    const shown = fraction.replace(/0+$/, '');
    if (shown.length > Math.min(places, decimals)) return refuse(t, { kind: 'decimals', places: shown.length, max: Math.min(places, decimals) });
    const units = BigInt(whole || '0') * 10n ** BigInt(decimals) + BigInt(shown.padEnd(decimals, '0') || '0');
    return units === 0n ? refuse(t, { kind: 'zero' }) : { ok: true, units };
  }
  // Refused: the first thing wrong, in the order a reader would notice it.
  if (t.startsWith('-') || t.startsWith('\u2212')) return refuse(t, { kind: 'negative' });
  if (t.startsWith('+')) return refuse(t, { kind: 'plus', unsigned: t.slice(1).trim() });
  if (t.includes(',')) return refuse(t, { kind: 'comma', readings: commaReadings(t) });
  if (/\s/.test(t)) return refuse(t, { kind: 'space', joined: t.replace(/\s+/g, '') });
  if (/[^0-9.]/.test(t) && /^[\p{Nd}.]+$/u.test(t)) return refuse(t, { kind: 'foreign-digits' });
  const points = t.split('.').length - 1;
  if (points > 1 && /^[0-9.]+$/.test(t)) return refuse(t, { kind: 'points', count: points });
  return refuse(t, { kind: 'not-a-number', char: [...t].find((c) => !/[0-9.]/.test(c)) ?? '.' });
}

/** A unit as the words need it: its ticker ("LTC (regtest)", "ETH", "USDC"). */
export interface AmountUnitName {
  ticker: string;
}

/** What is wrong with an amount and what to type instead, in a sentence of its own. Pure. */
export function amountRefusalWords(reading: { text: string; refusal: AmountRefusal }, unit: AmountUnitName): string {
  const { text, refusal: r } = reading;
  const q = `"${text}"`;
  const digitsOnly = `type digits 0-9 with at most one decimal point, e.g. 1250 or 1.25`;
  switch (r.kind) {
    case 'empty':
      return `no amount: type an amount in ${unit.ticker}, e.g. 0.5`;
    case 'comma': {
      const readings = r.readings.length ? `; type ${r.readings.join(' or ')}` : `; ${digitsOnly}`;
      return `${q} has a comma: use no thousands separators, and a point for decimals${readings}`;
    }
    case 'space':
      return `${q} has a space inside: type the digits together${/^[0-9]*\.?[0-9]*$/.test(r.joined) && r.joined !== '.' ? `, e.g. ${r.joined}` : ''}`;
    case 'negative':
      return `${q} is negative: an amount is what is paid, so type it without a minus sign`;
    case 'plus':
      return `${q} has a plus sign: type the amount without a sign${/^[0-9]*\.?[0-9]+$/.test(r.unsigned) ? `, e.g. ${r.unsigned}` : ''}`;
    case 'foreign-digits':
      return `${q} uses digits other than 0-9: type the amount with the digits 0-9`;
    case 'points':
      return `${q} has ${r.count} decimal points: an amount has at most one`;
    case 'not-a-number':
      return `${q} is not an amount (it has "${r.char}"): ${digitsOnly}`;
    case 'decimals':
      return `${q} has ${r.places} decimals: an amount of ${unit.ticker} has at most ${r.max}`;
    case 'zero':
      return `${q} is zero: type the amount to pay, more than 0 ${unit.ticker}`;
  }
}
