/**
 * substring-verdict — a verdict decided by whether free text contains a short expected token, in
 * Python and JS/TS verifier code: `"succeed" in output`, `page_text.includes("Canada")`,
 * `out.indexOf("1") !== -1`, `re.search("passed", log)`.
 *
 * Why a rule of its own and not `substring-containment`: that rule reads the `find`/`pred` lambdas
 * embedded in task JSON and confirms with a control case that calls the lambda; this one reads
 * verifier modules, where the needle is a literal of the code or a value the task passes in, and it
 * does not confirm (static only).
 *
 * Defect vs legitimate (the boundary, from the real corpora):
 * - the needle is a bare token — letters, digits, spaces, `-`, `_`, `'`, at most three words (in text a web
 *   page renders, which the agent does not write, a three-word phrase of 20 characters or more such as
 *   `button successfully clicked` is specific and is not reported) — that
 *   free text can hold inside a longer word or number or after a negation ("Canada" in "Canadair"
 *   and "not Canada", "1 passed" in "11 passed", "succeed" in "failed to succeed"). A needle with
 *   punctuation (a path `/home/user/x`, a marker `ATOM     14  CA`, `key=value`, a URL, an
 *   extension `.pdf`) is a delimited marker and is not reported;
 * - the haystack is known to be free text from where it comes from (src/lang/python/value-origin.ts,
 *   src/lang/js/value-origin.ts): a parameter every caller in the project fills with text (its `str`
 *   annotation only when no call is found — a field of a structured response passed in is not text),
 *   the result of `.read()`,
 *   `.lower()`, `.strip()`, `.join()`, `str()`, `.stdout`/`.text`, `get_text()`/`extract_text()`,
 *   JS `.textContent`/`.innerText`/`await page.content()`/`.toLowerCase()`/`readFileSync(p, 'utf8')`,
 *   `ariaSnapshot()`, a browser agent's page text (`extract().pageText`, `extract("instruction").extraction`;
 *   there only a token the agent was told to enter or choose, found in a string of the function),
 *   or a local holding one. A list, set or dict (`x in text.split()`, `lines.includes(x)`) is
 *   membership and is not reported; nor are `startswith`/`endswith` and anchored regexes. A value
 *   that is one of a few literals the code fixes (a program whose script echoes `Exists` or `Does not
 *   exist`, a choice of literals, a function returning only literals, an app-state field only shown
 *   in choice controls with literal options) is a closed domain: a token
 *   found in at most one of its values is an exact test and is not reported;
 * - the containment decides the verdict in the pass direction: returned (alone or under
 *   `not`/`and`/`or`/`all()`/`every()`/`float()`), or the condition of an `if` that returns a constant
 *   verdict, in a verdict function (src/suites/verdict.ts). Exclusion tests (`if "error" in out:
 *   return 0`) err towards failing and are not reported; nor is containment in getters and set-up.
 * - the haystack is not a language model's reply (src/lang/python/llm-reply.ts): judge-reply-parsing reports
 *   those, naming the failing replies that hold the word;
 * - a needle the task passes in (`all(r in result for r in rules["include"])`) is reported only when
 *   the tasks bound to the function pass a bare token under that key; the message names one.
 */
import type { AnyNode, CallExpression, Node as JsNode } from 'acorn';
import { defineRule, type PythonVisitor, type RuleContext } from '../../src/contract/rule.js';
import type { Project } from '../../src/contract/project.js';
import type { FunctionInfo, PythonAnalysis } from '../../src/lang/python/types.js';
import { comparisonOperators, field, named, unparen, type PyNode } from '../../src/lang/python/tree.js';
import { isJsFunction, jsScopes, propName, programOf } from '../../src/lang/js/index.js';
import { forEachChild } from '../../src/lang/js/nodes.js';
import { argumentsFor, closedStrings, jsonStatePath } from '../../src/lang/python/value-origin.js';
import { jsClosedStrings } from '../../src/lang/js/value-origin.js';
import { appStateNear } from '../../src/lang/js/app-state.js';
import { isVerdictFunction, jsVerdictScope, pythonVerdictShapes } from '../../src/suites/verdict.js';
import { llmReply } from '../../src/lang/python/llm-reply.js';
import { verdictPolarity } from '../../src/suites/verdict-polarity.js';
import { jsConst, pyConst, verdictTruth, type VerdictShapes } from '../../src/suites/verdict-shape.js';

type Msg = 'literal' | 'taskValue';
type PyCtx = Parameters<PythonVisitor<Msg>>[1];

/** acorn's union of ESTree node types: narrowing on `type` gives each node its fields. */
type AnyJs = AnyNode;

