/**
 * Oracle `substring-verdict`: the check run on the counter-example its message names — text that holds the
 * expected token inside a longer number or word, or after a negation (`10` for `1`, `11 passed` for
 * `1 passed`, `not Canada` for `Canada`) — next to text that is the token alone and text without it.
 *
 * finding.control: { oracle: 'substring-verdict', ...common Python fields,
 *   needle: string        the token the text is tested for,
 *   counter: string       the counter-example the message names,
 *   param?: string, keys?: string[]   taskValue: the parameter (and key path) the task's value comes
 *                         through (`rules["include"]`): it gets the token, as a one-item list and as is }
 * Every other parameter the function uses carries the text, in the forms verifier code reads it from: the
 * string, an object whose text attributes and methods give it (`proc.stdout`, `resp.text`,
 * `element.get_text()`), and the name of a file in the case's folder that holds it.
 * confirmed: in one form, text without the token fails the check and the counter-example passes it, both
 * through the flagged line · refuted: in one form, the token alone passes and the counter-example fails ·
 * unreached: no form got the text to a verdict at the flagged line.
 */
import type { Confirmation } from '../../src/core/types.js';
import type { PyCase, Spec } from '../../src/confirm/harness.js';
import { callCase, executedLine, firstNonResult, outcomesOf, pythonTarget, show, str, truthy, type Oracle, type Witness } from '../../src/confirm/oracle-kit.js';

const TEXT_FILE = 'vaudit-text.txt';
const ABSENT = 'vaudit';

/** The text as a parameter can carry it: itself, an object whose text attributes and methods give it, a file. */
function forms(text: string): Array<{ what: string; spec: Spec; files?: Record<string, string> }> {
  const call: Spec = { $double: 'callable', returns: text };
  const attrs = Object.fromEntries(['stdout', 'stderr', 'output', 'text', 'page_source', 'inner_text', 'content'].map((k) => [k, text]));
  const methods = Object.fromEntries(['get_text', 'text_content', 'extract_text', 'read', 'read_text', 'getvalue', 'inner_html'].map((k) => [k, call]));
  return [
    { what: 'the text', spec: text },
    { what: 'an object whose text attributes and methods give the text', spec: { $double: 'object', attrs: { ...attrs, ...methods } } },
    { what: `a file (${TEXT_FILE}) holding the text`, spec: TEXT_FILE, files: { [TEXT_FILE]: text } },
  ];
}

const oracle: Oracle = {
  id: 'substring-verdict',
  async plan(ctx) {
    const needle = str(ctx.control.needle);
    const counter = str(ctx.control.counter);
    if (needle === undefined || counter === undefined) return { status: 'unsupported', detail: 'the rule passed no token and counter-example to run the check with' };
    const t = await pythonTarget(ctx);
    if (!('slice' in t)) return t;
    const given = str(ctx.control.param);
    const keys = Array.isArray(ctx.control.keys) ? (ctx.control.keys as string[]) : [];
    const task = given ? t.params.indexOf(given) : -1;
    if (given && task < 0) return { status: 'unsupported', detail: `the task's value comes through ${given}, which is not a parameter of ${t.slice.qualname}` };
    const nest = (v: unknown): unknown => keys.reduceRight<unknown>((acc, k) => ({ [k]: acc }), v);
    const taskValues: unknown[] = task >= 0 ? [nest([needle]), nest(needle)] : [undefined];
    const textParams = t.params.map((p, i) => ({ p, i })).filter(({ p, i }) => p !== '_' && i !== task);
    if (!textParams.length) return { status: 'unsupported', detail: 'no parameter of the function carries the text, so no case can set it; the finding stands as a static one' };
    type Variant = { what: string; tv: unknown; form: number };
    const variants: Variant[] = [];
    taskValues.forEach((tv) => forms('').forEach((f, form) => variants.push({ what: f.what, tv, form })));
    const texts = { absent: ABSENT, exact: needle, counter } as const;
    const build = (v: Variant, text: string): Witness => {
      const f = forms(text)[v.form]!;
      const args: Spec[] = t.params.map(() => null);
      for (const { i } of textParams) args[i] = f.spec;
      if (task >= 0) args[task] = v.tv as Spec;
      return { label: `${textParams.map(({ p }) => p).join(', ')} = ${f.what}: ${show(text)}${task >= 0 ? `, ${given} = ${show(v.tv)}` : ''}`, args, ...(f.files ? { files: f.files } : {}) };
    };
    const cases: PyCase[] = [];
    const labels = new Map<string, string>();
    variants.forEach((v, vi) =>
      (Object.keys(texts) as Array<keyof typeof texts>).forEach((k) => {
        const w = build(v, texts[k]);
        labels.set(`v${vi}${k}`, w.label!);
        cases.push(callCase(t, `v${vi}${k}`, w, ctx));
      }),
    );
    return {
      cases,
      judge(results): Confirmation {
        const expected = `text that holds ${show(needle)} only inside a longer number or word, or after a negation, fails the check`;
        const at = (id: string) => {
          const r = results.get(id);
          return r?.status === 'returned' && executedLine(r, t.file, t.line) ? r : undefined;
        };
        let refuted: Confirmation | undefined;
        for (let vi = 0; vi < variants.length; vi++) {
          const [absent, exact, ctr] = [at(`v${vi}absent`), at(`v${vi}exact`), at(`v${vi}counter`)];
          if (absent && ctr && !truthy(absent.value) && truthy(ctr.value))
            return { status: 'confirmed', witness: labels.get(`v${vi}counter`), expected, observed: `the check passed (returned ${show(ctr.value)}), where text without the token returned ${show(absent.value)}`, runId: ctr.runId };
          if (exact && ctr && truthy(exact.value) && !truthy(ctr.value))
            refuted ??= { status: 'refuted', witness: labels.get(`v${vi}counter`), expected, observed: `the check failed (returned ${show(ctr.value)}), where the token alone returned ${show(exact.value)}`, runId: ctr.runId };
        }
        if (refuted) return refuted;
        const all = cases.map((c) => results.get(c.id));
        const nr = firstNonResult(all);
        if (nr) return nr;
        return { status: 'unreached', detail: `no form of the text got to a verdict at line ${t.line} that tells text with the token from text without it (${outcomesOf(all)})`, runId: all.find((x) => x?.runId)?.runId };
      },
    };
  },
};
export default oracle;
