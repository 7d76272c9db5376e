/**
 * The JavaScript/TypeScript forms of an unguarded read of application state in verifier code:
 *
 *   const res = await fetch(url); const body = await res.json();   // no `res.ok` test, no try
 *   JSON.parse(await res.text())                                     // the same, parsed by hand
 *   (await axios.get(url)).data.items[0].name                       // no length test of `items`
 *   (await page.$$(".row"))[0].textContent                          // no element found
 *   execSync("timedatectl").toString().split(":")[1].trim()         // no separator in the output
 *   log.match(/took (\d+)ms/)[1]                                    // no match: `null[1]`
 *
 * In JS an index past the end is `undefined`, not an exception: an item read is reported only when
 * it is dereferenced (`[0].name`, `[1].trim()`), the only way it crashes; a `match`/`exec` result is
 * `null` on no match, so any index of it throws. State is what the verifier reads from the app: an
 * HTTP reply (`fetch`, `node-fetch`, `undici`, `axios`, `got`, Playwright's `request`), the page
 * (`page.evaluate`, `$$eval`, `allTextContents`, `querySelectorAll`, `$$`, `locator.all()`), a
 * command's output (`execSync`, `spawnSync`, `exec` results), a file (`readFileSync`, `readFile`), a
 * database query (`.query(…)`, `.rows`, `prepare(…).all()`), and what is computed from them by string
 * and array methods, members and `JSON.parse`. Guards are read generously: an enclosing `try` with a
 * `catch`, a chained `.catch(…)`, optional chaining, a `.length` or truthiness test of the collection
 * or its item anywhere in the function, a separator test (`includes`, `indexOf`, `startsWith`, a
 * regex `test`) of the split text, a `res.ok`/`res.status` test of the reply.
 */
import type { AnyNode, CallExpression, Expression, Identifier, MemberExpression, Node, Program, Super } from 'acorn';
import { jsScopes, type JsScopes } from '../../src/lang/js/scope.js';
import { forEachChild, propName, unwrapExpr, type JsFunction } from '../../src/lang/js/nodes.js';
import { isJsFunction } from '../../src/lang/js/flow.js';

export interface JsStateRead {
  node: AnyNode;
  messageId: 'jsUnguarded' | 'jsShortRead' | 'jsNoMatch';
  what: string;
  origin: string;
  /** One defect per parsed reply / read collection. */
  group: string;
}

/** What an expression holds: a raw HTTP reply, the text of one, or state data (text, items, members). */
interface Origin {
  kind: 'reply' | 'replyText' | 'data' | 'split' | 'match';
  origin: string;
  /** For `split`: the text that was split; for `reply`/`match`: the identifier or expression the test reads. */
  source?: AnyNode;
}

const HTTP_MODULES = /^(node-fetch|undici|cross-fetch|isomorphic-fetch|axios|got|ky)$/;
const PAGE_READS = new Set(['evaluate', '$$eval', '$eval', 'allTextContents', 'allInnerTexts', 'textContent', 'innerText', 'innerHTML', 'inputValue', 'content', 'getAttribute']);
const GENERIC_PAGE_READS = new Set(['evaluate', 'content', '$$eval', '$eval']);
const PAGE_LIKE = /(?:^|\.)(?:page|frame|tab|locator|handle|element|el|\w*(?:Page|Frame|Locator|Handle))$/i;
const QUERIES = new Set(['querySelectorAll', 'getElementsByClassName', 'getElementsByTagName', 'getElementsByName', '$$', 'queryAll']);
const TEXT_KEEP = new Set(['toString', 'trim', 'trimEnd', 'trimStart', 'toLowerCase', 'toUpperCase', 'replace', 'replaceAll', 'normalize']);
const ITEMS_KEEP = new Set(['filter', 'slice', 'map', 'sort', 'reverse', 'flat', 'concat', 'toSorted', 'toReversed']);
const HTTP_VERBS = /^(get|post|put|patch|delete|head|request)$/;
const AXIOS_LIKE = /^(axios|got|ky)$/;

const strip = unwrapExpr;

const calleeName = (c: CallExpression): string | undefined => (c.callee.type === 'Identifier' ? c.callee.name : propName(c.callee));

/** The module an identifier is imported or required from. */
function moduleOf(id: Identifier, sc: JsScopes): string | undefined {
  return sc.resolve(id)?.module?.from;
}

