/**
 * Oracle `missing-timeout`: the call as written runs against a stub tool that stalls (a PATH
 * stub that sleeps, or a local state endpoint that accepts and never answers). A call without a
 * timeout does not return before the host's bound.
 *
 * finding.control: { oracle: 'missing-timeout', ...common Python fields (see common.ts),
 *   tool?: string             command name the call runs (e.g. 'pdflatex', 'lake'); default: the
 *                             string literals that start a list argument in the function,
 *   port?: number             for HTTP/socket calls: the local port of the endpoint the code calls
 *                             (default: parsed from an http://localhost:PORT literal in the function),
 *   ownTimeoutSeconds?: number   a timeout the call may carry (the bound is raised above it, ≤ 10 s),
 *   callKind?: string         'interactive': the stub prompts and waits on stdin instead of stalling
 *                             outright (a call with stdin=DEVNULL or input= gets EOF and returns) }
 * An HTTP call whose address comes from `self` (`requests.get(self.http_server + "/x")`) gets a
 * stalling endpoint on a port allocated for the case, named through that attribute.
 * confirmed: the call met its stalling peer (a stub ran, or the endpoint was connected to) and the
 * function had not returned at the bound · refuted: the call met its stalling peer and returned or
 * raised before the bound (e.g. its own TimeoutExpired) · unreached: no witness got the call to its
 * stalling peer (the detail says where each one stopped and why) · unsupported: there is no peer a
 * control case can stall for this call (no tool, no local port, no address in `self`).
 * A witness with stand-in files (a file the task names that the suite does not ship: `{}` for JSON, else
 * empty) has a twin whose stand-ins hold other content (a non-empty JSON object, non-empty text): it is
 * confirmed only when both wait out the bound at the call's peer; when only one of them reaches the call,
 * the path depends on the file's content, which the real file decides → `unreached`, saying so. Two
 * contents are not enough on their own: a call that runs only on a path a test of a file-derived value
 * chooses (content, size, existence, hash, a parse error: content-gate.ts) is `unreached` whatever the
 * stand-ins do, since the real file may take the other path (an output path the code tests for existence
 * included).
 */
import type { Confirmation } from '../../src/core/types.js';
import { callCase, defaultWitnesses, executedLine, firstNonResult, functionSource, num, outcomeOf, pythonTarget, show, type Oracle, type OracleContext, type Target, type Witness } from '../../src/confirm/oracle-kit.js';
import { answerThenStall, earlierHttpCalls, earlierProcessCalls, FAILED_ANSWER, OK_ANSWER, parsedOutput, httpSelfAddress, PROMPT, STALL, stubTargets } from '../../src/confirm/stubs.js';
import { localizeUrls, otherStandIns } from '../../src/confirm/inputs.js';
import type { Spec } from '../../src/confirm/harness.js';
import { contentGate } from './content-gate.js';

type StandInWitness = Witness & { twin?: number; twinOf?: number };

const holding = (w: Witness): string => Object.entries(w.standIns ?? {}).map(([p, c]) => `${show(p)} holding ${show(c)}`).join(', ');

/** A witness with stand-in files gets a twin whose stand-ins hold other content: a verdict on a stand-in
 *  needs the call reached with both (the path to it must not depend on what the file holds). */
function addStandInTwins(ws: StandInWitness[]): void {
  for (let i = 0, n = ws.length; i < n; i++) {
    const w = ws[i]!;
    if (!w.standIns || !Object.keys(w.standIns).length) continue;
    const other = otherStandIns(w.standIns);
    w.twin = ws.length;
    ws.push({ ...w, files: { ...(w.files ?? {}), ...other }, standIns: other, twinOf: i, twin: undefined, label: `${w.label}; the same with ${holding({ args: [], standIns: other })}` });
  }
}

