/**
 * undeclared-tool — a run names a tool the check does not declare, or binds itself to another check
 * (seed 000: "An id outside the resolved inventory is an authoring defect that throws"; "Bind each call
 * to its case and its checkId").
 */
import { defineRule } from '../../src/contract/rule.js';

type Msg = 'toolNotDeclared' | 'checkIdMismatch' | 'missingMember';

export default defineRule<Msg>({
  meta: {
    id: 'undeclared-tool',
    description: 'A `runtime.tools.run` names a `toolId` missing from the check\'s `requiredTools`, or a `checkId` that is not the check\'s id.',
    defaultSeverity: 'error',
    layers: ['bundle'],
    languages: ['typescript', 'javascript'],
    messages: {
      toolNotDeclared: {
        what: 'Tool `{{tool}}` is not in check `{{check}}`\'s requiredTools ({{tools}}).',
        why: 'The host resolves only declared tools, so this run throws as an authoring defect (or depends on a tool nobody pinned under .toolchain).',
        fix: 'Add `{{tool}}` to `requiredTools`, or run a declared tool.',
      },
      checkIdMismatch: {
        what: 'This run is bound to checkId `{{given}}`, but it runs inside check `{{check}}`.',
        why: 'The host records the run under the wrong check, so `{{check}}` has no run of its own and its verdict is ungrounded while `{{given}}` is credited with a run it did not make.',
        fix: 'Pass `checkId: \'{{check}}\'`.',
      },
      missingMember: {
        what: 'This `runtime.tools.run(...)` in check `{{check}}` has no `{{member}}`.',
        why: 'The host binds every run to a declared tool and to its check; without it the run is rejected or unbound.',
        fix: 'Pass `{{member}}` explicitly.',
      },
    },
    docs: {
      whatItDoes:
        'Compares each run\'s `toolId` (resolved through constants, aliases and helper parameters) with the enclosing check\'s `requiredTools`, its `checkId` with the check\'s `id`, and flags runs that omit either member.',
      why: 'A tool id outside the inventory is not resolved, hashed or pinned: the run fails as an authoring defect, or worse, silently relies on whatever the machine has. A wrong `checkId` attributes the run to another check, leaving this check\'s verdict without a run.',
      references: ['seed 000: Tool authority', 'docs/bundles.md'],
    },
    confirm: {
      oracle: 'undeclared-tool',
      description: 'Runs evaluate in a Node child with a recording runtime port that binds runs as the host does; confirmed when the flagged run is rejected for a tool outside `requiredTools`, or is bound to another check.',
    },
  },
  create(ctx) {
    const seen = new Set<string>();
    const once = (k: string): boolean => (seen.has(k) ? false : (seen.add(k), true));
    return {
      bundle: {
        check(check) {
          const data = { check: check.id ?? '?', tools: check.requiredTools.length ? check.requiredTools.join(', ') : 'none declared' };
          for (const run of check.toolRuns) {
            if (!run.request || !run.requestResolved) continue;
            const control = (claim: 'tool' | 'checkId', extra: Record<string, string>) => ({
              oracle: 'undeclared-tool', file: ctx.unit.file.path, checkId: check.id ?? '', checkIndex: run.checkIndex, run: { start: run.start, end: run.end }, claim, ...extra,
            });
            if (!run.toolId) {
              if (once(`t${run.start}`)) ctx.report({ messageId: 'missingMember', data: { ...data, member: 'toolId' }, at: run.request, control: control('tool', {}) });
            } else if (run.toolId.value !== undefined && !check.requiredTools.includes(run.toolId.value)) {
              if (once(`t${run.toolId.start}:${check.index}`)) ctx.report({ messageId: 'toolNotDeclared', data: { ...data, tool: run.toolId.value }, at: run.toolId, control: control('tool', { tool: run.toolId.value }) });
            }
            if (!run.checkIdArg) {
              if (once(`c${run.start}`)) ctx.report({ messageId: 'missingMember', data: { ...data, member: 'checkId' }, at: run.request, control: control('checkId', {}) });
            } else if (run.checkIdArg.value !== undefined && check.id !== undefined && run.checkIdArg.value !== check.id) {
              if (once(`c${run.checkIdArg.start}:${check.index}`)) ctx.report({ messageId: 'checkIdMismatch', data: { ...data, given: run.checkIdArg.value }, at: run.checkIdArg, control: control('checkId', { given: run.checkIdArg.value }) });
            }
          }
        },
      },
    };
  },
});
