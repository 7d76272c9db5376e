/**
 * Oracle `task-schema`: no control case. The finding is the task file's own structure (a field missing,
 * mistyped, misspelt or duplicated, an entry kind the family does not grade) checked against the family's
 * schema; the schema is the evidence. A run would need the family's task loader and the entry's grader fed
 * a task that is not well formed, and what it does then (an assertion of the loader, a KeyError, a skipped
 * entry) is no verdict about the agent's work that a twin could be compared with. So every finding is
 * `unsupported`, saying so and what to do.
 *
 * finding.control: none (positional: a JSON finding of this rule gets this answer).
 */
import type { Oracle } from '../../src/confirm/oracle-kit.js';

const oracle: Oracle = {
  id: 'task-schema',
  async plan(ctx) {
    const what = (ctx.finding.parts?.what ?? ctx.finding.message).replace(/\.$/, '');
    return {
      status: 'unsupported',
      detail:
        `no run can show a verdict here: the task file itself does not match its family's schema (${what}), and the schema is the evidence; ` +
        'a grader fed a malformed task fails on the task, not on the agent\'s work. Fix the task file as the finding says and run `vaudit check` again: the entry is then checked (and confirmed) by the rules of the code that grades it',
    };
  },
};
export default oracle;