/** Why a stand-in verdict does not hold: `reached` met the stall, `other` (the other content) did not. */
function contentDetail(line: number, reached: Witness, other: Witness, otherOutcome: string, twinReached: boolean): string {
  const paths = Object.keys(reached.standIns ?? {}).map((p) => show(p)).join(', ');
  const first = twinReached ? `only with other content in the stand-in: ${reached.label} waited out the bound, but with the stand-in as first written (${Object.values(other.standIns ?? {}).map((c) => show(c)).join(', ')})` : `only with the stand-in content: ${reached.label} waited out the bound, but with ${holding(other)}`;
  return `the call at line ${line} met its stalling peer ${first} ${otherOutcome}; the path to the call depends on what ${paths} holds, which the task's real file decides and the suite does not ship`;
}

/** A call on a path a test of a file's content (size, existence, hash) chooses: a stand-in for that file
 *  shows what the stand-in does there, not what the task's real file does. The detail for a witness with
 *  stand-ins, when there is such a test. */
function standInGate(ctx: OracleContext, t: Target, ws: Witness[]): ((w: Witness) => string) | undefined {
  const analysis = ctx.project?.python.analysis(t.file);
  const gate = analysis && ws.some((w) => Object.keys(w.standIns ?? {}).length) ? contentGate(analysis, t.line) : undefined;
  if (!gate) return undefined;
  return (w) =>
    `the call at line ${t.line} met its stalling peer with ${holding(w)}, but it runs only on the path the test at line ${gate.line} (\`${gate.test}\`) chooses, and that test reads a value taken from a file (its content, size, existence or hash); the suite does not ship ${Object.keys(w.standIns ?? {}).map((p) => show(p)).join(', ')}, so which path the task's real file takes is unknown and a stand-in cannot stand for it`;
}

