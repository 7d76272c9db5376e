/**
 * Oracle `unguarded-state-read`: application state read on the verdict path with no handling of an
 * unavailable or malformed endpoint. The state source is doubled as unavailable and as non-JSON;
 * an exception escaping the function (instead of a failed verdict) is the defect.
 *
 * finding.control: { oracle: 'unguarded-state-read', ...common Python fields (see common.ts),
 *   source?: { self: string }   dotted `self` attribute path whose call returns the raw state
 *                               (e.g. 'manager._call'); default: the first `self.a.b(` call in the function
 *          | { port: number, path?: string }   a local HTTP endpoint (default: an http://localhost:PORT literal) }
 * A baseline with a healthy state ('{}') comes first: an exception of the same type with a healthy
 * state says nothing about the state read; only a different one (the state failure's own) counts.
 * When the flagged line reads state through another `self` call than the function's first one
 * (`assert self._call(...)[1]` then `json.loads(self.read_file(path))` on the flagged line), a second
 * set of cases doubles the flagged line's call as the state source and answers the earlier `self`
 * calls as on a healthy run, shaped by their call sites (`…[1]` → a truthy item 1); it counts only
 * when the first set reached no verdict at the flagged line.
 * confirmed: an exception escapes for an unavailable or non-JSON state · refuted: both give a verdict.
 */
import type { Confirmation } from '../../src/core/types.js';
import type { CaseResult, Spec } from '../../src/confirm/harness.js';
import { callCase, defaultWitnesses, executedLine, firstNonResult, pythonTarget, shapedReturn, show, type Oracle, type Witness, outcomesOf } from '../../src/confirm/oracle-kit.js';
import { functionText, stubTargets } from '../../src/confirm/stubs.js';

function selfWith(path: string, callable: Spec): Spec {
  const parts = path.split('.');
  let spec: Spec = callable;
  for (let i = parts.length - 1; i >= 1; i--) spec = { $double: 'object', attrs: { [parts[i]!]: spec } };
  return { $double: 'self', attrs: { [parts[0]!]: spec } };
}

const NON_JSON = '<html><body>502 Bad Gateway</body></html>';

/** `self.<path>` doubles combined into one `self` spec (each path's attributes nested as objects). */
function selfWithAll(doubles: Array<[string, Spec]>): Spec {
  const root: Record<string, Spec> = {};
  for (const [path, callable] of doubles) {
    const parts = path.split('.');
    let at = root;
    for (let i = 0; i < parts.length - 1; i++) {
      const next = (at[parts[i]!] ??= { $double: 'object', attrs: {} }) as { attrs: Record<string, Spec> };
      at = next.attrs;
    }
    at[parts[parts.length - 1]!] = callable;
  }
  return { $double: 'self', attrs: root };
}

const SELF_CALL = /\bself\.((?:\w+\.)*\w+)\s*\(/g;

/** The `self` call on the flagged lines (the state read there) and the distinct `self` calls before
 *  it in the function, when the flagged line's call is not the function's first one. */
function flaggedSelfCall(code: string, startLine: number, first: number, last: number): { read: string; before: string[] } | undefined {
  const lines = code.split('\n');
  const before: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = startLine + i;
    if (line > last) break;
    for (const m of lines[i]!.matchAll(SELF_CALL)) {
      if (line >= first) {
        const read = m[1]!;
        const earlier = before.filter((p) => p !== read);
        return earlier.length && before[0] !== read ? { read, before: [...new Set(earlier)] } : undefined;
      }
      before.push(m[1]!);
    }
  }
  return undefined;
}

/** `requests.get(…self.<port>…)` / `urlopen(self.<url>)`: the `self` attribute carrying the address. */
function httpSelfAddress(code: string): { attr: string; self: Spec } | undefined {
  const call = /\b(?:requests\.(?:get|post|put|request|head)|urlopen|httpx\.(?:get|post))\(\s*([^,]+?)\s*(?:,|\)\s*\.)/s.exec(code);
  const url = call?.[1] ?? '';
  const portAttr = /\bself\.(\w*port\w*)\b/i.exec(url)?.[1];
  if (portAttr) return { attr: portAttr, self: { $double: 'self', attrs: { [portAttr]: { $port: 0 } } } };
  const urlAttr = /^self\.(\w+)$/.exec(url.trim())?.[1];
  if (urlAttr) return { attr: urlAttr, self: { $double: 'self', attrs: { [urlAttr]: 'http://127.0.0.1:{vaudit-port0}/state' } } };
  return undefined;
}

