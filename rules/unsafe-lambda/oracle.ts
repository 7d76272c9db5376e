/**
 * Oracle `unsafe-lambda`: no control case. The finding is a safety claim, not a verdict claim: the
 * task-authored lambda reaches beyond its arguments (an import, a dunder, a file, exec, the interpreter)
 * when the verifier evals it on the host, whether or not it grades correctly. Running it would do what
 * the finding warns about; under vaudit's guard the reach is refused, which shows the guard, not a wrong
 * verdict. Whether the lambda's verdict is right is what the verdict rules' control cases check
 * (first-match-lambda, lambda-arity, lambda-syntax). So every finding is `unsupported`, saying so and what
 * to do.
 *
 * finding.control: none (positional: a JSON finding of this rule gets this answer).
 */
import type { Oracle } from '../../src/confirm/oracle-kit.js';

const oracle: Oracle = {
  id: 'unsafe-lambda',
  async plan() {
    return {
      status: 'unsupported',
      detail:
        'no run can show this: it is a safety finding, not a verdict claim (the lambda may grade correctly and still reach the host when the verifier evals it), ' +
        'and running it would do the very thing it warns about. Rewrite the lambda to use only its arguments and plain operations; its verdict is checked by the lambda rules\' control cases',
    };
  },
};
export default oracle;
