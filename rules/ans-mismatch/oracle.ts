/**
 * Oracle `ans-mismatch`. Only `conflict` makes a claim about a verdict that a run can show: two `stop`/ANS
 * entries of one task expect different answers, so no answer passes. The suite's own grader of stop entries
 * is run on the task's entries with each expected answer submitted, after a healthy baseline: the same task
 * with only the first ANS entry, which its own answer must pass.
 *
 * The grader is found by what it does, never by name: a project function (or method) that compares an
 * entry's `["args"]` with one of its parameters (`eval_item["args"] != stop_args`); the entries come from
 * the `self` attribute (or the parameter) it takes them from (`self.evaluate[i]`, `for e in self.checks`),
 * the stop value from the parameter it compares `["value"]` with (passed as the value, or as an object
 * whose `__name__` is the value when the code reads `.__name__`).
 *
 * The other findings are about the task's data, not a verdict: the grader reads only the stop entry's
 * `args`, never the top-level `ans` (the copy for people and replay tooling), so no run of it can show
 * `mismatch`, `missingAns`, `orphanAns` or `badAns`; the two copies themselves are the evidence.
 *
 * finding.control: none (positional: a JSON finding of this rule gets this answer).
 * confirmed (conflict): the baseline passed its own answer, and each expected answer fails on the task as
 * written · refuted: an expected answer passes · crash: the baseline failed (no basis for a verdict) ·
 * unsupported: the other findings, and a project with no grader vaudit can find.
 */
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import type { Confirmation } from '../../src/core/types.js';
import type { Spec } from '../../src/confirm/harness.js';
import { callCase, firstNonResult, functionSource, outcomeOf, pythonTarget, show, truthy, type Oracle, type OracleContext } from '../../src/confirm/oracle-kit.js';

const STATIC: Record<string, string> = {
  mismatch:
    'no run can show this: the grader compares the agent\'s answer with the stop entry\'s "args" and never reads the top-level "ans", so its verdict is the same whatever "ans" says; the two copies disagreeing is the evidence. Make "ans" and the stop entry\'s args the same answer',
  missingAns: 'no run can show this: the task has no "ans" to submit, and the grader reads only the stop entry\'s "args"; the missing field is the evidence. Add the "ans" the finding names',
  orphanAns:
    'no run can show this: no stop entry grades an answer, so there is no answer comparison to run, and the verdict comes from the task\'s other entries; the ungraded "ans" is the evidence. Add the ANS stop entry or remove "ans"',
  badAns: 'no run can show this: the grader never reads the top-level "ans", so its format changes no verdict; the field itself is the evidence. Write it as the finding says',
};

interface Grader {
  file: string;
  qualname: string;
  line: number;
  /** The parameter compared with an entry's args, and the one compared with its value. */
  answer: string;
  kind?: string;
  /** Where the entries come from: a `self` attribute or a parameter. */
  entries: { self: string } | { param: string };
}

/** Folders and files that hold tools, old releases or tests, not the harness's grader. */
const NOT_HARNESS = /(?:^|\/)(?:tools?|scripts?|archive|archived|legacy|deprecated|old|tests?|examples?|docs?|notebooks?)\//i;

/** Why the one grader found cannot be run as the harness runs it (a tool's helper, entries its class or
 *  its callers change before it sees them), else undefined. */