/** The text of a node. */
const src = (text: string, n: AnyNode) => text.slice(n.start, n.end);

export class JsStateReads {
  private readonly sc: JsScopes;
  constructor(private readonly program: Program, private readonly text: string) {
    this.sc = jsScopes(program);
  }

  /** The state an expression holds, or undefined. */
  origin(e0: AnyNode | Super, depth = 0): Origin | undefined {
    if (depth > 8 || e0.type === 'Super') return undefined;
    const e = strip(e0);
    if (e.type === 'Identifier') {
      const b = this.sc.resolve(e);
      if (!b || b.kind === 'param' || b.kind === 'import' || b.kind === 'function' || b.kind === 'class') return undefined;
      if (b.init) return this.origin(b.init, depth + 1);
      const d = b.decl;
      // `const { data } = await axios.get(u)`, `const [first] = rows`, `for (const line of out.split("\n"))`
      if (d.type === 'VariableDeclarator' && d.init && d.id.type !== 'Identifier') {
        const o = this.origin(d.init, depth + 1);
        if (!o) return undefined;
        if (o.kind === 'reply' && d.id.type === 'ObjectPattern' && d.id.properties.some((p) => p.type === 'Property' && p.value === b.id && !p.computed && p.key.type === 'Identifier' && p.key.name === 'data')) return { kind: 'data', origin: o.origin.replace(/^an? /, 'the body of an ') };
        return o.kind === 'data' || o.kind === 'split' ? { kind: 'data', origin: o.origin } : undefined;
      }
      const loop = this.forOfOver(b.id);
      if (loop) {
        const o = this.origin(loop, depth + 1);
        if (o && (o.kind === 'data' || o.kind === 'split')) return { kind: 'data', origin: o.origin };
      }
      return undefined;
    }
    if (e.type === 'MemberExpression') {
      const o = this.origin(e.object, depth + 1);
      if (!o) return undefined;
      const p = propName(e);
      if (o.kind === 'reply') return p === 'data' || p === 'body' ? { kind: 'data', origin: `the body of ${o.origin}` } : undefined;
      if (o.kind === 'replyText') return undefined;
      if (p === 'length') return undefined;
      return { kind: 'data', origin: o.origin };
    }
    if (e.type === 'ArrayExpression' && e.elements.length === 1 && e.elements[0]?.type === 'SpreadElement') return this.origin(e.elements[0].argument, depth + 1);
    if (e.type === 'LogicalExpression') return undefined; // `x || []`, `x ?? ""`: a fallback is a guard
    if (e.type !== 'CallExpression') return undefined;
    const name = calleeName(e);
    const callee = e.callee.type === 'MemberExpression' ? e.callee : undefined;
    const recv = callee ? callee.object : undefined;
    // HTTP
    if (e.callee.type === 'Identifier') {
      const m = moduleOf(e.callee, this.sc);
      if (name === 'fetch' && (!m || HTTP_MODULES.test(m))) return { kind: 'reply', origin: 'an HTTP reply' };
      if (m && HTTP_MODULES.test(m)) return { kind: 'reply', origin: 'an HTTP reply' };
      if (name && AXIOS_LIKE.test(name) && !this.sc.resolve(e.callee)) return { kind: 'reply', origin: 'an HTTP reply' };
      if (name === 'execSync' || name === 'spawnSync') return { kind: 'data', origin: 'command output' };
      if (name === 'readFileSync' || (name === 'readFile' && m && /fs/.test(m))) return { kind: 'data', origin: 'a file' };
      if (name === 'String' && e.arguments[0]) return this.origin(e.arguments[0], depth + 1);
    }
    if (callee && recv && name) {
      const root = strip(recv);
      if (root.type === 'Identifier' && HTTP_VERBS.test(name)) {
        const m = moduleOf(root, this.sc);
        if ((m && HTTP_MODULES.test(m)) || (!this.sc.resolve(root) && AXIOS_LIKE.test(root.name))) return { kind: 'reply', origin: 'an HTTP reply' };
      }
      // Playwright's APIRequestContext: `page.request.get(u)`, `request.post(u)` (the test fixture)
      if (HTTP_VERBS.test(name) && /(^|\.)request$/.test(src(this.text, root))) return { kind: 'reply', origin: 'an HTTP reply' };
      if (name === 'json') {
        const o = this.origin(recv, depth + 1);
        if (o?.kind === 'reply') return { kind: 'data', origin: `the body of ${o.origin}` };
      }
      if (name === 'text') {
        const o = this.origin(recv, depth + 1);
        if (o?.kind === 'reply') return { kind: 'replyText', origin: `the text of ${o.origin}` };
      }
      if (name === 'parse' && root.type === 'Identifier' && root.name === 'JSON' && e.arguments[0]) {
        const o = this.origin(e.arguments[0], depth + 1);
        if (o?.kind === 'replyText') return { kind: 'data', origin: `the body of ${o.origin.replace(/^the text of /, '')}` };
        // a JSON file the verifier parses is its own data (a gold file, the task), not the app's state
        return o?.kind === 'data' && o.origin !== 'a file' ? o : undefined;
      }
      // `evaluate`/`content` are common method names: only on a page, frame, locator or element handle
      if (PAGE_READS.has(name) && (!GENERIC_PAGE_READS.has(name) || PAGE_LIKE.test(src(this.text, root)) || (root.type === 'CallExpression' && /^(locator|frameLocator|getBy\w+|\$|waitForSelector|contentFrame)$/.test(calleeName(root) ?? '')))) return { kind: 'data', origin: 'state read from the page' };
      if (QUERIES.has(name)) return { kind: 'data', origin: 'the elements a query found' };
      if (name === 'all' && e.arguments.length === 0 && root.type === 'CallExpression' && /^(locator|getBy\w+|prepare)$/.test(calleeName(root) ?? '')) return { kind: 'data', origin: calleeName(root) === 'prepare' ? 'the rows of a database query' : 'the elements a query found' };
      if (name === 'query' && e.arguments.length > 0) return { kind: 'data', origin: 'the rows of a database query' };
      if (name === 'readFile' && /(^|\.)promises$|^fs$/.test(src(this.text, root))) return { kind: 'data', origin: 'a file' };
      const o = this.origin(recv, depth + 1);
      if (!o || o.kind !== 'data') return undefined;
      if (name === 'split') return { kind: 'split', origin: o.origin, source: recv };
      if (name === 'match' || name === 'exec') return { kind: 'match', origin: o.origin };
      if (TEXT_KEEP.has(name) || ITEMS_KEEP.has(name)) return o;
      return undefined;
    }
    // `/re/.exec(state)`
    if (callee && recv && name === 'exec' && strip(recv).type === 'Literal' && e.arguments[0]) {
      const o = this.origin(e.arguments[0], depth + 1);
      if (o?.kind === 'data') return { kind: 'match', origin: o.origin };
    }
    return undefined;
  }

