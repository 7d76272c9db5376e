/**
 * Text a language model returned (an LLM judge's reply), recognised by what the code does: the value
 * comes, through `.lower()`/`.strip()`/… , attribute and index reads (`.choices[0].message.content`,
 * `["content"]`, `.text`) and local copies, from a call of a model client — a callee of an LLM
 * package (`openai`, `anthropic`, `litellm`, `google.generativeai`, `langchain…`, …), a completion
 * method (`chat.completions.create`, `messages.create`, `generate_content`, `completion`), a call
 * given `messages=` with `model=`, a method of a client such a package built (`client = OpenAI()`,
 * `llm = ChatOpenAI()`), or a project function that returns such a reply (one or two levels). A
 * parameter is a reply when a call in the same file passes it one.
 */
import type { FunctionInfo, PythonAnalysis, PythonProject } from './types.js';
import { field, named, unparen, walk, type PyNode } from './tree.js';

const PACKAGES = /^(openai|anthropic|litellm|google\.generativeai|google\.genai|vertexai|ollama|mistralai|cohere|groq|together|langchain\w*|dashscope|zhipuai|llama_index|transformers\.pipeline|instructor)(\.|$)/;
const COMPLETION_METHOD = /(^|\.)(chat\.completions\.create|completions\.create|messages\.create|ChatCompletion\.create|ChatCompletion\.acreate|Completion\.create|generate_content|generate_content_async|responses\.create|chat\.complete|acompletion|completion)$/;
const TEXT_METHODS = new Set(['lower', 'upper', 'strip', 'lstrip', 'rstrip', 'casefold', 'replace', 'split', 'splitlines', 'title', 'removeprefix', 'removesuffix', 'partition', 'rpartition']);

interface Ctx {
  a: PythonAnalysis;
  project?: PythonProject;
  depth: number;
  seen: Set<PyNode>;
}

/** The call that produced the model's reply `e` holds, or undefined when `e` is not known to be one. */
export function llmReply(a: PythonAnalysis, e: PyNode, project?: PythonProject): PyNode | undefined {
  return reply({ a, project, depth: 0, seen: new Set() }, e);
}

function reply(cx: Ctx, e0: PyNode): PyNode | undefined {
  const e = unparen(e0);
  if (cx.seen.has(e) || cx.seen.size > 64) return undefined;
  cx.seen.add(e);
  const { a } = cx;
  switch (e.type) {
    case 'await':
      return named(e)[0] ? reply(cx, named(e)[0]!) : undefined;
    case 'attribute':
      return reply(cx, field(e, 'object') ?? e);
    case 'subscript':
      return reply(cx, field(e, 'value') ?? e);
    case 'identifier': {
      const fn = a.functionAt(e);
      if (fn && fn.params.includes(a.src(e)) && !a.valueSources(e).some((v) => v !== e)) return paramReply(cx, fn, a.src(e));
      for (const v of sources(a, e)) {
        const r = reply(cx, v);
        if (r) return r;
      }
      // a comprehension's variable: the iterable it runs over
      const it = comprehensionIterable(a, e);
      return it ? reply(cx, it) : undefined;
    }
    case 'call': {
      const f = field(e, 'function');
      if (!f) return undefined;
      if (f.type === 'attribute' && TEXT_METHODS.has(a.src(field(f, 'attribute') ?? f))) return reply(cx, field(f, 'object') ?? f);
      const arg0 = named(field(e, 'arguments') ?? e)[0];
      if (f.type === 'identifier' && a.src(f) === 'str') return arg0 ? reply(cx, arg0) : undefined;
      // "".join(block.text for block in msg.content)
      if (f.type === 'attribute' && a.src(field(f, 'attribute') ?? f) === 'join' && arg0) return reply(cx, arg0.type === 'generator_expression' ? (field(arg0, 'body') ?? arg0) : arg0);
      return modelCall(cx, e) ? e : undefined;
    }
    default:
      return undefined;
  }
}

/** A call that asks a model (see the module comment). */
function modelCall(cx: Ctx, call: PyNode): boolean {
  const { a } = cx;
  const f = field(call, 'function');
  if (!f) return false;
  const q = a.qualifiedName(f) ?? '';
  if (PACKAGES.test(q)) return true;
  const text = a.src(f).replace(/\s+/g, '');
  const kwargs = new Set(named(field(call, 'arguments') ?? call).filter((k) => k.type === 'keyword_argument').map((k) => a.src(field(k, 'name') ?? k)));
  if (COMPLETION_METHOD.test(text) && (f.type === 'attribute' || kwargs.has('messages') || kwargs.has('model'))) return true;
  if (kwargs.has('messages') && kwargs.has('model')) return true;
  // a method of a client an LLM package built: `client.chat(...)`, `llm.invoke(prompt)`
  if (f.type === 'attribute') {
    let base: PyNode = field(f, 'object') ?? f;
    for (let i = 0; i < 12 && base.type === 'attribute'; i++) base = field(base, 'object') ?? base;
    if (base.type === 'identifier')
      for (const v of sources(a, base)) {
        const u = unparen(v);
        if (u !== base && u.type === 'call' && PACKAGES.test(a.qualifiedName(field(u, 'function') ?? u) ?? '')) return true;
      }
  }
  // a project function that returns a model's reply
  if (cx.project && cx.depth < 2 && (f.type === 'identifier' || f.type === 'attribute')) {
    const name = f.type === 'identifier' ? a.src(f) : a.src(field(f, 'attribute') ?? f);
    const r: { file?: string; fn: FunctionInfo } | undefined = f.type === 'identifier' ? cx.project.resolveFunction(a.path, name) : sameFileMethod(a, name);
    const ra = r ? (r.file ? cx.project.analysis(r.file) : a) : undefined;
    if (r && ra) return returnsReply({ a: ra, project: cx.project, depth: cx.depth + 1, seen: new Set() }, r.fn);
  }
  return false;
}

