/**
 * judge-reply-parsing — an LLM judge's free-text reply turned into a verdict by looking for a word in
 * it (issue 28, class 6):
 *
 * - `containsVerdict`: the verdict passes when the reply contains a word (`"correct" in reply`,
 *   `reply.find("yes") != -1`, `re.search("same", reply)`): "incorrect", "not correct", "partially
 *   correct" contain it too, so the order of the tests, not the judge, decides;
 * - `defaultPass`: only failure words are looked for (`if "incorrect" in reply: return 0`) and any
 *   other reply — "wrong", "no", an error message, an empty string — passes;
 * - `assertedWord`: the reply is asserted to contain a word, so unexpected wording crashes the
 *   grading instead of failing or passing the task.
 *
 * The reply is recognised by where it comes from (src/lang/python/llm-reply.ts: a model client's call,
 * through `.lower()`, `.choices[0].message.content`, copies and project helpers), never by its name.
 * `substring-verdict` leaves these replies to this rule.
 */
import { defineRule, type PythonVisitor } from '../../src/contract/rule.js';
import type { ControlCaseRequest } from '../../src/core/types.js';
import type { PythonAnalysis } from '../../src/lang/python/types.js';
import { comparisonOperators, field, named, unparen, walk, type PyNode } from '../../src/lang/python/tree.js';
import { llmReply } from '../../src/lang/python/llm-reply.js';
import { isVerdictFunction, pythonVerdictShapes } from '../../src/suites/verdict.js';
import { pyConst, verdictTruth } from '../../src/suites/verdict-shape.js';
import { verdictPolarity } from '../../src/suites/verdict-polarity.js';
import { emptyJudgements } from './empty-judgements.js';

type Msg = 'containsVerdict' | 'defaultPass' | 'assertedWord' | 'emptyJudgements';
type Ctx = Parameters<PythonVisitor<Msg>>[1];

interface Containment {
  node: PyNode;
  word: string;
  /** The model call the reply came from. */
  reply: PyNode;
  /** The tested text (`response.lower()`, `words`). */
  hay: PyNode;
  /** True when the test is true if the reply contains the word. */
  positive: boolean;
  /** The reply was split into words or lines first (`w in reply.split()`): a longer word no longer holds it. */
  tokens: boolean;
}

const NEGATED: Record<string, string> = {
  correct: 'incorrect', relevant: 'irrelevant', complete: 'incomplete', consistent: 'inconsistent', valid: 'invalid',
  accurate: 'inaccurate', acceptable: 'unacceptable', successful: 'unsuccessful', satisfied: 'unsatisfied', resolved: 'unresolved',
  appropriate: 'inappropriate', sufficient: 'insufficient', possible: 'impossible', legal: 'illegal', safe: 'unsafe', true: 'untrue',
  match: 'mismatch', matches: 'mismatches', achieved: 'unachieved', solved: 'unsolved', equivalent: 'not equivalent', same: 'not the same',
  yes: 'no (it would be yes only if the totals matched)', pass: 'did not pass', passed: 'not passed', success: 'no success',
};

function literal(a: PythonAnalysis, n: PyNode): string | undefined {
  const c = pyConst(a, n);
  return c.kind === 'string' ? c.value : undefined;
}

/** `W in R`, `W not in R`, `R.find(W) != -1`, `R.count(W)`, `re.search("W", R)` on a model's reply R. */
function containment(c: Ctx, n: PyNode): Containment | undefined {
  const a = c.python;
  if (n.type === 'comparison_operator') {
    const ops = comparisonOperators(n);
    const [l, r] = named(n);
    if (ops.length === 1 && l && r && (ops[0] === 'in' || ops[0] === 'not in')) {
      const word = literal(a, l);
      const reply = word !== undefined ? llmReply(a, r, c.project.python) : undefined;
      if (word !== undefined && reply) return { node: n, word, reply, hay: r, positive: ops[0] === 'in', tokens: split(a, r) };
      return undefined;
    }
    // R.find(W) != -1 / >= 0 / == -1
    if (ops.length === 1 && l?.type === 'call' && r) {
      const m = methodCall(a, l, ['find', 'index']);
      const k = a.src(unparen(r)).replace(/\s+/g, '');
      if (m && (ops[0] === '!=' || ops[0] === '>' || ops[0] === '>=' || ops[0] === '==') && (k === '-1' || k === '0')) {
        const positive = ops[0] === '==' ? false : !(ops[0] === '>' && k === '0');
        return m.reply ? { node: n, word: m.word, reply: m.reply, hay: m.hay, positive, tokens: false } : undefined;
      }
    }
    return undefined;
  }
  if (n.type === 'call') {
    const m = methodCall(a, n, ['count']);
    if (m?.reply) return { node: n, word: m.word, reply: m.reply, hay: m.hay, positive: true, tokens: false };
    // re.search("word", reply) with no anchors
    const q = a.qualifiedName(field(n, 'function') ?? n);
    if (q === 're.search' || q === 're.findall') {
      const [p, s] = named(field(n, 'arguments') ?? n);
      const word = p ? literal(a, p) : undefined;
      const reply = s && word !== undefined && /^[\p{L}\p{N} _-]+$/u.test(word) ? llmReply(a, s, c.project.python) : undefined;
      if (word !== undefined && reply && s) return { node: n, word, reply, hay: s, positive: true, tokens: false };
    }
  }
  return undefined;

  function methodCall(a: PythonAnalysis, call: PyNode, names: string[]): { word: string; reply?: PyNode; hay: PyNode } | undefined {
    const f = field(call, 'function');
    if (f?.type !== 'attribute' || !names.includes(a.src(field(f, 'attribute') ?? f))) return undefined;
    const arg = named(field(call, 'arguments') ?? call)[0];
    const word = arg ? literal(a, arg) : undefined;
    const hay = field(f, 'object') ?? f;
    return word === undefined ? undefined : { word, reply: llmReply(a, hay, c.project.python), hay };
  }
}

