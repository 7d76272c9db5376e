/**
 * The `try` of a handler that fails the agent loads the task's expected input: a parameter the suite
 * routes the expected value (or the options) to (src/suites/expected-input.ts), or a file the verifier
 * reads from its own folder (a path built from literals, `__file__` and module constants). Loading the
 * agent's output and failing is a legitimate 0; a broken or missing gold file is not the agent's fault.
 */
import type { PythonAnalysis } from '../../src/lang/python/types.js';
import { field, named, unparen, walk, type PyNode } from '../../src/lang/python/tree.js';
import type { ExpectedParams } from '../../src/suites/expected-input.js';

export interface ExpectedLoad {
  call: PyNode;
  /** What is loaded, for the message: "the expected input `file2`", "the verifier's own file `gold.json`". */
  what: string;
  /** The parameter that carries it (kind 'param'). */
  param?: string;
}

const PATH_KEYWORDS = new Set(['filename', 'path', 'file', 'fp', 'io', 'filepath', 'fname', 'filepath_or_buffer', 'docx', 'pdf_path']);
const LOADERS = /(^|\.)(open|load_workbook|read_csv|read_excel|read_json|read_parquet|read_table|read_sql|Document|Presentation|parse|safe_load|load|loadtxt|connect|PdfReader|ExcelFile|imread|read_text|read_bytes|load_dataset)$/;
const LOGGING = /^(print|logging\.\w+|logger\.\w+|log\.\w+|self\.logger\.\w+)$/;

/** The argument a load reads from: its first positional argument, a path keyword, or the receiver of a path's
 *  own reader (`gold.read_text()`, `Path(p).open()`). */
function source(a: PythonAnalysis, call: PyNode): PyNode | undefined {
  const args = named(field(call, 'arguments') ?? call);
  for (const x of args) if (x.type === 'keyword_argument' && PATH_KEYWORDS.has(a.src(field(x, 'name') ?? x))) return field(x, 'value');
  const first = args[0];
  if (first && first.type !== 'keyword_argument' && first.type !== 'list_splat' && first.type !== 'dictionary_splat') return first;
  const f = field(call, 'function');
  return f?.type === 'attribute' && ['read_text', 'read_bytes', 'open'].includes(a.src(field(f, 'attribute') ?? f)) ? field(f, 'object') : undefined;
}

/** The expression is one of the parameters, or a field of one (`expected`, `expected["path"]`, `options.get("file")`,
 *  `exp.path`), directly or through a local assigned such a value: the value the load reads is the task's (or
 *  the agent's), not something computed from it. */
function reads(a: PythonAnalysis, e0: PyNode, names: Set<string>, depth = 0): string | undefined {
  let e = unparen(e0);
  for (let i = 0; i < 8; i++) {
    const f = e.type === 'call' ? field(e, 'function') : undefined;
    if (e.type === 'subscript') e = unparen(field(e, 'value') ?? e);
    else if (e.type === 'attribute') e = unparen(field(e, 'object') ?? e);
    else if (f?.type === 'attribute' && a.src(field(f, 'attribute') ?? f) === 'get') e = unparen(field(f, 'object') ?? f);
    else break;
  }
  if (e.type !== 'identifier') return undefined;
  const t = a.src(e);
  const vs = a.valueSources(e).filter((v) => v !== e);
  if (!vs.length) return names.has(t) ? t : undefined;
  if (depth > 1) return undefined;
  const all = vs.map((v) => reads(a, v, names, depth + 1));
  return all.every((x) => x) ? all[0] : undefined;
}

