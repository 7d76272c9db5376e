/**
 * Decoding of JSON string tokens with a decoded→raw offset map, so that a
 * position inside code embedded in a JSON string (a Python lambda, a regex)
 * maps back to the exact characters of the file.
 *
 * Offsets are UTF-16 code units (JavaScript string indices), like every
 * other offset in vaudit. Escapes: `\"` `\\` `\/` `\b` `\f` `\n` `\r` `\t`
 * are 2 raw units for 1 decoded unit; `\uXXXX` is 6 raw units for 1 decoded
 * unit (a surrogate pair written as two escapes is 12 raw units for 2 decoded
 * units, each half mapping to its own escape). A raw non-BMP character is 2
 * raw units for 2 decoded units.
 */

export interface DecodedString {
  /** The decoded value. */
  value: string;
  /**
   * `map[i]` = offset, relative to the token start (the opening quote), of
   * the raw text that produced decoded unit `i`; `map[value.length]` = offset
   * of the closing quote. Half-open decoded ranges [s, e) map to [map[s], map[e]).
   */
  map: Uint32Array;
}

const SIMPLE: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };

/**
 * Decode the raw JSON string token `token` (including its quotes). Tolerant:
 * an invalid escape decodes to its raw characters (the JSON parser reports
 * real syntax errors; this function never throws).
 */
export function decodeJsonString(token: string): DecodedString {
  const open = token.charCodeAt(0) === 34 ? 1 : 0;
  let close = token.length;
  if (token.length > open && token.charCodeAt(token.length - 1) === 34) close = token.length - 1;
  // Fast path: no escapes → identity map.
  const body = token.slice(open, close);
  if (!body.includes('\\')) {
    const map = new Uint32Array(body.length + 1);
    for (let i = 0; i <= body.length; i++) map[i] = i + open;
    return { value: body, map };
  }
  const out: string[] = [];
  const offs: number[] = [];
  let i = open;
  while (i < close) {
    const c = token[i]!;
    if (c !== '\\') {
      out.push(c);
      offs.push(i);
      i++;
      continue;
    }
    const e = token[i + 1];
    if (e !== undefined && e in SIMPLE) {
      out.push(SIMPLE[e]!);
      offs.push(i);
      i += 2;
      continue;
    }
    if (e === 'u' && /^[0-9a-fA-F]{4}$/.test(token.slice(i + 2, i + 6))) {
      out.push(String.fromCharCode(parseInt(token.slice(i + 2, i + 6), 16)));
      offs.push(i);
      i += 6;
      continue;
    }
    // Invalid escape: keep the backslash literally (the parser reports the error).
    out.push(c);
    offs.push(i);
    i++;
  }
  const value = out.join('');
  const map = new Uint32Array(value.length + 1);
  for (let k = 0; k < offs.length; k++) map[k] = offs[k]!;
  map[value.length] = close;
  return { value, map };
}

/**
 * Build a `codeOffset → fileOffset` function for the string token `token` (a JSON value reference:
 * where it is may be located only when first read) of the file. The token's place and the map are
 * found on first use: most embedded code is never reported on.
 */
export function embeddedOffsetMapper(fileText: string, token: { readonly start: number; readonly end: number }): (codeOffset: number) => number {
  let map: Uint32Array | undefined;
  let start = 0;
  return (codeOffset: number) => {
    if (!map) {
      start = token.start;
      map = decodeJsonString(fileText.slice(start, token.end)).map;
    }
    const o = Math.max(0, Math.min(Math.trunc(codeOffset), map.length - 1));
    return start + map[o]!;
  };
}