  /** The collection a `for (const x of C)` loop declaring `id` iterates. */
  private forOfOver(id: Identifier): Expression | undefined {
    let found: Expression | undefined;
    const rec = (n: AnyNode) => {
      if (found) return;
      if (n.type === 'ForOfStatement' && n.left.type === 'VariableDeclaration' && n.left.declarations.some((d) => d.id === id)) {
        found = n.right;
        return;
      }
      forEachChild(n, rec);
    };
    rec(this.program);
    return found;
  }

  /** A read at this member or call that the verifier does not guard. */
  read(node: AnyNode, ancestors: readonly AnyNode[], fn: JsFunction): JsStateRead | undefined {
    if (node.type === 'CallExpression') return this.parseRead(node, ancestors, fn);
    if (node.type === 'MemberExpression') return this.itemRead(node, ancestors, fn);
    return undefined;
  }

  /** `res.json()` / `JSON.parse(await res.text())` of a fetched reply with no `ok`/status test and no handler. */
  private parseRead(node: CallExpression, ancestors: readonly AnyNode[], fn: JsFunction): JsStateRead | undefined {
    const name = calleeName(node);
    const recv = node.callee.type === 'MemberExpression' ? node.callee.object : undefined;
    if (!recv) return undefined;
    let reply: AnyNode | undefined;
    if (name === 'json' && this.origin(recv)?.kind === 'reply') reply = recv;
    else if (name === 'parse' && strip(recv).type === 'Identifier' && (strip(recv) as Identifier).name === 'JSON' && node.arguments[0]) {
      const arg = strip(node.arguments[0]);
      const textCall = arg.type === 'Identifier' ? this.initOf(arg) : arg;
      if (textCall?.type === 'CallExpression' && calleeName(textCall) === 'text' && textCall.callee.type === 'MemberExpression' && this.origin(textCall.callee.object)?.kind === 'reply') reply = textCall.callee.object;
    }
    if (!reply) return undefined;
    // axios/got parse the body themselves: `.json()` there is got's own parse and throws on HTTP errors alike
    if (this.handled(node, ancestors, fn)) return undefined;
    const r = strip(reply);
    // `res.ok`, `res.status !== 200`, Playwright's `res.ok()` / `res.status()`
    const statusOf = (m0: AnyNode) => {
      const m = m0.type === 'CallExpression' && m0.arguments.length === 0 ? m0.callee : m0;
      return m.type === 'MemberExpression' && strip(m.object).type === 'Identifier' && (strip(m.object) as Identifier).name === (r as Identifier).name && /^(ok|status|statusCode|statusText)$/.test(propName(m) ?? '');
    };
    if (r.type === 'Identifier' && this.tested(fn, statusOf, node.start)) return undefined;
    return { node, messageId: 'jsUnguarded', what: 'the body of an HTTP reply', origin: 'an HTTP reply', group: `${r.start}` };
  }

