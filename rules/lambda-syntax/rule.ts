/**
 * lambda-syntax — Python code in a task's `key`/`find`/`pred` string that
 * does not parse, or is not a single lambda expression.
 */
import { defineRule } from '../../src/contract/rule.js';
import { firstSyntaxProblem, rootLambda } from '../../src/suites/lambda.js';

type Msg = 'syntax' | 'notLambda';

export default defineRule<Msg>({
  meta: {
    id: 'lambda-syntax',
    description: 'Embedded Python in key/find/pred that does not parse or is not one lambda expression.',
    defaultSeverity: 'error',
    layers: ['python'],
    languages: ['json'],
    confirm: { oracle: 'lambda-syntax',
      positional: true, description: "Compiles the lambda string with Python's own `compile(..., mode='eval')` in the host's interpreter; confirmed when it raises SyntaxError." },
    messages: {
      syntax: {
        what: 'The `{{role}}` lambda is not valid Python ({{detail}}).',
        why: 'The verifier\'s eval raises SyntaxError on every run, and an exception-swallowing verifier turns that into a silent failed check.',
        fix: 'Fix the syntax.',
      },
      notLambda: {
        what: 'The `{{role}}` code is {{found}}, not a single lambda expression.',
        why: 'The verifier calls what eval returns, so this raises an error (or tests something else) on every run.',
        fix: 'Write it as `{{example}}`.',
      },
    },
    docs: {
      whatItDoes:
        'Parses every Python string a verifier evals — `find` and `pred` (always code), and `key` when it starts with `lambda` — with tree-sitter, and reports the first syntax error at the exact characters in the JSON file (escapes included), or code that is not exactly one lambda expression (a bare expression, a tuple, two statements).',
      why: 'The verifier evals these strings on the host and calls the result. Code that does not parse, or does not evaluate to a function, makes every run raise; wrapped in an error-swallowing decorator the task silently fails for every agent, however good the answer.',
    },
  },
  create(ctx) {
    // lambdas embedded in task JSON only: subscribe to nothing in .py files (the central pass then skips them)
    if (ctx.unit.layer === 'python' && !ctx.unit.embedded) return {};
    return {
      python: {
        module(root, ctx) {
          const code = ctx.unit.embedded;
          if (!code || code.language !== 'python') return;
          const role = code.role;
          const problem = firstSyntaxProblem(ctx.text, root);
          if (problem) {
            ctx.report({ messageId: 'syntax', data: { role, detail: problem.detail }, at: { start: problem.start, end: problem.end } });
            return;
          }
          if (rootLambda(root)) return;
          const stmts = root.namedChildren.filter((c) => c !== null && c.type !== 'comment');
          let found = 'empty';
          if (stmts.length > 1) found = `${stmts.length} statements`;
          else if (stmts[0]?.type === 'expression_statement') {
            const exprs = stmts[0].namedChildren.filter((c) => c !== null && c.type !== 'comment');
            found = exprs.length > 1 ? 'a tuple' : `a ${(exprs[0]?.type ?? 'statement').replace(/_/g, ' ')}`;
          } else if (stmts[0]) found = `a ${stmts[0].type.replace(/_/g, ' ')}`;
          const example = (code.expectedArity ?? 1) >= 2 ? 'lambda key, value: …' : 'lambda key: …';
          const start = ctx.text.length - ctx.text.trimStart().length;
          ctx.report({ messageId: 'notLambda', data: { role, found, example }, at: { start, end: Math.max(start + 1, ctx.text.trimEnd().length) } });
        },
      },
    };
  },
});
