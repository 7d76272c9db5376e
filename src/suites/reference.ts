/**
 * The reference adapter: the task format of SPEC §1.1 (`type` = app family,
 * `initialize` = initializers, `evaluate` = verifier entries keyed by `type`,
 * Python lambdas in `key`/`find`/`pred`, regexes in `pattern`). Recognised by
 * shape, without config.
 */
import * as path from 'node:path';
import type { JsonDocument } from '../lang/json/parse.js';
import { isObject, joinPointer } from '../lang/json/parse.js';
import { embeddedOffsetMapper } from '../lang/json/strings.js';
import type { SourceFile } from '../core/source.js';
import type { AdapterLoadOptions, AdapterLoadResult, DetectedDocument, SuiteAdapter } from './adapter.js';
import type { EmbeddedCode, Suite, Task, VerifierEntry } from './types.js';
import type { JsonValueRef } from '../lang/json/parse.js';
import { FAMILIES, LAMBDA_FIELDS, REGEX_FIELDS, VALUE_LAMBDA_KINDS, isCommentMember, looksLikeLambda } from './families.js';

const FAMILY_SET = new Set(FAMILIES);
/** Entry members that hold expected data, never code (a `{"find": …}` inside `value` is data). */
const DATA_FIELDS = new Set(['value', 'args', 'text', 'expected']);

/** The suite root of a task file: the parent of its nearest `tasks` folder, else the project root. */
function suiteRootOf(filePath: string, projectRoot: string): string {
  let dir = path.dirname(filePath);
  for (;;) {
    if (path.basename(dir) === 'tasks') return path.dirname(dir);
    const up = path.dirname(dir);
    if (up === dir || !dir.startsWith(projectRoot) || dir === projectRoot) return projectRoot;
    dir = up;
  }
}

/** Members of the object at `pointer`, by name (comment members `//…` excluded). */
export function membersOf(doc: JsonDocument, pointer: string, value: Record<string, unknown>): Record<string, JsonValueRef> {
  // keyed by member names from the task file: no prototype, so `__proto__` or `constructor` is a plain member
  const out = Object.create(null) as Record<string, JsonValueRef>;
  for (const name of Object.keys(value)) {
    if (isCommentMember(name)) continue;
    const ref = doc.values.get(joinPointer(pointer, name));
    if (ref) out[name] = ref;
  }
  return out;
}

function embeddedIn(doc: JsonDocument, entry: VerifierEntry, task: Task): EmbeddedCode[] {
  const out: EmbeddedCode[] = [];
  const text = doc.text;
  const visit = (pointer: string, value: unknown, depth: number) => {
    if (depth > 8) return;
    if (Array.isArray(value)) {
      value.forEach((v, i) => visit(joinPointer(pointer, i), v, depth + 1));
      return;
    }
    if (!isObject(value)) return;
    for (const [name, v] of Object.entries(value)) {
      if (isCommentMember(name)) continue;
      const p = joinPointer(pointer, name);
      if (typeof v === 'string') {
        const ref = doc.values.get(p);
        if (!ref) continue;
        const lam = LAMBDA_FIELDS[name];
        if (lam && (lam.alwaysCode || looksLikeLambda(v))) {
          out.push({
            language: 'python',
            role: name,
            code: v,
            ref,
            toFileOffset: embeddedOffsetMapper(text, ref),
            entry,
            task,
            expectedArity: lam.arity,
          });
        } else if (REGEX_FIELDS.includes(name)) {
          out.push({
            language: 'regex',
            dialect: 'python',
            role: name,
            code: v,
            ref,
            toFileOffset: embeddedOffsetMapper(text, ref),
            entry,
            task,
          });
        }
      } else if (typeof v === 'object' && v !== null && !DATA_FIELDS.has(name)) {
        visit(p, v, depth + 1);
      }
    }
  };
  visit(entry.pointer, entry.ref.value, 0);
  // an expected value that the verifier itself evals (e.g. a lambda computing today's date)
  const valueLambda = VALUE_LAMBDA_KINDS[`${task.family}/${entry.kind}`];
  const value = entry.fields.value;
  if (valueLambda && value && typeof value.value === 'string' && looksLikeLambda(value.value)) {
    out.push({
      language: 'python',
      role: 'value',
      code: value.value,
      ref: value,
      toFileOffset: embeddedOffsetMapper(text, value),
      entry,
      task,
      expectedArity: valueLambda.arity,
    });
  }
  return out;
}

