/**
 * non-leaf-tool-input — an external check hands a tool bytes that are not leaves of the declared
 * projections (seed 000: "An external check's files and stdin must match string leaves or JSON from its
 * declared artifact and public-input projections").
 */
import { defineRule } from '../../src/contract/rule.js';
import type { RelatedLocation } from '../../src/core/types.js';

type Msg = 'nonLeaf';

export default defineRule<Msg>({
  meta: {
    id: 'non-leaf-tool-input',
    description: 'An external check passes a tool `files`/`stdin` bytes that are not string leaves (or JSON) of the declared artifact and public-input projections.',
    defaultSeverity: 'error',
    layers: ['bundle'],
    languages: ['typescript', 'javascript'],
    messages: {
      nonLeaf: {
        what: '{{what}} of the `{{tool}}` run in external check `{{check}}` is {{origin}}, not a leaf of the declared artifact or public-input projections.',
        why: 'The tool then judges bytes the check author wrote (the host records them as authored:derived), so its answer is not about the submission.',
        fix: 'Pass `artifact.files[...]`, a declared `publicInput` field or `JSON.stringify` of one — or declare the check `kind: \'authored\'` if it must build a driver or fixture.',
      },
    },
    docs: {
      whatItDoes:
        'Follows every `files` value and `stdin` of `runtime.tools.run(...)` in a check of kind `external` back to its origin — through aliases, destructuring (`const { files } = artifact`), loops over projections and helper functions in the same file — and flags values that are not `artifact.files[<declared name>]`, a declared `publicInput` field (or a string inside it) or `JSON.stringify` of one: string literals, templates, concatenations, bytes read from disk, imported constants, helper-built strings, transformed leaves (`.trim()`), undeclared files or fields.',
      why:
        'An external check exists to let a real tool judge the submission. Compiling the artifact against a header its author supplied, or feeding the tool a wrapped or rewritten copy, makes the verdict depend on authored bytes: the benchmark then grades the author\'s stand-in, not the submission.',
      references: ['seed 000: The cell (toolInputViolation)', 'docs/bundles.md'],
    },
    confirm: {
      oracle: 'non-leaf-tool-input',
      description: 'Runs the check\'s evaluate in a Node child with a recording runtime port on declared or generated cases; confirmed when a recorded run receives bytes whose origin is authored:derived.',
    },
  },
  create(ctx) {
    const seen = new Set<string>();
    return {
      bundle: {
        check(check) {
          if (check.kind !== 'external') return;
          for (const run of check.toolRuns) {
            for (const input of run.inputs) {
              if (input.origin.kind !== 'derived') continue;
              const key = `${input.start}:${input.end}:${input.origin.description}`;
              if (seen.has(key)) continue;
              seen.add(key);
              const related: RelatedLocation[] = [];
              const at = input.origin.at;
              if (at && (at.start < input.start || at.end > input.end)) {
                related.push({ file: ctx.unit.file.path, range: ctx.unit.file.source.range(at.start, at.end), message: 'The authored value comes from here.' });
              }
              ctx.report({
                messageId: 'nonLeaf',
                data: {
                  what: input.role === 'stdin' ? '`stdin`' : input.key !== undefined ? `File \`${input.key}\`` : 'A `files` entry',
                  tool: run.toolId?.value ?? run.toolId?.text ?? '?',
                  check: check.id ?? '?',
                  origin: input.origin.description,
                },
                at: { start: input.start, end: input.end },
                related,
                control: {
                  oracle: 'non-leaf-tool-input',
                  file: ctx.unit.file.path,
                  checkId: check.id ?? '',
                  checkIndex: run.checkIndex,
                  run: { start: run.start, end: run.end },
                  input: { role: input.role, key: input.key ?? null, start: input.start, end: input.end, how: input.origin.how ?? null },
                },
              });
            }
          }
        },
      },
    };
  },
});