const oracle: Oracle = {
  id: 'unguarded-state-read',
  async plan(ctx) {
    const t = await pythonTarget(ctx);
    if (!('slice' in t)) return t;
    const code = functionText(t.file, t.slice.info.startLine, t.slice.info.endLine);
    const src = ctx.control.source as { self?: string; port?: number } | undefined;
    // An HTTP read whose address comes from `self` (`requests.get(BASE_URL(self.port))`): the
    // endpoint is a stub on a port allocated for the case, handed to the code through `self`.
    const httpSelf = src ? undefined : httpSelfAddress(code);
    const selfPath = src?.self ?? (src?.port || httpSelf ? undefined : /\bself\.((?:\w+\.)*\w+)\s*\(/.exec(code)?.[1]);
    const port = src?.port ?? (selfPath || httpSelf ? undefined : stubTargets(t, ctx.control).port);
    if (!selfPath && !port && !httpSelf) return { status: 'unsupported', detail: 'no state source found: give control.source ({self} or {port})' };
    const w0 = defaultWitnesses(t, ctx)[0] ?? { args: [] };
    const variants: Array<{ label: string; w: Witness }> = httpSelf
      ? [
          { label: 'healthy state (baseline)', w: { ...w0, self: httpSelf.self, servers: [{ port: 0, status: 200, body: '{}', contentType: 'application/json' }] } },
          { label: `nothing listens on the state endpoint (self.${httpSelf.attr} names a closed port)`, w: { ...w0, self: httpSelf.self, servers: [{ port: 0, closed: true }] } },
          { label: `the state endpoint (self.${httpSelf.attr}) answers 502 with ${show(NON_JSON)}`, w: { ...w0, self: httpSelf.self, servers: [{ port: 0, status: 502, body: NON_JSON, contentType: 'text/html' }] } },
          { label: `the state endpoint (self.${httpSelf.attr}) answers 200 with ${show(NON_JSON)}`, w: { ...w0, self: httpSelf.self, servers: [{ port: 0, status: 200, body: NON_JSON, contentType: 'text/html' }] } },
        ]
      : selfPath
      ? [
          { label: 'healthy state (baseline)', w: { ...w0, self: selfWith(selfPath, { $double: 'callable', returns: '{}' }) } },
          { label: `self.${selfPath}(…) raises ConnectionError (state unavailable)`, w: { ...w0, self: selfWith(selfPath, { $double: 'callable', raises: { type: 'ConnectionError', message: 'state endpoint unavailable' } }) } },
          { label: `self.${selfPath}(…) returns ${show(NON_JSON)}`, w: { ...w0, self: selfWith(selfPath, { $double: 'callable', returns: NON_JSON }) } },
        ]
      : [
          { label: 'healthy state (baseline)', w: { ...w0, servers: [{ port: port!, status: 200, body: '{}', contentType: 'application/json' }] } },
          { label: `nothing listens on 127.0.0.1:${port} (state unavailable)`, w: { ...w0 } },
          { label: `127.0.0.1:${port} answers 502 with ${show(NON_JSON)}`, w: { ...w0, servers: [{ port: port!, status: 502, body: NON_JSON, contentType: 'text/html' }] } },
          { label: `127.0.0.1:${port} answers 200 with ${show(NON_JSON)}`, w: { ...w0, servers: [{ port: port!, status: 200, body: NON_JSON, contentType: 'text/html' }] } },
        ];
    const cases = variants.map((v, i) => callCase(t, `v${i}`, v.w, ctx));
    const last = Math.max(t.line, ctx.finding.range.end.line);
    // The state read on the flagged line itself, with the earlier `self` calls answered as on a healthy run.
    const flagged = !src && !httpSelf && selfPath ? flaggedSelfCall(code, t.slice.info.startLine, t.line, last) : undefined;
    const healthy: Array<[string, Spec]> = (flagged?.before ?? []).map((p) => [p, { $double: 'callable', returns: shapedReturn(code, p, true) }]);
    const onFlagged: Array<{ label: string; w: Witness }> = flagged
      ? [
          { label: 'healthy state (baseline)', w: { ...w0, self: selfWithAll([...healthy, [flagged.read, { $double: 'callable', returns: '{}' }]]) } },
          { label: `self.${flagged.read}(…) returns ${show(NON_JSON)}`, w: { ...w0, self: selfWithAll([...healthy, [flagged.read, { $double: 'callable', returns: NON_JSON }]]) } },
          { label: `self.${flagged.read}(…) raises ConnectionError (state unavailable)`, w: { ...w0, self: selfWithAll([...healthy, [flagged.read, { $double: 'callable', raises: { type: 'ConnectionError', message: 'state endpoint unavailable' } }]]) } },
        ].map((v) => ({ ...v, label: `${v.label}; ${flagged.before.map((p) => `self.${p}(…)`).join(', ')} answered as on a healthy run (shaped by the call site)` }))
      : [];
    const flaggedCases = onFlagged.map((v, i) => callCase(t, `f${i}`, v.w, ctx));
    /** The line of the flagged statement where the escaping exception arose, if it did there. */
    const atFlagged = (r: CaseResult): number | undefined => {
      const inRange = (f?: string | null, l?: number | null) => f === t.file && l != null && l >= t.line && l <= last;
      if (inRange(r.exception?.file, r.exception?.line)) return r.exception!.line!;
      return r.events.find((e) => e.type === r.exception?.type && inRange(e.file, e.line))?.line;
    };
    /** The verdict of one set of cases (a healthy baseline first, then the failing states). */
    const judgeSet = (set: typeof cases, labels: typeof variants, results: ReadonlyMap<string, CaseResult>): Confirmation => {
      const expected = 'a failed verdict (False), not an exception';
      const base = results.get(set[0]!.id);
      const nr0 = firstNonResult([base]);
      if (nr0) return nr0;
      // An exception the witness raises even with a healthy state says nothing about the state read;
      // only a different exception (the unavailable or malformed state's own) counts.
      const baseType = base!.status === 'raised' ? base!.exception?.type : undefined;
      let elsewhere: string | undefined;
      for (let i = 1; i < set.length; i++) {
        const r = results.get(set[i]!.id);
        if (r?.status !== 'raised' || r.exception?.type === baseType) continue;
        // the exception must come from the flagged read, not from anywhere on the path
        const at = atFlagged(r);
        if (at === undefined) {
          elsewhere ??= `${r.exception?.type} escaped from ${r.exception?.file?.split('/').pop()}:${r.exception?.line}, not from the state read at line ${t.line}`;
          continue;
        }
        return { status: 'confirmed', witness: labels[i]!.label, expected, observed: `${r.exception?.type}: ${r.exception?.message} raised at line ${at} escaped the verifier`, runId: r.runId };
      }
      const nr = firstNonResult(set.map((c) => results.get(c.id)));
      if (nr) return nr;
      if (elsewhere) return { status: 'unreached', detail: elsewhere, runId: base!.runId };
      if (baseType) return { status: 'unreached', detail: `the witness raised ${baseType} with a healthy state too: ${base!.exception?.message}`, runId: base!.runId };
      const r = results.get(set[1]!.id)!;
      if (!set.slice(1).some((c) => executedLine(results.get(c.id), t.file, t.line)))
        return { status: 'unreached', detail: `no witness reached the state read at line ${t.line} (${outcomesOf(set.slice(1).map((c) => results.get(c.id)))})`, runId: r.runId };
      return { status: 'refuted', witness: labels.slice(1).map((v) => v.label).join('; '), expected, observed: set.slice(1).map((c) => `returned ${show(results.get(c.id)?.value)}`).join(' / '), runId: r.runId };
    };
    return {
      cases: [...cases, ...flaggedCases],
      judge(results): Confirmation {
        const first = judgeSet(cases, variants, results);
        if (!flaggedCases.length || first.status === 'confirmed' || first.status === 'refuted') return first;
        // the first set reached no verdict at the flagged line: the state read there, earlier calls healthy
        const second = judgeSet(flaggedCases, onFlagged, results);
        if (second.status === 'confirmed' || second.status === 'refuted') return second;
        return { ...first, detail: `${first.detail}; with self.${flagged!.read}(…) as the state source: ${second.detail ?? second.status}` };
      },
    };
  },
};
export default oracle;
