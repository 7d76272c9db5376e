/**
 * The task-suite model every adapter produces. An adapter maps a task format
 * to (task → verifier entries → verifier entrypoint). See README "Suite adapters".
 */
import type { SourceFile } from '../core/source.js';
import type { JsonValueRef } from '../lang/json/parse.js';

/** Code held in a JSON string (a Python lambda, a regular expression…). */
export interface EmbeddedCode {
  language: 'python' | 'regex';
  /** Regex dialect when language is 'regex'. */
  dialect?: 'python' | 'ecmascript';
  /** Role of the string: 'key' | 'find' | 'pred' | 'pattern' | … */
  role: string;
  /** Decoded string value (what the verifier evaluates). */
  code: string;
  /** The JSON string this code lives in. */
  ref: JsonValueRef;
  /** Maps an offset in `code` (0…code.length) to a UTF-16 offset in the file. */
  toFileOffset(codeOffset: number): number;
  /** The entry (or task) this code belongs to. */
  entry?: VerifierEntry;
  task: Task;
  /** Parameter count the consumer calls the lambda with (key: 1, find/pred: 2), when known. */
  expectedArity?: number;
}

export interface VerifierBinding {
  /** Absolute path of the module that grades this entry kind. */
  file: string;
  /** Qualified function name, e.g. `ChimeraXMixin._eval_states`. */
  qualname: string;
  /** UTF-16 offsets of the function definition in `file`. */
  start: number;
  end: number;
}

export interface VerifierEntry {
  task: Task;
  index: number;
  /** Entry kind (`states`, `info`, `stop`, …). */
  kind: string;
  pointer: string;
  /** The entry object. */
  ref: JsonValueRef;
  /** Members of the entry object by name. */
  fields: Record<string, JsonValueRef>;
  /** Embedded code found in this entry's fields. */
  embedded: EmbeddedCode[];
  /** The verifier function the entry routes to, when the adapter could bind it. */
  binding?: VerifierBinding;
  /**
   * Every function the task layer routes this entry to, bound or not (OSWorld family: the metric,
   * the `result`/`expected` getters; `binding` is the metric's). Adapters without such routing leave it unset.
   */
  routes?: EntryRoute[];
  /** A module (or one export of it) the task names directly (`"verify": "checks/task_1.py"`). */
  target?: VerifierTarget;
}

/** One function a task names by string (a metric `func`, a getter `type`) and the dispatcher looks up. */
export interface EntryRoute {
  /** `metric` | `result` | `expected` (OSWorld family). */
  role: string;
  /** The name as the task writes it (`compare_table`, the getter type `vm_file`). */
  name: string;
  /** The function name the dispatcher looks up (`compare_table`, `get_vm_file`). */
  target: string;
  /** The JSON string that names it. */
  ref: JsonValueRef;
  /** The function, when bound. */
  binding?: VerifierBinding;
  /** Why it is not bound, when the lookup ran and failed (the package was found but does not export `target`). */
  unbound?: string;
  /** Role `module`: the module exists but does not define the export the harness takes from it. */
  missingExport?: boolean;
  /** The harness code that routes this way (file, 1-based line), when the route was learned from it. */
  via?: { file: string; line: number };
}

interface VerifierTarget {
  /** Absolute path of the module. */
  file: string;
  /** Function (Python) or export (JS/TS) name; absent: the whole module is the verifier. */
  export?: string;
}

export interface Task {
  suite: Suite;
  file: SourceFile;
  /** Pointer of the task's record in its file ('' or absent: the whole document; `/3` in an array of tasks). */
  pointer?: string;
  /** Task id (file stem unless the format has an id field). */
  id: string;
  /** App family (`ChimeraX`, `Lean`, …). */
  family: string;
  /** Parsed document. */
  json: unknown;
  /** Top-level members by name. */
  fields: Record<string, JsonValueRef>;
  /** Every value in the document by pointer (for exact positions). */
  values: ReadonlyMap<string, JsonValueRef>;
  entries: VerifierEntry[];
  /** Initializer entries (reference format: `initialize`; OSWorld family: the `config` and `evaluator.postconfig` steps). */
  initializers: JsonValueRef[];
  /**
   * The set-up function each initializer's type routes to, bound or not (OSWorld family: role `config`
   * or `postconfig`, `ref` the step's `type` string). Not verifier entrypoints: set-up code runs before grading.
   */
  initializerRoutes?: EntryRoute[];
}

export interface Suite {
  /** Adapter id (`reference`, …). */
  adapter: string;
  /** Root folder of the suite. */
  root: string;
  tasks: Task[];
}
