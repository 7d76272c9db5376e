/**
 * lambda-arity — an embedded lambda whose parameters cannot bind the
 * arguments the verifier calls it with (key: 1; find and pred: 2).
 */
import { defineRule } from '../../src/contract/rule.js';
import { acceptsPositional, describeParams, isRootLambda, lambdaParams } from '../../src/suites/lambda.js';

type Msg = 'arity';

export default defineRule<Msg>({
  meta: {
    id: 'lambda-arity',
    description: 'An embedded lambda whose parameter list cannot take the arguments the verifier passes.',
    defaultSeverity: 'error',
    layers: ['python'],
    unitLocal: true,
    languages: ['json'],
    confirm: {
      oracle: 'lambda-arity',
      description: "Calls the lambda with the host's Python as the verifier calls it (1 or 2 positional arguments); confirmed when the arguments do not bind (TypeError).",
    },
    messages: {
      arity: {
        what: 'The `{{role}}` lambda takes {{takes}}, but the verifier calls it with {{expected}} positional argument{{plural}}.',
        why: 'Every call raises TypeError, so the check fails (or is swallowed into a verdict) for every agent.',
        fix: 'Declare exactly {{expected}} parameter{{plural}}, e.g. `{{example}}`.',
      },
    },
    docs: {
      whatItDoes:
        'Counts the parameters of each lambda embedded in `key` (called with the state, 1 argument), `find` and `pred` (called with key and value, 2 arguments): required and defaulted positional parameters, `*args`, and keyword-only parameters that a positional call cannot fill.',
      why: 'A lambda with the wrong arity raises TypeError when the verifier calls it. The check can then never pass (or, behind an exception-swallowing wrapper, silently returns a constant verdict), so the task does not measure the agent.',
    },
  },
  create(ctx) {
    // lambdas embedded in task JSON only: subscribe to nothing in .py files (the central pass then skips them)
    if (ctx.unit.layer === 'python' && !ctx.unit.embedded) return {};
    return {
      python: {
        lambda(node, ctx) {
          const code = ctx.unit.embedded;
          if (!code || code.language !== 'python' || code.expectedArity === undefined || !isRootLambda(node)) return;
          const p = lambdaParams(node);
          const n = code.expectedArity;
          if (acceptsPositional(p, n)) return;
          const params = node.childForFieldName('parameters');
          const at = params ?? node.child(0) ?? node;
          const example = n === 1 ? 'lambda key: …' : n === 2 ? 'lambda key, value: …' : `lambda ${Array.from({ length: n }, (_, i) => `a${i}`).join(', ')}: …`;
          ctx.report({ messageId: 'arity', data: { role: code.role, takes: describeParams(p), expected: n, plural: n === 1 ? '' : 's', example }, at, control: { oracle: 'lambda-arity', code: code.code, arity: n } });
        },
      },
    };
  },
});