/** A token free text can hold inside a longer word or after a negation. */
function bareToken(s: string): boolean {
  if (s.length === 0 || s.length > 32 || s !== s.trim()) return false;
  if (!/^[\p{L}\p{N}_](?:[\p{L}\p{N}_' -]*[\p{L}\p{N}_])?$/u.test(s)) return false;
  // a phrase of three words that long (`overengineered anchor links`) is specific: text holding it means it
  return s.split(/\s+/).length <= 3;
}

/** A three-word phrase of 20 characters or more (`overengineered anchor links`, `button successfully clicked`):
 *  in text a web page renders (not text the agent writes) it is put there by the site and means what it says. */
const longPhrase = (s: string): boolean => s.split(/\s+/).length === 3 && s.length >= 20;

/** A year-month or a full ISO date (`2026-12`, `2026-03-08`). */
function isoDate(s: string): boolean {
  return /^\d{4}-\d{2}(?:-\d{2})?$/.test(s);
}

/** A text that contains the token but does not mean it. */
function witness(s: string): string {
  if (/\d$/.test(s)) return `${s}0`;
  if (/^\d/.test(s)) return `1${s}`;
  return `not ${s}`;
}

/** The pattern of a regex literal when it has no metacharacter (pure containment), else undefined. */
function plainPattern(p: string): string | undefined {
  return /^[\p{L}\p{N}_' -]+$/u.test(p) ? p : undefined;
}

// ------------------------------------------------------------------ Python

const PY_TEXT_METHODS = new Set(['read', 'lower', 'upper', 'strip', 'lstrip', 'rstrip', 'decode', 'casefold', 'title', 'replace', 'join', 'get_text', 'text_content', 'inner_text', 'inner_html', 'extract_text', 'getvalue', 'read_text', 'format', 'content']);
const PY_TEXT_ATTRS = new Set(['text', 'stdout', 'stderr', 'output', 'page_source', 'inner_text']);

function paramIsStr(fn: FunctionInfo | undefined, name: string): boolean {
  const params = fn ? field(fn.node, 'parameters') : undefined;
  for (const p of params ? named(params) : []) {
    if (p.type !== 'typed_parameter' && p.type !== 'typed_default_parameter') continue;
    const id = p.type === 'typed_parameter' ? named(p)[0] : field(p, 'name');
    const t = field(p, 'type');
    if (id?.text === name && t && /^(str|Optional\[str\]|str \| None)$/.test(t.text.trim())) return true;
  }
  return false;
}

/**
 * Is the value known free text, from where it comes from? A literal, a read, a process's output, page
 * text, a string method's result, or a local holding one. A parameter is text when every call of the
 * function in the project passes text for it (the same test at each caller); when no call is found, its
 * `str` annotation is the evidence. A field of a structured object (`response.activity.name`) is not.
 */
function pyIsText(project: Project, a: PythonAnalysis, fn: FunctionInfo | undefined, e: PyNode, depth = 0): boolean {
  const n = unparen(e);
  if (depth > 3) return false;
  if (n.type === 'string' || n.type === 'concatenated_string') return true;
  if (n.type === 'identifier') {
    if (fn?.params.includes(n.text)) {
      const sites = argumentsFor(project.python, a, fn, n.text);
      return sites ? sites.every((s) => pyIsText(project, s.analysis, s.fn, s.arg, depth + 1)) : paramIsStr(fn, n.text);
    }
    const src = a.valueSources(n).filter((x) => x !== n);
    return src.length > 0 && src.every((x) => pyIsText(project, a, fn, x, depth + 1));
  }
  if (n.type === 'attribute') return PY_TEXT_ATTRS.has(field(n, 'attribute')?.text ?? '');
  if (n.type === 'binary_operator' && n.children.some((c) => c.type === '+')) return named(n).some((x) => unparen(x).type === 'string');
  if (n.type === 'await') return pyIsText(project, a, fn, named(n)[0] ?? n, depth + 1);
  if (n.type === 'call') {
    const f = field(n, 'function');
    if (f?.type === 'identifier') return f.text === 'str';
    if (f?.type === 'attribute') return PY_TEXT_METHODS.has(field(f, 'attribute')?.text ?? '');
  }
  return false;
}

/** For a loop or comprehension variable: the iterable it runs over. */
function loopIterable(id: PyNode): PyNode | undefined {
  for (let p = id.parent; p; p = p.parent) {
    if (p.type === 'function_definition' || p.type === 'lambda') return undefined;
    const clauses = p.type === 'for_statement' ? [p] : /comprehension|generator_expression/.test(p.type) ? named(p).filter((c) => c.type === 'for_in_clause') : [];
    for (const c of clauses) {
      const left = field(c, 'left');
      if (left?.type === 'identifier' && left.text === id.text) return field(c, 'right');
    }
  }
  return undefined;
}

interface PyNeedle {
  /** Literal tokens the needle takes. */
  literals: string[];
  /** The needle comes from a parameter: its root and the keys read on the way (`rules.get("include")` → include). */
  param?: { name: string; keys: string[] };
}

function pyNeedle(a: PythonAnalysis, fn: FunctionInfo | undefined, e: PyNode, depth = 0): PyNeedle {
  const n = unparen(e);
  const none: PyNeedle = { literals: [] };
  if (depth > 4) return none;
  const c = pyConst(a, n);
  if (c.kind === 'string') return { literals: [c.value] };
  if (n.type === 'list' || n.type === 'tuple' || n.type === 'set') {
    const lits = named(n).map((x) => pyConst(a, x)).filter((x) => x.kind === 'string').map((x) => (x as { value: string }).value);
    return { literals: lits };
  }
  if (n.type === 'identifier') {
    if (fn?.params.includes(n.text) && n.text !== 'self' && n.text !== 'cls') return { literals: [], param: { name: n.text, keys: [] } };
    const it = loopIterable(n);
    if (it) return pyNeedle(a, fn, it, depth + 1);
    const src = a.valueSources(n).filter((x) => x !== n);
    const parts = src.map((x) => pyNeedle(a, fn, x, depth + 1));
    return { literals: parts.flatMap((p) => p.literals), param: parts.find((p) => p.param)?.param };
  }
  // rules["include"], rules.get("include", [])
  let base: PyNode | undefined;
  let key: PyNode | undefined;
  if (n.type === 'subscript') { base = field(n, 'value'); key = field(n, 'subscript'); }
  if (n.type === 'call') {
    const f = field(n, 'function');
    if (f?.type === 'attribute' && field(f, 'attribute')?.text === 'get') { base = field(f, 'object'); key = named(field(n, 'arguments') ?? n)[0]; }
  }
  if (base && key) {
    const inner = pyNeedle(a, fn, base, depth + 1);
    const k = pyConst(a, key);
    if (inner.param && k.kind === 'string') return { literals: [], param: { name: inner.param.name, keys: [...inner.param.keys, k.value] } };
  }
  return none;
}

/** How the containment test decides the verdict: 'pass' (finding it passes the agent), 'fail', or undefined (not a verdict). */
function pyDecides(a: PythonAnalysis, start: PyNode, shapes: VerdictShapes, positive0: boolean): boolean | undefined {
  const pol = verdictPolarity(a, start, shapes);
  return pol === undefined ? undefined : pol === positive0;
}

interface Evidence { value: string; file: string; tasks: number }

const evidenceCache = new WeakMap<Project, Map<string, Evidence | null>>();

/** A bare token the tasks bound to `fn` pass under `key` (the most ambiguous one: digits, then the shortest). */
function taskEvidence(project: Project, file: string, fn: FunctionInfo, key: string): Evidence | undefined {
  let m = evidenceCache.get(project);
  if (!m) evidenceCache.set(project, (m = new Map()));
  const k = `${file}\0${fn.qualname}\0${key}`;
  const hit = m.get(k);
  if (hit !== undefined) return hit ?? undefined;
  const found: Array<{ value: string; file: string }> = [];
  const tasks = new Set<string>();
  const collect = (v: unknown, under: boolean, rel: string, depth: number): void => {
    if (depth > 8) return;
    if (typeof v === 'string') { if (under && bareToken(v)) { found.push({ value: v, file: rel }); tasks.add(rel); } return; }
    if (Array.isArray(v)) { for (const x of v) collect(x, under, rel, depth + 1); return; }
    if (v && typeof v === 'object') for (const [mk, mv] of Object.entries(v)) collect(mv, under || mk === key, rel, depth + 1);
  };
  for (const s of project.suites)
    for (const t of s.tasks)
      for (const e of t.entries) {
        if (e.binding?.file !== file || e.binding.qualname !== fn.qualname) continue;
        for (const [name, ref] of Object.entries(e.fields)) if (name !== 'func' && name !== 'result') collect(ref.value, false, t.id, 0);
      }
  const rank = (x: string) => (/\d/.test(x) ? 0 : 1) * 100 + x.length;
  found.sort((x, y) => rank(x.value) - rank(y.value));
  const ev = found[0] ? { ...found[0], tasks: tasks.size } : undefined;
  m.set(k, ev ?? null);
  return ev;
}

// ------------------------------------------------------------------ JavaScript / TypeScript

const JS_TEXT_PROPS = new Set(['textContent', 'innerText', 'innerHTML', 'outerHTML', 'stdout', 'stderr', 'body', 'title', 'pageText']);
const JS_TEXT_METHODS = new Set(['toLowerCase', 'toUpperCase', 'trim', 'trimStart', 'trimEnd', 'join', 'text', 'content', 'innerText', 'textContent', 'innerHTML', 'toString', 'normalize', 'replace', 'replaceAll', 'readFileSync', 'readFile', 'title', 'stringify', 'ariaSnapshot']);

/** `r.extraction` where `r = await x.extract("instruction")`: an extraction asked for with an instruction
 *  only (no schema), whose result is the model's free text about the page (`extract("extract the page text")`). */
function freeExtraction(e: AnyJs & { type: 'MemberExpression' }, sc: ReturnType<typeof jsScopes>): boolean {
  if (propName(e) !== 'extraction' || e.object.type !== 'Identifier') return false;
  const b = sc.resolve(e.object);
  let init: AnyJs | undefined = b?.kind === 'const' ? b.init : undefined;
  while (init?.type === 'AwaitExpression') init = init.argument;
  if (init?.type !== 'CallExpression' || init.callee.type !== 'MemberExpression' || propName(init.callee) !== 'extract') return false;
  return init.arguments.length === 1 && jsConst(init.arguments[0]).kind === 'string';
}

const PAGE_PROPS = new Set(['textContent', 'innerText', 'innerHTML', 'outerHTML', 'pageText']);
const PAGE_METHODS = new Set(['content', 'innerText', 'textContent', 'innerHTML', 'title', 'ariaSnapshot', 'allTextContents', 'allInnerTexts', 'extract']);
const KEEP_METHODS = new Set(['toLowerCase', 'toUpperCase', 'trim', 'trimStart', 'trimEnd', 'normalize', 'join', 'toString']);

/** Is the text one a web page renders (a DOM read, the page's content, an extraction of the page), through
 *  `const`s, `await`, field reads and case/space normalisation? */
function jsPageText(e: AnyJs | undefined, sc: ReturnType<typeof jsScopes>, depth = 0): boolean {
  if (!e || depth > 6) return false;
  if (e.type === 'AwaitExpression') return jsPageText(e.argument, sc, depth + 1);
  if (e.type === 'ChainExpression') return jsPageText(e.expression, sc, depth + 1);
  if (e.type === 'MemberExpression' && !e.computed) return PAGE_PROPS.has(propName(e) ?? '') || jsPageText(e.object, sc, depth + 1);
  if (e.type === 'CallExpression' && e.callee.type === 'MemberExpression' && !e.callee.computed) {
    const m = propName(e.callee) ?? '';
    if (PAGE_METHODS.has(m)) return true;
    return KEEP_METHODS.has(m) && jsPageText(e.callee.object, sc, depth + 1);
  }
  if (e.type === 'Identifier') {
    const b = sc.resolve(e);
    return b?.kind === 'const' && !!b.init && jsPageText(b.init, sc, depth + 1);
  }
  return false;
}

/** The text is a browser agent's reading of the whole page: `r.pageText` or a free-text `r.extraction`
 *  of `r = await x.extract(…)`, through `const`s and case/space normalisation. */
function jsAgentPage(e: AnyJs | undefined, sc: ReturnType<typeof jsScopes>, depth = 0): boolean {
  if (!e || depth > 6) return false;
  if (e.type === 'AwaitExpression') return jsAgentPage(e.argument, sc, depth + 1);
  if (e.type === 'ChainExpression') return jsAgentPage(e.expression, sc, depth + 1);
  if (e.type === 'MemberExpression' && !e.computed) return propName(e) === 'pageText' || freeExtraction(e, sc);
  if (e.type === 'CallExpression' && e.callee.type === 'MemberExpression' && !e.callee.computed) return KEEP_METHODS.has(propName(e.callee) ?? '') && jsAgentPage(e.callee.object, sc, depth + 1);
  if (e.type === 'Identifier') {
    const b = sc.resolve(e);
    return b?.kind === 'const' && !!b.init && jsAgentPage(b.init, sc, depth + 1);
  }
  return false;
}

/** The string literals (and template texts) of a function that come before `pos` (comments are not read). */
function jsStringsBefore(fn: AnyJs, pos: number): string[] {
  const out: string[] = [];
  const visit = (n: AnyJs): void => {
    if (n.start >= pos) return;
    if (n.type === 'Literal' && typeof n.value === 'string') out.push(n.value);
    else if (n.type === 'TemplateElement') out.push(n.value.cooked ?? n.value.raw);
    forEachChild(n, visit);
  };
  visit(fn);
  return out;
}

function jsIsText(e: AnyJs | undefined, sc: ReturnType<typeof jsScopes>, text: string, depth = 0): boolean {
  if (!e || depth > 4) return false;
  if (e.type === 'AwaitExpression') return jsIsText(e.argument, sc, text, depth + 1);
  if (e.type === 'ChainExpression') return jsIsText(e.expression, sc, text, depth + 1);
  if (e.type === 'TemplateLiteral') return true;
  if (e.type === 'Literal') return typeof e.value === 'string';
  if (e.type === 'MemberExpression' && !e.computed) return JS_TEXT_PROPS.has(propName(e) ?? '') || freeExtraction(e, sc);
  if (e.type === 'CallExpression') {
    const c = e.callee;
    if (c.type === 'Identifier') return c.name === 'String' || ((c.name === 'readFileSync' || c.name === 'readFile') && e.arguments.length >= 2);
    if (c.type === 'MemberExpression' && !c.computed) {
      const m = propName(c) ?? '';
      if (m === 'readFileSync' || m === 'readFile') return e.arguments.length >= 2;
      return JS_TEXT_METHODS.has(m);
    }
    return false;
  }
  if (e.type === 'Identifier') {
    // a TypeScript annotation (`output: string`), kept in the original text
    const b = sc.resolve(e);
    if (!b) return false;
    if (/^\??\s*:\s*string\b/.test(text.slice(b.id.end, b.id.end + 40))) return true;
    return b.kind === 'const' && !!b.init && jsIsText(b.init, sc, text, depth + 1);
  }
  return false;
}

interface JsNeedle { literals: string[] }

function jsNeedle(e: AnyJs | undefined, sc: ReturnType<typeof jsScopes>, ancestors: readonly AnyJs[], depth = 0): JsNeedle {
  if (!e || depth > 4) return { literals: [] };
  const c = jsConst(e);
  if (c.kind === 'string') return { literals: [c.value] };
  if (e.type === 'ArrayExpression') return { literals: e.elements.flatMap((x) => { const v = x && x.type !== 'SpreadElement' ? jsConst(x) : undefined; return v?.kind === 'string' ? [v.value] : []; }) };
  if (e.type === 'Identifier') {
    // the parameter of an `every`/`some`/`filter` callback over a literal array
    for (let i = ancestors.length - 1; i >= 1; i--) {
      const f = ancestors[i]!;
      if (f.type !== 'ArrowFunctionExpression' && f.type !== 'FunctionExpression') continue;
      if (f.params[0]?.type !== 'Identifier' || f.params[0].name !== e.name) continue;
      const call = ancestors[i - 1]!;
      if (call.type === 'CallExpression' && call.callee.type === 'MemberExpression') return jsNeedle(call.callee.object, sc, ancestors.slice(0, i - 1), depth + 1);
      return { literals: [] };
    }
    const b = sc.resolve(e);
    if (b?.kind === 'const' && b.init) return jsNeedle(b.init, sc, ancestors, depth + 1);
    // `for (const w of WORDS)`
    const decl = b?.decl;
    if (decl?.type === 'VariableDeclarator') for (let i = ancestors.length - 1; i >= 0; i--) {
      const s = ancestors[i]!;
      if (s.type === 'ForOfStatement' && s.left.type === 'VariableDeclaration' && s.left.declarations.includes(decl)) return jsNeedle(s.right, sc, ancestors.slice(0, i), depth + 1);
    }
  }
  return { literals: [] };
}

/** Does the containment `start` (whose parent is ancestors' last) decide the verdict, and in which
 *  direction: pass = finding the token passes the agent. */
function jsDecides(start: AnyJs, ancestors: readonly AnyJs[], shapes: VerdictShapes, positive0: boolean): { pass: boolean; fn: JsNode } | undefined {
  let positive = positive0;
  let n: AnyJs = start;
  let i = ancestors.length - 1;
  const up = (to: number) => { n = ancestors[to + 1]!; i = to; }; // n: the child of ancestors[to] on the path
  const enclosingFn = (k: number) => [...ancestors.slice(0, k)].reverse().find((x) => isJsFunction(x));
  while (i >= 0) {
    const p = ancestors[i]!;
    switch (p.type) {
      case 'LogicalExpression':
      case 'ParenthesizedExpression':
      case 'ChainExpression':
      case 'AwaitExpression':
        up(i - 1);
        continue;
      case 'UnaryExpression':
        if (p.operator !== '!') return undefined;
        positive = !positive;
        up(i - 1);
        continue;
      case 'CallExpression': {
        const cal = p.callee;
        if (cal.type === 'Identifier' && (cal.name === 'Boolean' || cal.name === 'Number') && p.arguments[0] === n) { up(i - 1); continue; }
        return undefined;
      }
      case 'ArrowFunctionExpression': {
        if (p.body !== n) return undefined;
        // the callback of `.every(w => text.includes(w))` / `.some(…)`: its result is the call's
        const call = ancestors[i - 1];
        if (call?.type === 'CallExpression' && call.arguments[0] === p && call.callee.type === 'MemberExpression' && ['every', 'some'].includes(propName(call.callee) ?? '')) {
          up(i - 2);
          continue;
        }
        return { pass: positive, fn: p };
      }
      case 'Property': {
        const obj = ancestors[i - 1];
        const k = p.key?.type === 'Identifier' ? p.key.name : p.key?.type === 'Literal' ? String(p.key.value) : '';
        if (p.value !== n || obj?.type !== 'ObjectExpression' || !shapes.keys.has(k.toLowerCase())) return undefined;
        up(i - 2);
        continue;
      }
      case 'ConditionalExpression': {
        if (p.test !== n) return undefined;
        const t = verdictTruth(jsConst(p.consequent), shapes);
        if (t === undefined || verdictTruth(jsConst(p.alternate), shapes) !== !t) return undefined;
        positive = positive === t;
        up(i - 1);
        continue;
      }
      case 'ReturnStatement': {
        const fn = enclosingFn(i);
        return fn ? { pass: positive, fn } : undefined;
      }
      case 'IfStatement': {
        if (p.test !== n) return undefined;
        const cons = p.consequent;
        const ret = cons.type === 'ReturnStatement' ? cons : cons.type === 'BlockStatement' ? cons.body.find((x: AnyJs) => x.type === 'ReturnStatement') : undefined;
        const t = ret?.argument ? verdictTruth(jsConst(ret.argument), shapes) : undefined;
        const fn = enclosingFn(i);
        return t === undefined || !fn ? undefined : { pass: positive === t, fn };
      }
      default:
        return undefined;
    }
  }
  return undefined;
}

const NEG_ONE = (e: AnyJs) => (e.type === 'UnaryExpression' && e.operator === '-' && e.argument.type === 'Literal' && e.argument.value === 1);
const ZERO = (e: AnyJs) => e.type === 'Literal' && e.value === 0;

/** `x.indexOf(t) !== -1`, `>= 0`, `> -1` (and `x.search(/t/)`): a containment test; its polarity. */
function jsIndexTest(b: AnyJs): { call: CallExpression; name: string; positive: boolean } | undefined {
  if (b.type !== 'BinaryExpression') return undefined;
  const l = b.left;
  const r = b.right;
  const name = l.type === 'CallExpression' ? propName(l.callee) : undefined;
  if (l.type !== 'CallExpression' || (name !== 'indexOf' && name !== 'search')) return undefined;
  if ((b.operator === '!==' || b.operator === '!=') && NEG_ONE(r)) return { call: l, name, positive: true };
  if ((b.operator === '===' || b.operator === '==') && NEG_ONE(r)) return { call: l, name, positive: false };
  if (b.operator === '>=' && ZERO(r)) return { call: l, name, positive: true };
  if (b.operator === '>' && NEG_ONE(r)) return { call: l, name, positive: true };
  if (b.operator === '<' && ZERO(r)) return { call: l, name, positive: false };
  return undefined;
}

export default defineRule<Msg>({
  meta: {
    id: 'substring-verdict',
    description: 'A verdict decided by whether free text contains a short expected token (`"succeed" in output`, `text.includes("Canada")`): longer words, numbers and negations pass too.',
    defaultSeverity: 'warn',
    layers: ['python', 'javascript'],
    languages: ['python', 'javascript', 'typescript'],
    confirm: {
      oracle: 'substring-verdict',
      description: 'Runs the Python function on the counter-example the message names (`10` for `1`, `not Canada`), on the token alone and on text without it; confirmed when the counter-example passes where text without the token fails. JS/TS findings are not confirmed.',
    },
    messages: {
      literal: {
        what: '`{{expr}}` passes the check when the text contains `{{needle}}` anywhere.',
        why: 'Text that holds it inside a longer word or number or after a negation (`{{witness}}`) passes too, so wrong output is credited.',
        fix: 'Extract the field the value must stand in and compare it with `==`/`===`, test membership in the split words or lines, or match with word boundaries (`\\b{{needle}}\\b`).',
      },
      taskValue: {
        what: '`{{expr}}` passes the check when the text contains a value the task gives under "{{key}}", and {{tasks}} task(s) give bare tokens there, such as `{{needle}}` (task {{example}}).',
        why: 'Text that holds such a token inside a longer word or number or after a negation (`{{witness}}`) passes too, so wrong output is credited.',
        fix: 'Match each expected value with boundaries (split the text into words or lines, or a regex with `\\b`), or give the tasks delimited values.',
      },
    },
    docs: {
      whatItDoes:
        'In verifier functions (Python and JS/TS), flags a containment test that decides the verdict in the pass direction — returned, or the condition of an `if` that returns a constant verdict, through `not`/`and`/`or`/`all()`/`every()` — when the haystack is known free text (a `str` parameter, `.read()`/`.lower()`/`.join()`/`str()`/`.stdout`, JS `.textContent`/`.innerText`/`await page.content()`/`readFileSync(p, \'utf8\')`, Playwright `ariaSnapshot()`, a browser agent\'s whole-page text (`(await stagehand.extract()).pageText`) and its free-text extraction asked for with an instruction only (`(await stagehand.extract("extract the page text")).extraction`) — there only a token the agent was told to enter or choose in the same function (`act("fill \'nunya\' into the first name field")`) is reported: the page then shows it wherever the agent put it, while a word the agent was not given is the page\'s own, such as an option list shown after expanding a menu) and the needle is a bare token (letters, digits, spaces, `-`, `_`; at most three words — in text a web page renders (`textContent`, `innerText`, `page.content()`, an extraction of the page), which the site writes and the agent does not, a three-word phrase of 20 characters or more is specific and is not reported, while in text the agent writes a negation can still hold it): a literal, a literal list iterated, or a task value under the key the code reads (`rules["include"]`). Forms: `t in s`, `s.find(t) != -1`, `s.count(t) > 0`, `re.search("t", s)`, `s.includes(t)`, `s.indexOf(t) !== -1`, `/t/.test(s)`. Whether the haystack is free text is read from where it comes from: a parameter is text when every call of the function in the project passes text for it (its `str` annotation counts only when no call is found), so a structured field passed in (an activity name from an RPC response) is not; a value that is one of a few literals the code fixes — a program whose shell script prints one literal per branch (`echo "Exists"` / `echo "Does not exist"`), a choice between literals, a function returning only literals, a field of the state an app serves whose app code only ever shows it in choice controls built from literal options (`dropdown(\'timezone\', [{ value: \'America/New_York\' }, …], s.timezone)`, no text box bound to it), a field the app fills only with literals and copies of a record of a fixed list of its state (`pharmacyName = p.name` where `p = this.pharmacies.find(…)`) or of an object the state holds under a key that is only ever a seed copy (`authorName: this.currentUser.fullName` where `this.currentUser = JSON.parse(JSON.stringify(CURRENT_USER))`, no write of that field, no re-build by spread, and any computed-key write or `Object.assign` merge into the object or an alias of it limited to other fields, e.g. the `data-field` of the profile buttons a click handler serves; a merge of a source whose keys are not known leaves it open) — is a closed domain, where a token found in at most one value is an exact test. A date needle (`2026-12`, `2026-03-08`) on an app-state field the app fills only with ISO dates (date literals, `toISOString()`, a date picker or a text box whose pattern is an ISO date, or `el.dataset.value` read in a click handler\'s `case \'<action>\':` when every element the app renders with that `data-action` carries such a date in `data-value`: a literal, or the field of each option of a list the app builds) tests the date part and is not flagged. Not flagged: needles with punctuation (paths, URLs, `key=value`, fixed-width markers), membership in lists/sets/dicts, `startswith`/`endswith`, exclusion tests that fail the agent, containment off the verdict path (getters, set-up), tokens that tell the values of a closed domain apart.',
      why: 'A substring test accepts any text that holds the token: "Canada" passes "Canadair" and "not Canada", "1 passed" passes "11 passed", "succeed" passes "failed to succeed". The benchmark then credits output that is wrong. This is the code-level twin of `substring-containment` (lambdas in task JSON).',
    },
  },
  create(ctx) {
    const project = ctx.project;
    const pyReport = (c: PyCtx, node: PyNode, needleNode: PyNode, hay: PyNode, positive: boolean) => {
      const a = c.python;
      const fn = a.functionAt(node);
      if (!fn) return;
      const known = isVerdictFunction(project, a.path, fn);
      if (known === false) return;
      if (!pyIsText(project, a, fn, hay)) return;
      // a model's reply is judge-reply-parsing's (it names the failing replies that contain the word)
      if (llmReply(a, hay, project.python)) return;
      if (pyDecides(a, node, pythonVerdictShapes(project), positive) !== true) return;
      const needle = pyNeedle(a, fn, needleNode);
      // the text is one of a few literals (a program that prints `Exists` or `Does not exist`): the test is
      // exact there when the token is in at most one of them
      const app = appStateNear(project.files, a.path, project.root);
      const domain = closedStrings(a, project.python, hay, 0, app && ((path) => app.strings(path)));
      // a date needle in a field the app only fills with ISO dates tests the date part
      const sp = app && needle.literals.some(isoDate) ? jsonStatePath(a, hay) : undefined;
      const dated = !!sp && app!.dates(sp.path);
      const lit = needle.literals.find((t) => bareToken(t) && !(domain && domain.filter((v) => v.includes(t)).length <= 1) && !(dated && isoDate(t)));
      const expr = a.src(node).replace(/\s+/g, ' ');
      if (lit !== undefined) {
        c.report({ messageId: 'literal', data: { expr, needle: lit, witness: witness(lit) }, at: node, control: { oracle: 'substring-verdict', file: a.path, line: a.line(node), qualname: fn.qualname, needle: lit, counter: witness(lit) } });
        return;
      }
      const key = needle.param?.keys[needle.param.keys.length - 1];
      if (!key || !known) return;
      const ev = taskEvidence(project, a.path, fn, key);
      if (!ev) return;
      c.report({
        messageId: 'taskValue',
        data: { expr, key, needle: ev.value, example: ev.file, tasks: ev.tasks, witness: witness(ev.value) },
        at: node,
        control: { oracle: 'substring-verdict', file: a.path, line: a.line(node), qualname: fn.qualname, needle: ev.value, counter: witness(ev.value), param: needle.param!.name, keys: needle.param!.keys },
      });
    };
    const jsCheck = (c: RuleContext<Msg>, node: AnyJs, needleNode: AnyJs | undefined, hay: AnyJs | undefined, positive: boolean, ancestors: readonly AnyJs[]) => {
      const program = programOf(ancestors);
      if (!program || !hay || !needleNode) return;
      const sc = jsScopes(program);
      if (!jsIsText(hay, sc, c.text)) return;
      const scope = jsVerdictScope(project, c.unit.file.path, program);
      const d = jsDecides(node, ancestors, scope.shapes, positive);
      if (!d?.pass) return;
      if ((scope.known || scope.functions.size) && !scope.functions.has(d.fn)) return;
      // the text is one of a few literals (a program printing one of them): exact when the token is in at most one
      const domain = jsClosedStrings(hay, sc);
      const page = jsPageText(hay, sc);
      // a browser agent's own reading of the whole page (`extract().pageText`, a free-text extraction): the
      // token tells something only when it is the value the agent was told to enter or choose (`act("fill
      // 'nunya' into the first name field")`), which the page then shows wherever the agent put it; a word
      // the agent was not given is the page's own (an option list shown after expanding a menu)
      const told = (t: string) => jsStringsBefore(d.fn as AnyJs, node.start).some((v) => new RegExp(`\\b${t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\b`).test(v));
      const agentPage = jsAgentPage(hay, sc);
      const lit = jsNeedle(needleNode, sc, ancestors).literals.find(
        (t) => bareToken(t) && !(page && longPhrase(t)) && !(agentPage && !told(t)) && !(domain && domain.filter((v) => v.includes(t)).length <= 1),
      );
      if (lit === undefined) return;
      c.report({ messageId: 'literal', data: { expr: c.text.slice(node.start, node.end).replace(/\s+/g, ' '), needle: lit, witness: witness(lit) }, at: node });
    };
    const regexLiteral = (re: AnyJs | undefined): AnyJs | undefined =>
      re?.type === 'Literal' && re.regex && plainPattern(re.regex.pattern) !== undefined ? { ...re, value: re.regex.pattern, regex: undefined } : undefined;
    return {
      python: {
        comparison_operator(n, c) {
          const ops = comparisonOperators(n);
          const kids = named(n);
          if (ops.length !== 1 || kids.length !== 2) return;
          if (ops[0] === 'in' || ops[0] === 'not in') return pyReport(c, n, kids[0]!, kids[1]!, ops[0] === 'in');
          // s.find(t) != -1 / >= 0 / > -1 ; s.count(t) > 0 / >= 1 / != 0
          const [l, r] = [unparen(kids[0]!), unparen(kids[1]!)];
          const f = l.type === 'call' ? field(l, 'function') : undefined;
          const m = f?.type === 'attribute' ? field(f, 'attribute')?.text : undefined;
          const rv = r.text.replace(/\s+/g, '');
          const op = ops[0];
          const findTest = m === 'find' && ((op === '!=' && rv === '-1') || (op === '>=' && rv === '0') || (op === '>' && rv === '-1'));
          const countTest = m === 'count' && ((op === '>' && rv === '0') || (op === '>=' && rv === '1') || (op === '!=' && rv === '0'));
          if (!findTest && !countTest) return;
          const arg = named(field(l, 'arguments') ?? l)[0];
          const recv = f ? field(f, 'object') : undefined;
          if (arg && recv) pyReport(c, n, arg, recv, true);
        },
        call(n, c) {
          const info = c.python.call(n);
          if (!info || (info.qualified !== 're.search' && info.qualified !== 're.findall')) return;
          const [pat, hay] = info.args;
          if (!pat || !hay) return;
          const p = pyConst(c.python, pat);
          if (p.kind !== 'string' || plainPattern(p.value) === undefined) return;
          pyReport(c, n, pat, hay, true);
        },
      },
      javascript: {
        CallExpression(node, c, ancestors) {
          const cal = node.callee;
          const m = propName(cal);
          if (cal.type !== 'MemberExpression' || m === undefined || cal.object.type === 'Super') return;
          const [first] = node.arguments;
          const arg = first && first.type !== 'SpreadElement' ? first : undefined;
          if (m === 'includes' && arg) return jsCheck(c, node, arg, cal.object, true, ancestors);
          // /token/.test(text), text.match(/token/)
          if (m === 'test') return jsCheck(c, node, regexLiteral(cal.object), arg, true, ancestors);
          if (m === 'match') return jsCheck(c, node, regexLiteral(arg), cal.object, true, ancestors);
        },
        BinaryExpression(node, c, ancestors) {
          const t = jsIndexTest(node);
          if (!t || t.call.callee.type !== 'MemberExpression' || t.call.callee.object.type === 'Super') return;
          const [first] = t.call.arguments;
          const arg = first && first.type !== 'SpreadElement' ? first : undefined;
          const needle = t.name === 'search' ? regexLiteral(arg) : arg;
          jsCheck(c, node, needle, t.call.callee.object, t.positive, ancestors);
        },
      },
    };
  },
});