function familyFromPath(relPath: string): string | undefined {
  const parts = relPath.split('/');
  const i = parts.lastIndexOf('tasks');
  if (i >= 0 && i + 2 < parts.length) return parts[i + 1];
  return undefined;
}

/** Build one task from a detected document (exported for tests and other adapters). */
function buildReferenceTask(file: SourceFile, doc: JsonDocument, suite: Suite): Task {
  const json = doc.value as Record<string, unknown>;
  const fields = membersOf(doc, '', json);
  const stem = path.basename(file.path).replace(/\.json$/i, '');
  const task: Task = {
    suite,
    file,
    id: typeof json.id === 'string' && json.id.trim() !== '' ? json.id : stem,
    family: typeof json.type === 'string' ? json.type : (familyFromPath(file.relPath) ?? 'unknown'),
    json,
    fields,
    values: doc.values,
    entries: [],
    initializers: [],
  };
  if (Array.isArray(json.initialize)) {
    json.initialize.forEach((_, i) => {
      const ref = doc.values.get(joinPointer('/initialize', i));
      if (ref) task.initializers.push(ref);
    });
  }
  if (Array.isArray(json.evaluate)) {
    json.evaluate.forEach((item, i) => {
      if (!isObject(item)) return;
      const pointer = joinPointer('/evaluate', i);
      const ref = doc.values.get(pointer);
      if (!ref) return;
      const entry: VerifierEntry = {
        task,
        index: i,
        kind: typeof item.type === 'string' ? item.type : '',
        pointer,
        ref,
        fields: membersOf(doc, pointer, item),
        embedded: [],
      };
      entry.embedded = embeddedIn(doc, entry, task);
      task.entries.push(entry);
    });
  }
  return task;
}

export const referenceAdapter: SuiteAdapter = {
  id: 'reference',
  description: 'Tasks with "type" (Celestia, ChimeraX, GrassGIS, KAlgebra, Lean, TeXstudio), "initialize" and "evaluate" entries (SPEC §1.1).',
  detect(doc) {
    const v = doc.value;
    if (!isObject(v)) return false;
    if (typeof v.type === 'string' && FAMILY_SET.has(v.type)) return true;
    return Array.isArray(v.evaluate) && v.evaluate.length > 0 && v.evaluate.some((e) => isObject(e) && typeof e.type === 'string');
  },
  load(docs: DetectedDocument[], options: AdapterLoadOptions): AdapterLoadResult {
    const byRoot = new Map<string, Suite>();
    for (const { file, doc } of docs) {
      const root = suiteRootOf(file.path, options.root);
      let suite = byRoot.get(root);
      if (!suite) {
        suite = { adapter: 'reference', root, tasks: [] };
        byRoot.set(root, suite);
      }
      suite.tasks.push(buildReferenceTask(file, doc, suite));
    }
    const suites = [...byRoot.values()].sort((a, b) => (a.root < b.root ? -1 : a.root > b.root ? 1 : 0));
    for (const s of suites) s.tasks.sort((a, b) => (a.file.relPath < b.file.relPath ? -1 : a.file.relPath > b.file.relPath ? 1 : 0));
    return { suites, problems: [] };
  },
  /** Each family's task classes grade through an `eval` method (it dispatches entries to `_eval_<kind>`). */
  entrypoints(suite: Suite) {
    const families = [...new Set(suite.tasks.map((t) => t.family))].filter((f) => /^[\w-]+$/.test(f));
    if (!families.length) return [];
    return [{ files: families.flatMap((f) => [`**/${f}/**/*.py`, `**/${f}.py`]), method: 'eval', reason: 'family task classes grade in eval()' }];
  },
};
