/**
 * task-schema — a task file that does not match its family's JSON Schema
 * (schemas/tasks/<Family>.schema.json): missing or mistyped fields, entry
 * kinds the family's verifier does not grade, duplicate members, misspelt
 * field names.
 */
import { defineRule } from '../../src/contract/rule.js';
import { validateTask, type SchemaProblemKind } from '../../src/suites/schema.js';

export default defineRule<SchemaProblemKind>({
  meta: {
    id: 'task-schema',
    description: 'Task JSON that does not match its family schema: missing or mistyped fields, unknown entry kinds, duplicates, misspelt names.',
    defaultSeverity: 'error',
    layers: ['suite'],
    languages: ['json'],
    messages: {
      missingField: {
        what: 'Required field "{{field}}" is missing from {{where}}, and {{source}}.',
        why: 'Grading this entry raises (KeyError, or the task is rejected when it loads) instead of checking the agent\'s work.',
        fix: 'Add "{{field}}".',
      },
      missingOneOf: {
        what: 'None of {{fields}} is present in {{where}}.',
        why: 'The verifier needs one of them to know what to compare, so the entry cannot be graded as written.',
        fix: 'Add one of {{fields}}.',
      },
      wrongType: {
        what: '"{{field}}" in {{where}} is {{actual}}, but the schema expects {{expected}}.',
        why: 'The verifier misreads it (or raises TypeError) and the verdict is not about the task.',
        fix: 'Write it as {{expected}}.',
      },
      unknownKind: {
        what: 'Entry kind "{{kind}}" is not one that {{family}} verifiers grade ({{kinds}}).',
        why: 'The dispatcher finds no `_eval_{{kind}}`, so the entry errors or is skipped and the task passes or fails for the wrong reason.',
        fix: 'Use one of {{kinds}}.',
      },
      unknownFamily: {
        what: 'Task family "{{family}}" is not one the suite knows ({{families}}).',
        why: 'No verifier is bound to it, so none of its entries is graded as intended.',
        fix: 'Use one of the known families or add an adapter for this one.',
      },
      emptyValue: {
        what: '"{{field}}" in {{where}} is empty.',
        why: 'An empty value makes the check vacuous or broken, so the benchmark grades nothing here.',
        fix: 'Give it the content the schema requires.',
      },
      duplicateMember: {
        what: '"{{field}}" appears {{times}} in {{where}}.',
        why: 'JSON readers keep only the last one, so this earlier value is silently ignored.',
        fix: 'Remove one of them.',
      },
      unknownField: {
        what: '"{{field}}" in {{where}} is not a field this entry kind uses — probably a misspelling of "{{guess}}".',
        why: 'The verifier never reads it, so the intended check silently does not happen.',
        fix: 'Rename it to "{{guess}}".',
      },
      invalid: {
        what: 'Invalid value in {{where}} ({{detail}}).',
        why: 'The task\'s set-up or grading fails on it, so the task is not graded as written.',
        fix: 'Fix the value to match the family schema.',
      },
    },
    docs: {
      whatItDoes:
        'Validates each task against the JSON Schema of its family (schemas/tasks/<Family>.schema.json, draft 2020-12, ajv): required fields per entry kind, field types, the entry kinds each family grades (Celestia info/stop; ChimeraX states/file/info/stop; GrassGIS info/db/stop; KAlgebra eqn/val/var/stop; Lean placeholder; TeXstudio compile/file/include/stop). Also reports duplicate members (JSON keeps the last) and member names one or two edits away from a known field. One finding per real problem, at its exact JSON pointer. Members named `//…` are comments and always allowed.',
      why: 'A malformed entry is not graded as its author meant: a missing `value` or `args`, an unknown kind, or a misspelt `pred` makes the verifier crash, skip the check, or compare against nothing — and an exception-swallowing verifier turns that into a silent verdict.',
    },
    confirm: {
      oracle: 'task-schema',
      staticOnly: true,
      positional: true,
      description: 'No control case: the task file\'s structure against its family\'s schema is the evidence, and a grader fed a malformed task fails on the task, not on the agent\'s work; every finding is `unsupported`, saying so and what to fix.',
    },
  },
  create() {
    return {
      suite: {
        task(task, ctx) {
          // the family schemas describe the reference format; OSWorld-family tasks are checked by evaluator-dispatch, other adapters' tasks have no family schema
          if (task.suite.adapter !== 'reference') return;
          for (const p of validateTask(task, { python: ctx.project.python, root: ctx.project.root })) {
            ctx.report({ messageId: p.kind, data: p.data, at: { start: p.start, end: p.end }, pointer: p.pointer });
          }
        },
      },
    };
  },
});