/** The value is a split of text into words or lines (`reply.split()`, a local holding one). */
function split(a: PythonAnalysis, n: PyNode, depth = 0): boolean {
  const e = unparen(n);
  if (depth > 3) return false;
  if (e.type === 'call') {
    const f = field(e, 'function');
    return f?.type === 'attribute' && ['split', 'splitlines'].includes(a.src(field(f, 'attribute') ?? f));
  }
  return e.type === 'identifier' && a.valueSources(e).some((v) => v !== e && split(a, v, depth + 1));
}

/** Replies that fail the task but contain `word`: its negation, and longer phrases the function or module writes. */
function failingReplies(a: PythonAnalysis, word: string, tokens: boolean): string[] {
  const w = word.trim().toLowerCase();
  if (tokens) return [`not ${w}`];
  const out = new Set<string>();
  if (NEGATED[w]) out.add(NEGATED[w]!);
  walk(a.ast, (k) => {
    if (out.size >= 3) return false;
    if (k.type !== 'string') return undefined;
    const s = (literal(a, k) ?? '').toLowerCase();
    // a longer word or phrase of the prompt that holds the word: "incorrect", "partially correct"
    for (const m of s.matchAll(new RegExp(`[\\p{L}-]*(?:\\s+)?[\\p{L}-]*${w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}[\\p{L}-]*`, 'gu'))) {
      const phrase = m[0].trim();
      if (phrase !== w && phrase.length <= 30 && /^(?:\p{L}+\s)?\p{L}*$/u.test(phrase.replace(/-/g, '')) && (phrase.split(/\s+/).length === 2 ? /^(not|partially|partly|in|un|non)\b/.test(phrase) : true)) out.add(phrase);
    }
    return undefined;
  });
  if (!out.size) out.add(`not ${w}`);
  return [...out].slice(0, 3);
}

/** The name a chain of method calls, attributes and indexes starts from (`reply` in `reply.lower().split()[0]`). */
function receiverRoot(n: PyNode): PyNode {
  let root = unparen(n);
  for (let i = 0; i < 12; i++) {
    const f = root.type === 'call' ? field(root, 'function') : undefined;
    const next = f?.type === 'attribute' ? field(f, 'object') : root.type === 'attribute' ? field(root, 'object') : root.type === 'subscript' ? field(root, 'value') : undefined;
    if (!next) break;
    root = unparen(next);
  }
  return root;
}

/** The control case: when the reply is a parameter of the flagged function, the oracle calls it with `reply`. */
function control(c: Ctx, n: PyNode, t: Containment, reply: string, expect: 'pass' | 'raise'): ControlCaseRequest | undefined {
  const a = c.python;
  const fn = a.functionAt(n);
  if (!fn) return undefined;
  // `words = reply.lower().split()`: back to the parameter
  let root = receiverRoot(t.hay);
  for (let i = 0; i < 4 && root.type === 'identifier' && !fn.params.includes(a.src(root)); i++) {
    const v = a.valueSources(root).find((x) => x !== root);
    if (!v) break;
    root = receiverRoot(v);
  }
  const params = fn.classNode ? fn.params.slice(1) : fn.params;
  const param = root.type === 'identifier' ? params.indexOf(a.src(root)) : -1;
  return { oracle: 'judge-reply-parsing', file: a.path, line: a.line(n), qualname: fn.qualname, param, reply, expect };
}