  private initOf(id: Identifier): AnyNode | undefined {
    const b = this.sc.resolve(id);
    return b?.init ? strip(b.init) : undefined;
  }

  /** `X[k].f` of state data / `X[k]` of a match, unguarded. */
  private itemRead(node: MemberExpression, ancestors: readonly AnyNode[], fn: JsFunction): JsStateRead | undefined {
    if (!node.computed || node.property.type !== 'Literal' || typeof node.property.value !== 'number' || node.optional) return undefined;
    const k = node.property.value;
    const o = this.origin(node.object);
    if (!o) return undefined;
    const parent = ancestors[ancestors.length - 1];
    const deref = parent && ((parent.type === 'MemberExpression' && parent.object === node && !parent.optional) || (parent.type === 'CallExpression' && parent.callee === node && !parent.optional));
    const objText = src(this.text, strip(node.object));
    if (o.kind === 'match') {
      if (this.handled(node, ancestors, fn) || this.collectionTested(fn, node.object)) return undefined;
      return { node, messageId: 'jsNoMatch', what: `group ${k} of a match`, origin: o.origin, group: `${strip(node.object).start}` };
    }
    if (!deref) return undefined;
    if (o.kind === 'split') {
      if (k < 1) return undefined;
      if (this.handled(node, ancestors, fn) || this.collectionTested(fn, node.object) || (o.source && this.separatorTested(fn, o.source))) return undefined;
      return { node, messageId: 'jsShortRead', what: `item ${k} of a split of`, origin: o.origin, group: `${strip(node.object).start}:${k}` };
    }
    if (o.kind !== 'data') return undefined;
    if (this.handled(node, ancestors, fn) || this.collectionTested(fn, node.object)) return undefined;
    return { node, messageId: 'jsShortRead', what: `item ${k} of`, origin: o.origin, group: `${objText}:${k}` };
  }

  /** Inside a `try` with a `catch` (in this function), or a promise chain with `.catch(…)`. */
  private handled(node: AnyNode, ancestors: readonly AnyNode[], fn: JsFunction): boolean {
    for (let i = ancestors.length - 1; i >= 0; i--) {
      const a = ancestors[i]!;
      if (a === fn) break;
      if (a.type === 'TryStatement' && a.handler && node.start >= a.block.start && node.end <= a.block.end) return true;
      if (a.type === 'MemberExpression' && propName(a) === 'catch') return true;
    }
    return false;
  }