/** A path the verifier builds from literals, `__file__` and module constants (its own fixture files). */
function ownPath(a: PythonAnalysis, e0: PyNode, depth = 0): string | undefined {
  const e = unparen(e0);
  if (depth > 10) return undefined;
  if (e.type === 'string') {
    const s = e.children.filter((k) => k.type === 'string_content').map((k) => k.text).join('');
    return e.children.some((k) => k.type === 'interpolation') ? undefined : /[/\\]|\.\w{2,5}$/.test(s) ? s : undefined;
  }
  if (e.type === 'identifier') {
    if (a.src(e) === '__file__') return '__file__';
    // a module-level constant
    if (a.functionAt(e) && a.valueSources(e).some((v) => v !== e)) {
      const vs = a.valueSources(e).filter((v) => v !== e);
      const all = vs.map((v) => ownPath(a, v, depth + 1));
      return all.every((x) => x) ? all[0] : undefined;
    }
    for (const st of named(a.ast)) {
      const asg = st.type === 'expression_statement' ? named(st)[0] : undefined;
      const l = asg?.type === 'assignment' ? field(asg, 'left') : undefined;
      if (l?.type === 'identifier' && a.src(l) === a.src(e) && field(asg!, 'right')) return ownPath(a, field(asg!, 'right')!, depth + 1);
    }
    return undefined;
  }
  if (e.type === 'binary_operator') {
    // Path(__file__).parent / "gold" / "x.json"
    const l = ownPath(a, field(e, 'left') ?? e, depth + 1);
    const r = ownPath(a, field(e, 'right') ?? e, depth + 1) ?? (field(e, 'right')?.type === 'string' ? a.src(field(e, 'right')!).slice(1, -1) : undefined);
    return l && r ? (r === '__file__' ? l : r) : undefined;
  }
  if (e.type === 'attribute') return ownPath(a, field(e, 'object') ?? e, depth + 1);
  if (e.type === 'call') {
    const f = field(e, 'function');
    const q = f ? (a.qualifiedName(f) ?? a.src(f)) : '';
    const args = named(field(e, 'arguments') ?? e);
    if (/(^|\.)(join|dirname|abspath|realpath|Path|PurePath|resolve|joinpath)$/.test(q) || /\.(joinpath|resolve)$/.test(a.src(f ?? e))) {
      const parts = args.map((x) => ownPath(a, x, depth + 1) ?? (x.type === 'string' ? a.src(x).slice(1, -1) : undefined));
      const base = f?.type === 'attribute' ? ownPath(a, field(f, 'object') ?? f, depth + 1) : undefined;
      if ((parts.length || base) && parts.every((p) => p !== undefined)) return [...parts].reverse().find((p) => p !== '__file__') ?? base ?? '__file__';
    }
  }
  return undefined;
}

/** The first load of the task's expected input in the `try` body, if any. */
export function expectedLoadIn(a: PythonAnalysis, tryBody: PyNode, params: ExpectedParams | undefined): ExpectedLoad | undefined {
  let out: ExpectedLoad | undefined;
  walk(tryBody, (k) => {
    if (out || k.type === 'function_definition' || k.type === 'lambda' || k.type === 'class_definition') return false;
    if (k.type !== 'call') return undefined;
    const f = field(k, 'function');
    const callee = f ? a.src(f) : '';
    if (LOGGING.test(callee)) return false;
    const src = source(a, k);
    if (!src) return undefined;
    // a comparison of the agent's output with the expected input is not a load
    const others = named(field(k, 'arguments') ?? k).filter((x) => x !== src);
    if (params?.agent.size && (reads(a, src, params.agent) || others.some((x) => reads(a, x, params.agent)))) return undefined;
    const p = params?.task.size ? reads(a, src, params.task) : undefined;
    if (p && (LOADERS.test(a.qualifiedName(f ?? k) ?? callee) || f?.type === 'identifier')) {
      out = { call: k, what: p === params?.options ? `the task's options (\`${p}\`)` : `the task's expected input \`${p}\``, param: p };
      return false;
    }
    const own = LOADERS.test(a.qualifiedName(f ?? k) ?? callee) ? ownPath(a, src) : undefined;
    if (own && own !== '__file__') out = { call: k, what: `the verifier's own file \`${own.split(/[/\\]/).pop()}\`` };
    return undefined;
  });
  return out;
}