/** What a name may hold: its local values, or the value of a module-level assignment of a global name. */
function sources(a: PythonAnalysis, id: PyNode): PyNode[] {
  const local = a.valueSources(id).filter((v) => v !== id);
  if (local.length) return local;
  const name = a.src(id);
  const out: PyNode[] = [];
  for (const st of named(a.ast)) {
    const asg = st.type === 'expression_statement' ? named(st)[0] : undefined;
    const l = asg?.type === 'assignment' ? field(asg, 'left') : undefined;
    const r = asg ? field(asg, 'right') : undefined;
    if (l?.type === 'identifier' && a.src(l) === name && r) out.push(r);
  }
  return out;
}

/** `x` bound by an enclosing comprehension's `for x in <iterable>`: the iterable. */
function comprehensionIterable(a: PythonAnalysis, id: PyNode): PyNode | undefined {
  for (let p = id.parent; p; p = p.parent) {
    if (p.type === 'function_definition' || p.type === 'lambda') return undefined;
    if (p.type !== 'generator_expression' && !p.type.endsWith('comprehension')) continue;
    for (const c of named(p)) {
      const left = c.type === 'for_in_clause' ? field(c, 'left') : undefined;
      if (left?.type === 'identifier' && a.src(left) === a.src(id)) return field(c, 'right');
    }
  }
  return undefined;
}

/** A method of this file called as `self.name(...)`/`obj.name(...)`, when exactly one has that name. */
function sameFileMethod(a: PythonAnalysis, name: string): { fn: FunctionInfo } | undefined {
  const hits = a.functions().filter((fn) => fn.name === name && fn.classNode);
  return hits.length === 1 ? { fn: hits[0]! } : undefined;
}

function returnsReply(cx: Ctx, fn: FunctionInfo): boolean {
  let hit = false;
  walk(field(fn.node, 'body') ?? fn.node, (k) => {
    if (hit || k.type === 'function_definition' || k.type === 'lambda' || k.type === 'class_definition') return false;
    if (k.type === 'return_statement' && named(k)[0] && reply(cx, named(k)[0]!)) hit = true;
    return undefined;
  });
  return hit;
}

/** A parameter is a reply when a call of its function in the same file passes one at its position. */
function paramReply(cx: Ctx, fn: FunctionInfo, param: string): PyNode | undefined {
  if (cx.depth >= 2) return undefined;
  const { a } = cx;
  const own = fn.classNode ? fn.params.slice(1) : fn.params;
  const i = own.indexOf(param);
  if (i < 0) return undefined;
  for (const k of callsByName(a).get(fn.name) ?? []) {
    const args = named(field(k, 'arguments') ?? k);
    const arg = args.find((x) => x.type === 'keyword_argument' && a.src(field(x, 'name') ?? x) === param) ?? args.filter((x) => x.type !== 'keyword_argument')[i];
    const v = arg?.type === 'keyword_argument' ? field(arg, 'value') : arg;
    const out = v ? reply({ ...cx, depth: cx.depth + 1 }, v) : undefined;
    if (out) return out;
  }
  return undefined;
}

/** The calls of a module by the name they call (`f(…)`, `x.f(…)`), in the order of a walk of its tree: each
 *  parameter asked about walked the whole module for them (a verifier's helpers: ≈ 10,000 nodes a question). */
const callIndex = new WeakMap<PythonAnalysis, Map<string, PyNode[]>>();
function callsByName(a: PythonAnalysis): Map<string, PyNode[]> {
  let m = callIndex.get(a);
  if (m) return m;
  callIndex.set(a, (m = new Map()));
  walk(a.ast, (k) => {
    if (k.type !== 'call') return undefined;
    const f = field(k, 'function');
    const name = f?.type === 'identifier' ? a.src(f) : f?.type === 'attribute' ? a.src(field(f, 'attribute') ?? f) : '';
    let list = m!.get(name);
    if (!list) m!.set(name, (list = []));
    list.push(k);
    return undefined;
  });
  return m;
}