function notAsHarnessRuns(ctx: OracleContext, g: Grader): string | undefined {
  const py = ctx.project!.python;
  const rel = relative(ctx.root, g.file) || g.file;
  const text = py.text(g.file) ?? '';
  if (NOT_HARNESS.test(rel) || /^if\s+__name__\s*==\s*['"]__main__['"]/m.test(text))
    return `the only function that compares a stop entry's "args" with an answer, ${g.qualname} (${rel}:${g.line}), sits in a script or tool folder, not in code a harness imports; running it would show what that script does, not the suite's verdict`;
  const a = py.analysis(g.file);
  const fn = a?.functions().find((f) => f.qualname === g.qualname);
  if (!a || !fn) return undefined;
  if ('self' in g.entries) {
    const attr = g.entries.self;
    const cls = fn.classNode ? a.src(fn.classNode) : '';
    const start = fn.classNode ? a.line(fn.classNode) : 1;
    const lines = cls.split('\n');
    const grader = a.src(fn.node);
    const sets = lines.map((l, i) => ({ l, i })).filter(({ l }) => new RegExp(String.raw`\bself\.${attr}\s*(?:=(?!=)|\+=)|\bself\.${attr}\s*\[[^\]]*\]\s*=(?!=)|\bself\.${attr}\.(?:append|extend|insert|sort|remove|pop|reverse|clear)\s*\(|\bsetattr\s*\(\s*self\b`).test(l) && !grader.includes(l));
    const plain = /^\s*self\.\w+\s*=\s*(?:self\.)?[A-Za-z_]\w*(?:\s*\[\s*(['"])\w+\1\s*\]|\.get\(\s*(['"])\w+\2\s*(?:,[^()]*)?\))+\s*(?:#.*)?$/;
    if (sets.length !== 1 || !plain.test(sets[0]!.l))
      return `the grader walks \`self.${attr}\`, which its class builds from the task${sets.length ? ` at line ${start + sets[0]!.i}` : ''} by more than reading the entry list (the entries it sees may differ from the task's as written), and vaudit does not run the class's own construction; the finding stands as a static one`;
    return undefined;
  }
  // a parameter grader: every call in the project must pass the task's list as it is
  const param = g.entries.param;
  const index = fn.params.indexOf(param);
  for (const file of py.files()) {
    const src = py.text(file);
    if (!src || !src.includes(fn.name)) continue;
    for (const m of src.matchAll(new RegExp(String.raw`(?<![\w.]def\s)(?<!def\s)\b${fn.name}\s*\(`, 'g'))) {
      const line = src.slice(0, m.index).split('\n').length;
      if (file === g.file && line === g.line) continue;
      let depth = 1;
      let i = m.index + m[0].length;
      const from = i;
      for (; i < src.length && depth > 0; i++) depth += '([{'.includes(src[i]!) ? 1 : ')]}'.includes(src[i]!) ? -1 : 0;
      const args: string[] = [];
      let cur = '';
      let d = 0;
      for (const ch of src.slice(from, i - 1)) {
        d += '([{'.includes(ch) ? 1 : ')]}'.includes(ch) ? -1 : 0;
        if (ch === ',' && d === 0) {
          args.push(cur.trim());
          cur = '';
        } else cur += ch;
      }
      args.push(cur.trim());
      const arg = args.find((x) => new RegExp(String.raw`^${param}\s*=(?!=)`).test(x))?.replace(/^\w+\s*=\s*/, '') ?? args.filter((x) => !/^\w+\s*=(?!=)/.test(x))[index];
      if (arg === undefined) continue;
      const where = `${relative(ctx.root, file) || file}:${line}`;
      const transformed = (e: string) => /\bfor\b|\bfilter\s*\(|\bsorted\s*\(|\breversed\s*\(|\bset\s*\(|\bdict\s*\(|\[\s*-?\d*\s*:/.test(e) || (/\(/.test(e) && !/^[\w.]+(?:\[[^\]]+\]|\.get\([^()]*\))*$/.test(e));
      if (transformed(arg)) return `the grader's caller at ${where} passes it \`${arg.slice(0, 60)}\`, entries it builds from the task (filtered or reordered), so running it on the task's list as written would not be what the harness runs; the finding stands as a static one`;
      if (/^[A-Za-z_]\w*$/.test(arg)) {
        const before = src.slice(0, m.index);
        const bound = [...before.matchAll(new RegExp(String.raw`^[ \t]*${arg}\s*=(?!=)\s*(.+)$`, 'gm'))].pop()?.[1];
        if (bound && transformed(bound)) return `the grader's caller at ${where} passes it \`${arg}\`, bound to \`${bound.trim().slice(0, 60)}\` (entries it builds from the task: filtered or reordered), so running it on the task's list as written would not be what the harness runs; the finding stands as a static one`;
      }
    }
  }
  return undefined;
}

/** Every project function that compares an entry's `["args"]` with one of its parameters (any form: a loop,
 *  a generator, an index), as `file qualname`. */
function graderCandidates(ctx: OracleContext): string[] {
  const py = ctx.project?.python;
  if (!py) return [];
  const CMP = /\[\s*(['"])args\1\s*\]\s*(?:!=|==)\s*([A-Za-z_]\w*)\b(?!\s*[[.(])|([A-Za-z_]\w*)\s*(?:!=|==)\s*[A-Za-z_][\w.]*\s*\[\s*(['"])args\4\s*\]/g;
  const out = new Set<string>();
  for (const file of [...py.files()].sort()) {
    const text = py.text(file);
    if (!text || !/['"]args['"]/.test(text)) continue;
    const a = py.analysis(file);
    for (const m of text.matchAll(CMP)) {
      const answer = m[2] ?? m[3]!;
      const inner = a?.functions().filter((f) => f.node.start <= m.index && m.index < f.node.end).pop();
      if (inner && inner.params.includes(answer)) out.add(`${relative(ctx.root, file) || file}:${a!.line(inner.node)} ${inner.qualname}`);
    }
  }
  return [...out];
}

/** A project function that compares an entry's `["args"]` with one of its parameters. */
function findGrader(ctx: OracleContext): Grader | undefined {
  const py = ctx.project?.python;
  if (!py) return undefined;
  const CMP = /([A-Za-z_]\w*)\s*\[\s*(['"])args\2\s*\]\s*(?:!=|==)\s*([A-Za-z_]\w*)\b(?!\s*[[.(])|([A-Za-z_]\w*)\s*(?:!=|==)\s*([A-Za-z_]\w*)\s*\[\s*(['"])args\6\s*\]/g;
  for (const file of [...py.files()].sort()) {
    const text = py.text(file);
    if (!text || !/['"]args['"]/.test(text)) continue;
    for (const m of text.matchAll(CMP)) {
      const item = m[1] ?? m[5]!;
      const answer = m[3] ?? m[4]!;
      const a = py.analysis(file);
      const fn = a?.functions().find((f) => f.node.start <= m.index && m.index < f.node.end && f.params.includes(answer) && !a.functions().some((g) => g !== f && g.node.start > f.node.start && g.node.end < f.node.end && g.node.start <= m.index && m.index < g.node.end));
      if (!a || !fn) continue;
      const code = a.src(fn.node);
      // the entry as the loop or the index gives it (`expected = entry` followed to `for entry in …`)
      let name = item;
      for (let hop = 0; hop < 3; hop++) {
        const alias = [...code.matchAll(new RegExp(String.raw`^[ \t]*${name}\s*=\s*([A-Za-z_]\w*)[ \t]*(?:#.*)?$`, 'gm'))].map((x) => x[1]!).find((x) => x !== 'None');
        if (!alias) break;
        name = alias;
      }
      const esc = name;
      const fromSelf = new RegExp(String.raw`\b${esc}\s*=\s*self\.([A-Za-z_]\w*)\s*\[|\bfor\s+${esc}\s+in\s+self\.([A-Za-z_]\w*)\s*:`).exec(code);
      const fromParam = new RegExp(String.raw`\b${esc}\s*=\s*([A-Za-z_]\w*)\s*\[|\bfor\s+${esc}\s+in\s+([A-Za-z_]\w*)\s*:`).exec(code);
      const listParam = fromParam ? (fromParam[1] ?? fromParam[2])! : undefined;
      const entries = fromSelf ? { self: (fromSelf[1] ?? fromSelf[2])! } : listParam && fn.params.includes(listParam) ? { param: listParam } : undefined;
      if (!entries) continue;
      const kindM = new RegExp(String.raw`\b(?:${esc}|${item})\s*\[\s*(['"])value\1\s*\]\s*(?:!=|==)\s*([A-Za-z_]\w*)`).exec(code);
      const kind = kindM && fn.params.includes(kindM[2]!) ? kindM[2] : undefined;
      return { file, qualname: fn.qualname, line: a.line(fn.node), answer, ...(kind ? { kind } : {}), entries };
    }
  }
  return undefined;
}

/** The task's entry list holding its stop entries, and its ANS entries' expected args. */
function taskEntries(file: string): { list: Array<Record<string, unknown>>; answers: string[][] } | undefined {
  let doc: unknown;
  try {
    doc = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
  if (!doc || typeof doc !== 'object') return undefined;
  for (const v of Object.values(doc as Record<string, unknown>)) {
    if (!Array.isArray(v)) continue;
    const list = v.filter((x): x is Record<string, unknown> => !!x && typeof x === 'object' && !Array.isArray(x));
    const answers = list.filter((e) => e.value === 'ANS' && Array.isArray(e.args)).map((e) => (e.args as unknown[]).map(String));
    if (answers.length) return { list, answers };
  }
  return undefined;
}

const oracle: Oracle = {
  id: 'ans-mismatch',
  async plan(ctx) {
    const mid = ctx.finding.messageId ?? '';
    if (mid !== 'conflict') return { status: 'unsupported', detail: STATIC[mid] ?? STATIC.mismatch! };
    const task = taskEntries(ctx.finding.file);
    if (!task || task.answers.length < 2) return { status: 'unsupported', detail: 'vaudit could not read the two ANS stop entries from the task file, so no case can submit their answers; the finding stands as a static one' };
    const candidates = graderCandidates(ctx);
    if (candidates.length > 1)
      return { status: 'unsupported', detail: `more than one function compares a stop entry's "args" with an answer (${candidates.slice(0, 4).join('; ')}), and vaudit does not know which one the suite's harness runs; running any one of them could show another grader's verdict. The finding stands as a static one` };
    const g = findGrader(ctx);
    const why = g && notAsHarnessRuns(ctx, g);
    if (why) return { status: 'unsupported', detail: why };
    if (!g)
      return {
        status: 'unsupported',
        detail: 'vaudit found no grader of stop entries in the project (a function that compares an entry\'s "args" with the submitted answer), so no case can submit an answer; the finding stands as a static one: keep one expected answer',
      };
    const t = await pythonTarget({ ...ctx, control: { ...ctx.control, file: g.file, qualname: g.qualname, line: g.line } });
    if (!('slice' in t)) return t;
    const code = functionSource(t);
    const kindSpec: Spec = g.kind && new RegExp(String.raw`\b${g.kind}\.__name__\b`).test(code) ? { $double: 'object', attrs: { __name__: 'ANS' } } : 'ANS';
    const [first, second] = [task.answers[0]!, task.answers.find((a) => JSON.stringify(a) !== JSON.stringify(task.answers[0]))!];
    // the baseline: the task with its first ANS entry only
    let kept = false;
    const baseEntries = task.list.filter((e) => {
      if (e.value !== 'ANS') return true;
      if (kept) return false;
      kept = true;
      return true;
    });
    const call = (id: string, entries: unknown[], answer: string[], label: string) => {
      const args: Spec[] = t.params.map((p) => (p === g.answer ? answer : p === g.kind ? kindSpec : 'param' in g.entries && p === g.entries.param ? (entries as Spec) : null));
      const self = 'self' in g.entries ? { $double: 'self', attrs: { [g.entries.self]: entries as Spec } } : undefined;
      return callCase(t, id, { label, args, ...(self ? { self } : {}) }, ctx);
    };
    const where = `${t.slice.qualname} (${t.file.split('/').slice(-2).join('/')}:${t.line})`;
    const cases = [
      call('base', baseEntries, first, `the task with only its first ANS entry, answered ANS ${first.join(' ')}`),
      call('a', task.list, first, `the task as written, answered ANS ${first.join(' ')}`),
      call('b', task.list, second, `the task as written, answered ANS ${second.join(' ')}`),
    ];
    return {
      cases,
      judge(results): Confirmation {
        const [rb, ra, rs] = [results.get('base'), results.get('a'), results.get('b')];
        const nr = firstNonResult([rb]);
        if (nr) return nr;
        if (!(rb?.status === 'returned' && truthy(rb.value)))
          return { status: 'crash', detail: `the healthy baseline (the task with only its first ANS entry, answered with that entry's answer) did not pass in ${where}: it ${outcomeOf(rb)}, so no verdict`, runId: rb?.runId };
        const nr2 = firstNonResult([ra, rs]);
        if (nr2) return nr2;
        const passed = [ra, rs].findIndex((r) => r?.status === 'returned' && truthy(r.value));
        if (passed >= 0) {
          const r = [ra, rs][passed]!;
          return { status: 'refuted', witness: `${where} on the task as written, answered ANS ${[first, second][passed]!.join(' ')}`, expected: 'no answer passes both entries', observed: `returned ${show(r.value)}`, runId: r.runId };
        }
        return {
          status: 'confirmed',
          witness: `${where} on the task as written, answered ANS ${first.join(' ')} and then ANS ${second.join(' ')} (the baseline, the task with only the first ANS entry, passed ANS ${first.join(' ')})`,
          expected: 'a passing verdict for the expected answer',
          observed: `ANS ${first.join(' ')}: ${outcomeOf(ra)}; ANS ${second.join(' ')}: ${outcomeOf(rs)}: no answer passes`,
          runId: ra!.runId,
        };
      },
    };
  },
};
export default oracle;
