/**
 * Oracle `init-missing`: a `file` entry whose graded path no initializer writes is graded by the suite's own
 * function (the entry's binding), called as the verifier calls it: the entry as its argument, `self` holding
 * the task's own members under their names (as the task loader copies them: `initialize`, `evaluate`…), so
 * the initial state is exactly what the task sets up, without a touch of that path. The graded file is what
 * the function reads: through the `self.<obj>.<method>(<entry>["path"])` call it makes (a double returning
 * the content), else an open() of the path (a file fixture). The contents: the entry's edit applied to an
 * initial text (its `source`; a `target` alone is added to it), and that initial text. Each also runs on the fixed twin: the same task with
 * a touch of the path (that initial text) added to its initializers.
 *
 * finding.control: { oracle, file, qualname (the binding), entry, taskMembers, initKey, path }
 * confirmed: no content passes as the task is written, and a content that fails there passes on the fixed
 * twin (the missing touch is the cause) · refuted: a content passes as written (the check does not need the
 * initializer) · unreached: nothing passes on the twin either (the stand-ins do not reproduce a pass) ·
 * unsupported: `compile` and Lean findings (their verdict comes from the environment's compiler or Lean
 * REPL, which no control case stands in for), and entries the adapter did not bind to a function.
 */
import type { Confirmation } from '../../src/core/types.js';
import { callCase, firstNonResult, functionSource, outcomeOf, pythonTarget, show, str, truthy, type Oracle, type Witness } from '../../src/confirm/oracle-kit.js';
import type { CaseResult, Spec } from '../../src/confirm/harness.js';

/** The call through an object `self` holds that reads the graded path (`self.manager.read_file(eval_item["path"])`
 *  → `manager.read_file`); a call of self's own method (`self.reverse_touch(…)`, no dot) is the suite's code and runs. */
function readCall(code: string, param: string): string | undefined {
  const re = new RegExp(String.raw`self\.([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+)\s*\(\s*${param}\s*\[\s*(['"])path\2\s*\]\s*\)`, 'g');
  for (const m of code.matchAll(re)) return m[1];
  return undefined;
}

/** `{a: {b: fn}}` from the dotted path `a.b` as object doubles, ending in a callable returning `value`. */
function nested(path: string, value: string): Record<string, Spec> {
  const parts = path.split('.');
  let spec: Spec = { $double: 'callable', returns: value };
  for (let i = parts.length - 1; i >= 1; i--) spec = { $double: 'object', attrs: { [parts[i]!]: spec } };
  return { [parts[0]!]: spec };
}

function why(kind: string | undefined, messageId: string | undefined): string {
  if (messageId && messageId !== 'noTouch')
    return 'a Lean placeholder is graded by the Lean REPL of the task\'s environment against the queried statement, which no control case stands in for; add the query initializer the finding names';
  if (kind === 'compile')
    return 'a compile entry\'s verdict comes from compiling the document in the task\'s environment (its helper server), which a control case cannot stand in for without deciding the verdict itself; add the touch the finding names';
  return 'vaudit found no function the entry routes to (the suite\'s adapter did not bind this entry kind), so there is no grading code to run; add the touch the finding names';
}

