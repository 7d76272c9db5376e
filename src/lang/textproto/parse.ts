/**
 * A schema-less reader of protobuf text format (`.textproto`, `.pbtxt`): messages become objects,
 * repeated fields arrays, scalars strings/numbers/booleans/enum names. Enough to count and name the
 * records a harness registers from such a file; returns undefined on text it cannot read.
 */
type Value = string | number | boolean | Message | Value[];
export interface Message { [field: string]: Value }

const TOKEN = /\s+|#[^\n]*|"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|[{}<>:;,[\]]|[^\s{}<>:;,[\]"'#]+/gy;

function tokens(text: string): string[] | undefined {
  const out: string[] = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < text.length) {
    const at = TOKEN.lastIndex;
    const m = TOKEN.exec(text);
    if (!m || m.index !== at) return undefined;
    if (!/^\s|^#/.test(m[0])) out.push(m[0]);
  }
  return out;
}

function scalar(t: string): string | number | boolean {
  if (t[0] === '"' || t[0] === "'") return t.slice(1, -1).replace(/\\(.)/g, '$1');
  if (t === 'true' || t === 'false') return t === 'true';
  const n = Number(t);
  return Number.isFinite(n) ? n : t;
}

export function parseTextproto(text: string): Message | undefined {
  const ts = tokens(text);
  if (!ts) return undefined;
  let i = 0;
  const add = (m: Message, k: string, v: Value) => {
    const prev = m[k];
    if (prev === undefined) m[k] = v;
    else if (Array.isArray(prev) && (prev as unknown as { repeated?: boolean }).repeated) prev.push(v);
    else {
      const arr = [prev, v] as Value[];
      Object.defineProperty(arr, 'repeated', { value: true });
      m[k] = arr;
    }
  };
  const message = (close?: string): Message | undefined => {
    const m: Message = {};
    while (i < ts.length) {
      const t = ts[i++]!;
      if (t === close) return m;
      if (t === ';' || t === ',') continue;
      const key = t;
      if (ts[i] === ':') i++;
      const v = ts[i++];
      if (v === undefined) return undefined;
      if (v === '{' || v === '<') {
        const inner = message(v === '{' ? '}' : '>');
        if (!inner) return undefined;
        add(m, key, inner);
      } else if (v === '[') {
        while (i < ts.length && ts[i] !== ']') {
          const x = ts[i++]!;
          if (x === ',') continue;
          if (x === '{' || x === '<') {
            const inner = message(x === '{' ? '}' : '>');
            if (!inner) return undefined;
            add(m, key, inner);
          } else add(m, key, scalar(x));
        }
        i++;
      } else {
        // adjacent string literals concatenate
        let s = scalar(v);
        while (typeof s === 'string' && /^["']/.test(ts[i] ?? '') && /^["']/.test(v)) s += scalar(ts[i++]!) as string;
        add(m, key, s);
      }
    }
    return close ? undefined : m;
  };
  return message();
}

/** The records of a repeated field (a single occurrence is one record). */
export function repeated(m: Message, field: string): Message[] {
  const v = m[field];
  const list = Array.isArray(v) ? v : v === undefined ? [] : [v];
  return list.filter((x): x is Message => typeof x === 'object' && x !== null && !Array.isArray(x));
}