const oracle: Oracle = {
  id: 'missing-timeout',
  async plan(ctx) {
    const t = await pythonTarget(ctx);
    if (!('slice' in t)) return t;
    const found = stubTargets(t, ctx.control);
    // a URL template taken for a program (`requests.post(f"{self.base}/file")`) is no tool to stub
    const tools = found.tools.filter((n) => !/[{}]|:\/\//.test(n));
    const { port, wrapperStubs } = found;
    const flagged = functionSource(t).split('\n')[t.line - t.slice.info.startLine] ?? '';
    if (/\.connect\(|\bcreate_connection\(/.test(flagged) && !/\b(?:recv|read|makefile)\b/.test(flagged))
      return { status: 'unsupported', detail: 'a TCP connect without a timeout stalls only on a peer that drops the handshake, which a local control case cannot simulate' };
    // `requests.get(self.http_server + "/x")`: a stalling endpoint on a port allocated for the case
    const httpSelf = t.slice.info.isMethod ? httpSelfAddress(flagged) : undefined;
    // Each witness may wait the whole bound: few of them, the most typical first. A remote address in
    // the task's own config names the case's endpoint instead (same path), so the call meets a peer
    // that stalls; a harness object's address attribute names it already (inputs.ts).
    // A file the task names but the suite does not ship gets a stand-in: whether the call meets its
    // stalling peer must not depend on what the file holds (two contents, and no test of the file on the path: content-gate.ts).
    const ws0 = defaultWitnesses(t, ctx, undefined, { standInFiles: true })
      .slice(0, 2)
      .map((w) => ({ ...w, args: localizeUrls(w.args) as Spec[], ...(w.kwargs ? { kwargs: localizeUrls(w.kwargs) as Record<string, Spec> } : {}) }));
    // the flagged call after earlier HTTP calls: the peer answers those first, then stalls: with HTTP
    // 500 (a retry after a failed status) or with 200 (a download, then the upload that is flagged)
    const earlier = earlierHttpCalls(t);
    const calls = `the ${earlier} earlier call${earlier > 1 ? 's' : ''}`;
    type W = StandInWitness & { before?: Array<{ status: number; body: string }>; runsAnswered?: number };
    const ws1: W[] = earlier
      ? ws0.flatMap((w) => [
          w,
          { ...w, label: `${w.label}; the peer answers ${calls} with HTTP 500`, before: Array.from({ length: earlier }, () => FAILED_ANSWER) },
          { ...w, label: `${w.label}; the peer answers ${calls} with HTTP 200`, before: Array.from({ length: earlier }, () => OK_ANSWER) },
        ])
      : ws0;
    const ws: W[] = [...ws1];
    // the flagged tool run after earlier ones whose output the function parses: the stubs answer those
    // runs with what the code reads from them, then stall
    // (one tool only: its own runs are counted, by name, in the case's log of stub runs)
    const earlierRuns = tools.length === 1 && ctx.control.callKind !== 'interactive' ? earlierProcessCalls(t, tools[0]!) : 0;
    const parsed = earlierRuns ? parsedOutput(t) : undefined;
    if (earlierRuns && parsed !== undefined)
      ws.push(
        ...ws0.map((w) => ({
          ...w,
          label: `${w.label}; the ${earlierRuns} earlier tool run${earlierRuns > 1 ? 's' : ''} print ${parsed}`,
          stubTools: { ...(w.stubTools ?? {}), ...Object.fromEntries(tools.map((n) => [n, answerThenStall(earlierRuns, parsed)])) },
          runsAnswered: earlierRuns,
        })),
      );
    addStandInTwins(ws);
    const viaArgs = ws.some((w) => /\{vaudit-port0\}|"\$port":0\b/.test(JSON.stringify([w.args, w.kwargs ?? null, w.self ?? null])));
    if (!tools.length && !port && !httpSelf && !viaArgs)
      return { status: 'unsupported', detail: `vaudit found no peer to stall for the call at line ${t.line}: it names no command, no http://localhost:PORT address and no address held in \`self\`; the finding stands as a static one` };
    const own = num(ctx.control.ownTimeoutSeconds);
    const bound = own !== undefined ? Math.min(10_000, own * 1000 + 1000) : ctx.timeoutMs;
    const interactive = ctx.control.callKind === 'interactive';
    const stubTools = { ...wrapperStubs, ...Object.fromEntries(tools.map((n) => [n, interactive ? PROMPT : STALL])) };
    const cases = ws.map((w, i) =>
      callCase(
        t,
        `w${i}`,
        {
          ...w,
          ...(httpSelf ? { self: httpSelf.self } : {}),
          stubTools: { ...stubTools, ...(w.stubTools ?? {}) },
          // the `self` address names the first endpoint (`{vaudit-port0}`)
          servers: (w.servers?.length
            ? w.servers
            : httpSelf || viaArgs
              ? [{ port: 0, stall: true }, ...(port ? [{ port, stall: true }] : [])]
              : port
                ? [{ port, stall: true }]
                : undefined
          )?.map((s) => (w.before && !s.closed ? { ...s, before: w.before } : s)),
        },
        ctx,
        { timeoutMs: bound, slow: true },
      ),
    );
    const stalls =
      [
        ...tools.map((n) => (interactive ? `a stub '${n}' that prompts on stdin` : `a stub '${n}' that never exits`)),
        ...(port ? [`an endpoint on 127.0.0.1:${port} that never answers`] : []),
        ...(httpSelf ? [`an endpoint that never answers (self.${httpSelf.attr} names it)`] : []),
        ...(viaArgs && !httpSelf ? ['an endpoint that never answers (the address the witness gives names it)'] : []),
      ].join(' and ') || 'stalling stubs';
    const gateDetail = standInGate(ctx, t, ws);
    return {
      cases,
      judge(results): Confirmation {
        const expected = `the call gives up within its own bound (< ${bound} ms)`;
        let refuted: Confirmation | undefined;
        let early: string | undefined;
        let contentDependent: Confirmation | undefined;
        const metStall = (i: number): boolean => {
          const r = results.get(cases[i]!.id);
          if (!r || !executedLine(r, t.file, t.line)) return false;
          const runs = ws[i]!.runsAnswered ? (r.stubCalls ?? []).filter((n) => n === tools[0]).length : (r.stubCalls?.length ?? 0);
          return runs > (ws[i]!.runsAnswered ?? 0) || (r.serverHits ?? 0) > (ws[i]!.before ? earlier : 0);
        };
        for (let i = 0; i < cases.length; i++) {
          // a twin only answers for its witness; one that met the stall where its witness did not shows the
          // path depends on the content too
          const of = ws[i]!.twinOf;
          if (of !== undefined) {
            const ri = results.get(cases[i]!.id);
            if (ri?.status === 'deadline' && metStall(i) && !metStall(of))
              contentDependent ??= { status: 'unreached', detail: contentDetail(t.line, ws[i]!, ws[of]!, `the witness ${outcomeOf(results.get(cases[of]!.id))} without reaching the call's peer`, true), runId: ri.runId };
            continue;
          }
          const r = results.get(cases[i]!.id);
          if (!r || !executedLine(r, t.file, t.line)) continue;
          // The call met the stalling peer (a stub ran, or the endpoint was connected to): only then
          // does the outcome say anything about the call's timeout. A witness that raised on the way
          // (even on the flagged line itself, e.g. building the URL) never made the call.
          // (a retry witness: past the connections its peer answered, so the call met the stall)
          if (!metStall(i)) {
            if (r.status === 'raised') early ??= `${ws[i]!.label}: the witness raised ${outcomeOf(r).replace(/^raised /, '')} before the call reached its stalling peer`;
            continue;
          }
          const j = ws[i]!.twin;
          if (r.status === 'deadline' && j !== undefined) {
            const rj = results.get(cases[j]!.id);
            if (!(rj?.status === 'deadline' && metStall(j))) {
              contentDependent ??= { status: 'unreached', detail: contentDetail(t.line, ws[i]!, ws[j]!, `the witness ${rj && metStall(j) ? outcomeOf(rj) : `${outcomeOf(rj)} without reaching the call's peer`}`, false), runId: rj?.runId ?? r.runId };
              continue;
            }
            if (gateDetail) { // both contents took the path, but a test of the file chooses it: the real file may not
              contentDependent ??= { status: 'unreached', detail: gateDetail(ws[i]!), runId: r.runId };
              continue;
            }
            return { status: 'confirmed', witness: `${ws[i]!.label} against ${stalls}; the same with ${holding(ws[j]!)} also waits (no test before the call at line ${t.line} reads the file, and two contents both reach it)`, expected, observed: `still waiting at the ${bound} ms bound`, runId: r.runId };
          }
          if (r.status === 'deadline')
            return { status: 'confirmed', witness: `${ws[i]!.label} against ${stalls}`, expected, observed: `still waiting at the ${bound} ms bound`, runId: r.runId };
          if (r.status === 'returned' || r.status === 'raised')
            refuted ??= {
              status: 'refuted',
              witness: `${ws[i]!.label} against ${stalls}`,
              expected,
              observed: `${r.status === 'returned' ? `returned ${show(r.value)}` : `raised ${r.exception?.type}`} after ${Math.round(r.ms ?? 0)} ms`,
              runId: r.runId,
            };
        }
        if (contentDependent && !refuted) return contentDependent;
        const nr = firstNonResult(cases.map((c) => results.get(c.id)), { deadlineIsTimeout: false });
        if (nr) return nr;
        const met = cases.map((c, i) => `${ws[i]!.label}: ${outcomeOf(results.get(c.id))}`).join('; ');
        return refuted ?? { status: 'unreached', detail: early ? `${early} (no witness reached the call at line ${t.line} and its peer)` : `no witness reached line ${t.line} and its stalling peer (${met})`, runId: results.get(cases[0]?.id ?? '')?.runId };
      },
    };
  },
};
export default oracle;