const oracle: Oracle = {
  id: 'init-missing',
  async plan(ctx) {
    const entry = ctx.control.entry as Record<string, unknown> | undefined;
    if (!str(ctx.control.qualname) || !entry || typeof entry !== 'object') {
      const kind = ctx.finding.message.match(/This (\w+) entry/)?.[1];
      return { status: 'unsupported', detail: why(kind, ctx.finding.messageId) };
    }
    const path = str(ctx.control.path) ?? str(entry.path) ?? '';
    const t = await pythonTarget(ctx);
    if (!('slice' in t)) return t;
    if (!t.params.length) return { status: 'unsupported', detail: `${t.slice.qualname} takes no entry argument` };
    const members = (ctx.control.taskMembers as Record<string, unknown> | undefined) ?? {};
    const initKey = str(ctx.control.initKey) ?? 'initialize';
    const inits = Array.isArray(members[initKey]) ? (members[initKey] as unknown[]) : [];
    const code = functionSource(t);
    const reader = readCall(code, t.params[0]!);
    // the file as a correct agent leaves it, when the initial text is `initial`: the entry's edit applied
    const initial = str(entry.source) ?? 'vaudit: the initial text\n';
    const edited = str(entry.source) !== undefined && str(entry.target) !== undefined ? initial.split(str(entry.source)!).join(str(entry.target)!) : initial;
    // an edit the entry names without saying what it replaces: the target added to the initial text
    const added = str(entry.target) !== undefined && str(entry.source) === undefined ? `${initial}${str(entry.target)}\n` : undefined;
    const contents = [...new Set([edited, ...(added ? [added] : []), initial])];
    // the fixed twin: the same task with the touch of the graded path it lacks (shaped like the task's own touches)
    const like = inits.find((x): x is Record<string, unknown> => !!x && typeof x === 'object' && (x as Record<string, unknown>).func === 'touch');
    const touch = { ...(like ?? {}), func: 'touch', path, text: initial };
    const rest = t.params.slice(1).map(() => null);
    const witness = (text: string, touched: boolean): Witness => ({
      label: `${touched ? `the task with a touch of ${path} added` : `the task as written (no touch of ${path})`}, the graded file holding ${show(text)}`,
      args: [entry, ...rest],
      self: { $double: 'self', attrs: { ...(members as Record<string, Spec>), ...(touched ? { [initKey]: [...inits, touch] } : {}), ...(reader ? nested(reader, text) : {}) } },
      ...(reader || !path.startsWith('/') ? {} : { files: { [path]: { content: text } } }),
    });
    const ws = contents.map((c) => witness(c, false));
    const twins = contents.map((c) => witness(c, true));
    const cases = [...ws.map((w, i) => callCase(t, `w${i}`, w, ctx)), ...twins.map((w, i) => callCase(t, `touched${i}`, w, ctx))];
    return {
      cases,
      judge(results): Confirmation {
        const rs = ws.map((_, i) => results.get(`w${i}`));
        const ts = twins.map((_, i) => results.get(`touched${i}`));
        const nr = firstNonResult(rs);
        if (nr) return nr;
        const passes = (r: CaseResult | undefined) => r?.status === 'returned' && truthy(r.value);
        const passed = rs.findIndex(passes);
        if (passed >= 0)
          return { status: 'refuted', witness: ws[passed]!.label!, expected: 'no content passes without the touch', observed: `returned ${show(rs[passed]!.value)}: the check does not need the missing initializer`, runId: rs[passed]!.runId };
        const twin = ts.findIndex(passes);
        if (twin < 0)
          return {
            status: 'unreached',
            detail: `no file content passed even with the touch added (${ts.map((r) => outcomeOf(r)).join('; ')}): vaudit's stand-in for how ${t.slice.qualname} reads the file does not reproduce a passing run, so the missing touch is not shown to be the cause`,
            runId: ts[0]?.runId ?? rs[0]!.runId,
          };
        const r = rs[twin]!;
        const ev = (r.events ?? []).find((e) => e.file === t.file);
        const raised = ev ? `; it raised ${ev.type}${ev.message ? ` (${ev.message})` : ''} at line ${ev.line}${ev.func ? ` in ${ev.func}` : ''}` : '';
        return {
          status: 'confirmed',
          witness: `${t.slice.qualname}(entry), self holding the task's own members, the graded file holding ${show(contents[twin])}`,
          expected: `the verdict the same file gets when the task touches ${path}: ${outcomeOf(ts[twin])}`,
          observed: `${outcomeOf(r)} without the touch (every content tried: ${rs.map((x) => outcomeOf(x)).join(', ')}): no agent output can pass${raised}`,
          runId: r.runId,
        };
      },
    };
  },
};
export default oracle;