function verdictFn(c: Ctx, n: PyNode): boolean {
  const fn = c.python.functionAt(n);
  return !!fn && (isVerdictFunction(c.project, c.python.path, fn) ?? true);
}

const quote = (s: string) => `"${s}"`;

/** A later statement of the block that tests the reply in the pass direction or asserts on it. */
function testsReplyAgain(c: Ctx, stmts: PyNode[], reply: PyNode): boolean {
  const replyText = c.python.src(reply);
  let hit = false;
  for (const s of stmts)
    walk(s, (k) => {
      if (hit) return false;
      if (k.type === 'assert_statement') hit = true;
      const t = containment(c, k);
      if (t && c.python.src(t.reply) === replyText) hit = true;
      if (k.type === 'comparison_operator' && comparisonOperators(k).some((o) => o === '==' || o === '!=') && named(k).some((x) => llmReply(c.python, x, c.project.python))) hit = true;
      return undefined;
    });
  return hit;
}

/** After an `if` that fails the agent when the reply contains a failure word: the first statement that
 *  returns, when it returns a passing constant with no other test of the reply before it. */
function defaultPassAfter(c: Ctx, t: Containment): PyNode | undefined {
  const a = c.python;
  let ifNode: PyNode | undefined;
  for (let p = t.node.parent; p; p = p.parent) {
    if (p.type === 'if_statement' || p.type === 'elif_clause') {
      ifNode = p;
      break;
    }
    if (!['boolean_operator', 'parenthesized_expression', 'not_operator'].includes(p.type)) return undefined;
  }
  if (!ifNode) return undefined;
  const stmt = ifNode.type === 'elif_clause' ? ifNode.parent : ifNode;
  if (!stmt) return undefined;
  // one finding per chain: at its first failing containment test
  const conds = [field(stmt, 'condition'), ...stmt.children.filter((k) => k.type === 'elif_clause').map((k) => field(k, 'condition'))];
  let first: PyNode | undefined;
  for (const cond of conds)
    if (cond && !first)
      walk(cond, (k) => {
        if (!first && containment(c, k)) first = k;
        return !first;
      });
  if (first !== t.node) return undefined;
  const els = stmt.children.find((k) => k.type === 'else_clause');
  const later = els ? named(field(els, 'body') ?? els) : (() => {
    const sibs = named(stmt.parent ?? stmt);
    return sibs.slice(sibs.indexOf(stmt) + 1);
  })();
  const elifs = stmt.children.filter((k) => k.type === 'elif_clause');
  // an elif that tests the reply in the pass direction decides before the fallthrough
  for (const e of elifs) if (e !== ifNode && testsReplyAgain(c, [field(e, 'condition') ?? e], t.reply)) return undefined;
  const retIdx = later.findIndex((s) => s.type === 'return_statement');
  if (retIdx < 0) return undefined;
  const ret = later[retIdx]!;
  const v = named(ret)[0];
  if (!v || verdictTruth(pyConst(a, v), pythonVerdictShapes(c.project)) !== true) return undefined;
  if (testsReplyAgain(c, later.slice(0, retIdx), t.reply)) return undefined;
  return ret;
}

