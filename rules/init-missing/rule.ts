/**
 * init-missing — an entry that needs an initializer the task does not have:
 * TeXstudio `file`/`compile` entries without a `touch` of their path; Lean
 * `placeholder` entries without exactly one `query` ending in `by sorry`.
 */
import { defineRule } from '../../src/contract/rule.js';
import type { Task, VerifierEntry } from '../../src/suites/types.js';
import type { JsonValueRef } from '../../src/lang/json/parse.js';

type Msg = 'noTouch' | 'noQuery' | 'manyQueries' | 'noSorry';

function initializers(task: Task, func: string): Array<{ ref: JsonValueRef; value: Record<string, unknown> }> {
  const out: Array<{ ref: JsonValueRef; value: Record<string, unknown> }> = [];
  for (const ref of task.initializers) {
    const v = ref.value as Record<string, unknown> | null;
    if (v && typeof v === 'object' && !Array.isArray(v) && v.func === func) out.push({ ref, value: v });
  }
  return out;
}

/** The document an entry grades: a `file` entry its `path`; a `compile` entry `<path>/<file>.tex`
 *  (ScienceBoard's TeXstudio `_eval_compile` sends the working folder and the name without `.tex`
 *  to the helper server, which compiles that file). */
function gradedDocument(entry: VerifierEntry): { path: string; ref: JsonValueRef } | undefined {
  const p = entry.fields.path;
  if (typeof p?.value !== 'string') return undefined;
  if (entry.kind === 'file') return { path: p.value, ref: p };
  const f = entry.fields.file;
  if (typeof f?.value !== 'string') return undefined;
  return { path: `${p.value.replace(/\/+$/, '')}/${f.value}.tex`, ref: f };
}

export default defineRule<Msg>({
  meta: {
    id: 'init-missing',
    description: 'A verifier entry that needs an initializer the task lacks (TeXstudio touch of the graded file; Lean: exactly one query ending in `by sorry`).',
    defaultSeverity: 'error',
    layers: ['suite'],
    languages: ['json'],
    messages: {
      noTouch: {
        what: 'This {{kind}} entry checks {{path}}, but no "touch" initializer writes that path.',
        why: '{{consequence}}.',
        fix: 'Add {"func": "touch", "path": "{{path}}", "text": …} to "initialize" (or point the entry at the touched file).',
      },
      noQuery: {
        what: 'This Lean placeholder entry needs one "query" initializer holding the theorem (ending in `by sorry`), and the task has none.',
        why: 'The checker has no statement to compare the agent\'s proof against, so the verdict is not about the task.',
        fix: 'Add the query initializer.',
      },
      manyQueries: {
        what: 'The task has {{count}} "query" initializers, but a Lean placeholder needs exactly one.',
        why: 'The checker takes one of them and the other statement is never graded, so the result depends on which one it picks.',
        fix: 'Keep a single query.',
      },
      noSorry: {
        what: 'The Lean query "expr" does not end exactly in `by sorry`.',
        why: 'The verifier asserts that ending and cuts it off to get the statement, so the task fails to load (or grades a mangled statement).',
        fix: 'End the theorem statement with `by sorry`, with nothing after it.',
      },
    },
    docs: {
      whatItDoes:
        'Reports TeXstudio `file` entries whose `path` no `touch` initializer writes and `compile` entries whose document — `<path>/<file>.tex`, `path` being the working folder and `file` the name without `.tex` — no `touch` writes; Lean tasks with a `placeholder` entry and no `query` initializer or more than one, and a Lean `query` whose `expr` does not end exactly in `by sorry`.',
      why: 'These verifiers grade against the initial content: a TeXstudio `file` entry computes the expected file from the touched text, and a Lean placeholder compares the proof with the queried statement. Without that initializer the check compares against nothing (or a leftover file from another task), so its verdict does not measure the agent.',
    },
    confirm: {
      oracle: 'init-missing',
      positional: true,
      description: 'Calls the `file` entry\'s grading function as the verifier does, on the state the task sets up (its own members on `self`, no touch of the graded path), with two different file contents; confirmed when neither can pass. Compile and Lean findings are `unsupported` (their verdict comes from the environment\'s compiler or Lean REPL).',
    },
  },
  create() {
    return {
      suite: {
        entry(entry, ctx) {
          const task = entry.task;
          if (task.family !== 'TeXstudio' || (entry.kind !== 'file' && entry.kind !== 'compile')) return;
          const doc = gradedDocument(entry);
          if (!doc) return;
          const touched = new Set(initializers(task, 'touch').map((t) => t.value.path).filter((p): p is string => typeof p === 'string'));
          if (touched.has(doc.path)) return;
          const consequence =
            entry.kind === 'file'
              ? 'The expected file is computed from text that was never written, so the check compares against a missing or stale file'
              : 'The document compiled is whatever happens to be at that path, so the verdict does not depend on the task\'s starting file';
          // a `file` entry bound to its grading function: the oracle runs it on the state the task sets up
          const b = entry.kind === 'file' ? entry.binding : undefined;
          const members = Object.fromEntries(Object.entries(task.fields).map(([k, r]) => [k, r.value]));
          const control = b ? { oracle: 'init-missing', file: b.file, qualname: b.qualname, entry: entry.ref.value, taskMembers: members, initKey: task.initializers[0]?.pointer.split('/')[1] ?? 'initialize', path: doc.path } : undefined;
          ctx.report({ messageId: 'noTouch', data: { kind: entry.kind, path: doc.path, consequence }, at: { start: doc.ref.start, end: doc.ref.end }, pointer: entry.pointer, ...(control ? { control } : {}) });
        },
        task(task, ctx) {
          if (task.family !== 'Lean') return;
          const placeholder = task.entries.find((e) => e.kind === 'placeholder');
          if (!placeholder) return;
          const queries = initializers(task, 'query');
          if (queries.length === 0) {
            ctx.report({ messageId: 'noQuery', at: { start: placeholder.ref.start, end: placeholder.ref.end }, pointer: placeholder.pointer });
            return;
          }
          if (queries.length > 1) {
            for (const q of queries.slice(1)) ctx.report({ messageId: 'manyQueries', data: { count: queries.length }, at: { start: q.ref.start, end: q.ref.end }, pointer: q.ref.pointer });
            return;
          }
          const q = queries[0]!;
          const text = q.value.expr;
          // Lean check_config asserts the statement ends exactly in "by sorry" and cuts those 6 characters
          if (typeof text === 'string' && !text.endsWith('by sorry')) {
            const t = task.values.get(`${q.ref.pointer}/expr`) ?? q.ref;
            ctx.report({ messageId: 'noSorry', at: { start: t.start, end: t.end }, pointer: q.ref.pointer });
          }
        },
      },
    };
  },
});