  /** Does a test in `fn` (an `if`/`while`/ternary condition, a `&&`/`||`/`!` operand, an `expect`/`assert`
   *  argument) have an operand that satisfies `pred`? Operands are what the test compares or negates
   *  (`!x`, `x && …`, `x.length > 0`, `m === null`), not any sub-expression: `rows[0].name === "a"` tests
   *  `rows[0].name`, not `rows[0]`. */
  private tested(fn: JsFunction, pred: (n: AnyNode) => boolean, before = Infinity): boolean {
    const atoms = (n0: AnyNode, out: AnyNode[] = []): AnyNode[] => {
      const n = strip(n0);
      if (n.type === 'UnaryExpression' && n.operator === '!') atoms(n.argument, out);
      else if (n.type === 'LogicalExpression') { atoms(n.left, out); atoms(n.right, out); }
      else if (n.type === 'BinaryExpression' && /^[<>]=?$|^[!=]==?$/.test(n.operator)) { atoms(n.left, out); atoms(n.right, out); }
      else if (n.type === 'CallExpression' && n.callee.type === 'Identifier' && n.callee.name === 'Boolean') n.arguments.forEach((a) => atoms(a, out));
      else out.push(n);
      return out;
    };
    let hit = false;
    const rec = (n: AnyNode) => {
      if (hit || n.start > before) return;
      let tests: AnyNode[] = [];
      if (n.type === 'IfStatement' || n.type === 'WhileStatement' || n.type === 'ConditionalExpression') tests = [n.test];
      else if (n.type === 'LogicalExpression') tests = [n.left];
      else if (n.type === 'UnaryExpression' && n.operator === '!') tests = [n.argument];
      else if (n.type === 'CallExpression' && /^(expect|assert|ok|equal|strictEqual|invariant)$/.test(calleeName(n) ?? '')) tests = n.arguments;
      if (tests.some((t) => atoms(t).some(pred))) hit = true;
      if (!hit) forEachChild(n, rec);
    };
    rec(fn.body);
    return hit;
  }

  /** A length or truthiness test of the collection (`X.length`, `X[0]`, `X`, `!X`) — by its text, or its
   *  identifier's name when it is one — anywhere in the function. */
  private collectionTested(fn: JsFunction, obj: AnyNode): boolean {
    const t = src(this.text, strip(obj));
    const same = (n: AnyNode) => src(this.text, strip(n)) === t;
    return this.tested(fn, (m) => same(m) || (m.type === 'MemberExpression' && same(m.object) && (propName(m) === 'length' || m.computed)))
      // `const [first] = …; if (!first)`, `.at(0)`, `for (const r of X)` uses are not index reads; `X.length` outside a test (`X.length === 0 ? …`) is a test too
      || this.mentions(fn, (m) => m.type === 'MemberExpression' && same(m.object) && propName(m) === 'length');
  }

  /** A test of the split text in the function: `s.includes(sep)`, `s.indexOf(sep) >= 0`, `s.startsWith(…)`, `/re/.test(s)`, `s.match(…)`. */
  private separatorTested(fn: JsFunction, splitText: AnyNode): boolean {
    const t = src(this.text, strip(splitText));
    return this.tested(fn, (m) => {
      if (m.type !== 'CallExpression' || m.callee.type !== 'MemberExpression') return false;
      const nm = propName(m.callee);
      if (nm && /^(includes|indexOf|startsWith|endsWith|match|search)$/.test(nm) && src(this.text, strip(m.callee.object)) === t) return true;
      return nm === 'test' && m.arguments.some((a) => src(this.text, strip(a)) === t);
    });
  }

  private mentions(fn: JsFunction, pred: (n: AnyNode) => boolean): boolean {
    let hit = false;
    const rec = (n: AnyNode) => {
      if (hit) return;
      if (pred(n)) { hit = true; return; }
      forEachChild(n, rec);
    };
    rec(fn.body);
    return hit;
  }
}

const cache = new WeakMap<Program, JsStateReads>();
export function jsStateReads(program: Program, text: string): JsStateReads {
  let r = cache.get(program);
  if (!r) cache.set(program, (r = new JsStateReads(program, text)));
  return r;
}

/** The functions of a module that `start` calls by name, transitively, with `start` itself. */
export function withSameFileCallees(program: Program, start: Iterable<Node>): Set<Node> {
  const sc = jsScopes(program);
  const out = new Set<Node>();
  const queue = [...start];
  while (queue.length) {
    const f = queue.pop()! as AnyNode;
    if (out.has(f)) continue;
    out.add(f);
    const rec = (n: AnyNode) => {
      if (n.type === 'CallExpression' && n.callee.type === 'Identifier') {
        const b = sc.resolve(n.callee);
        const d = b?.kind === 'function' ? b.decl : b?.init && isJsFunction(b.init) ? b.init : undefined;
        if (d && isJsFunction(d) && !out.has(d)) queue.push(d);
      }
      forEachChild(n, rec);
    };
    if (isJsFunction(f)) rec(f.body);
  }
  return out;
}