export default defineRule<Msg>({
  meta: {
    id: 'judge-reply-parsing',
    description: 'An LLM judge\'s free-text reply turned into a verdict by a substring test (`"correct" in reply` is true for "incorrect"), by looking only for failure words (any other reply passes), or by asserting that it contains a word.',
    defaultSeverity: 'warn',
    layers: ['python'],
    languages: ['python'],
    messages: {
      containsVerdict: {
        what: '`{{test}}` passes the task whenever the judge\'s reply contains {{word}}.',
        why: 'A reply that rejects the answer holds the word too ({{failing}}), and judges that reason before concluding often write it, so the order of the tests decides the verdict, not the judge.',
        fix: 'Ask for a fixed answer and compare the whole reply (`reply.strip().lower() == "correct"`), parse a structured verdict (JSON, a `Verdict: …` line with word boundaries), and fail on anything else.',
      },
      defaultPass: {
        what: 'Only failure words are looked for in the judge\'s reply (`{{test}}`); any other reply reaches `{{verdict}}`.',
        why: 'A reply in other words ("wrong", "no", "not matching"), an error message or an empty reply passes the task.',
        fix: 'Pass only on an explicit passing answer (compared whole, or parsed from a structured verdict) and fail on everything else.',
      },
      emptyJudgements: {
        what: '`{{test}}` passes when every judgement listed in the model\'s reply (`{{list}}`) holds, and nothing checks that the reply lists one judgement per assertion.',
        why: '`all()` of nothing is True: a reply without that list, with an empty one, or with fewer items than there are assertions passes every assertion it left out.',
        fix: 'Compare the number of judgements with the number of assertions (and match them by assertion) and fail or retry the judge when they differ.',
      },
      assertedWord: {
        what: '`{{test}}` asserts that the judge\'s reply holds an expected word.',
        why: 'When the judge words its answer differently the grading crashes with an AssertionError: the task gets no verdict, or the harness turns the crash into a score of its own.',
        fix: 'Treat an unexpected reply as a failed (or unparsable, retried) judgement instead of asserting on it.',
      },
    },
    confirm: {
      oracle: 'judge-reply-parsing',
      description: 'When the reply is a parameter of the flagged function, calls it with a failing reply that holds the word (or, for a missing verdict word, a reply in other words): a passing verdict, or an AssertionError at the assert, confirms.',
    },
    docs: {
      whatItDoes:
        'Recognises a language model\'s reply by where it comes from — a call of a model client (`openai`, `anthropic`, `litellm`, `google.generativeai`, `langchain…`, a `chat.completions.create`/`messages.create`/`generate_content`/`completion` method, a call given `messages=` and `model=`, a method of a client such a package built, or a project function returning one), through `.lower()`/`.strip()`/`.split()`, `.choices[0].message.content`-style reads, copies, and parameters a same-file caller fills with a reply. On a verdict path (any function when no task entry is bound) flags a containment test of the reply (`"w" in reply`, `reply.find("w") != -1`, `reply.count("w")`, `re.search("w", reply)` with a plain word) that passes the task when it holds; a containment test that fails the task, inside an `if` whose fallthrough (its `else`, or the statements after it) returns a passing constant with no other test of the reply; and an `assert` on the reply. Also flags `all(…)` deciding the verdict over the judgements listed in the reply parsed as JSON (`json.loads(reply).get("results", [])`, `["results"]`, through comprehensions, locals and the returns of a same-class method or same-file function) when the function that decides never tests their number (a length test, a count of them such as `sum(1 for v in items if v["ok"])` compared with something, a project helper in a test that tests the length of what it is passed, or a `jsonschema.validate` of the parsed reply with a `minItems` bound count as such a test): a reply without the list, or with fewer items, passes every assertion it left out.',
      why: 'WebArena-family graders asked a model to "conclude the judgement by correct/incorrect/partially correct" and then tested `"correct" in response`, which holds for "incorrect" and "partially correct", or tested only the failure words and asserted the rest: a judge that reasons before it concludes, or answers in other words, flips the verdict or crashes the run.',
    },
  },
  create() {
    return {
      python: {
        comparison_operator(n, c) {
          check(n, c);
        },
        call(n, c) {
          check(n, c);
          if (!verdictFn(c, n)) return;
          const e = emptyJudgements(c.python, n, c.project.python);
          if (e) c.report({ messageId: 'emptyJudgements', data: { test: c.python.src(n).replace(/\s+/g, ' ').slice(0, 80), list: c.python.src(e.list).replace(/\s+/g, ' ').slice(0, 60) }, at: n });
        },
        assert_statement(n, c) {
          const cond = named(n)[0];
          if (!cond || !verdictFn(c, n)) return;
          let t: Containment | undefined;
          walk(cond, (k) => {
            t ??= containment(c, k);
            return !t;
          });
          if (t) c.report({ messageId: 'assertedWord', data: { test: c.python.src(n).replace(/\s+/g, ' ').slice(0, 80) }, at: n, control: control(c, n, t, 'The answer is wrong.', 'raise') });
        },
      },
    };
  },
});

function check(n: PyNode, c: Ctx): void {
  const a = c.python;
  // an assert is reported as such
  for (let p = n.parent; p && p.type !== 'function_definition'; p = p.parent) if (p.type === 'assert_statement') return;
  const t = containment(c, n);
  if (!t || !verdictFn(c, n)) return;
  const pol = verdictPolarity(a, n, pythonVerdictShapes(c.project), { assignedVerdict: true });
  if (pol === undefined) return;
  const test = a.src(n).replace(/\s+/g, ' ');
  if (pol === t.positive) {
    const failing = failingReplies(a, t.word, t.tokens);
    c.report({ messageId: 'containsVerdict', data: { test: test.length > 60 ? `${test.slice(0, 57)}...` : test, word: quote(t.word), failing: failing.map(quote).join(', ') }, at: n, control: control(c, n, t, failing[0]!, 'pass') });
    return;
  }
  const ret = defaultPassAfter(c, t);
  if (!ret) return;
  c.report({ messageId: 'defaultPass', data: { test: test.length > 60 ? `${test.slice(0, 57)}...` : test, verdict: a.src(ret) }, at: n, control: control(c, n, t, 'The answer is wrong.', 'pass') });
}
