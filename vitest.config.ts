import { defineConfig } from 'vitest/config';

/**
 * Two projects: `fast` (the default `npm test`, the edit loop: unit, rule fixtures, executed docs,
 * CLI basics) and `slow` (tests that start many real processes: control cases, the hostile host
 * battery, the language server, pre-commit, SARIF validation, the real corpora). `npm run test:all`
 * and `.ci/run` run both. Speed is measured in bench/, never asserted in a test.
 */
const slow = [
  'test/cli-bundle.test.ts',
  'test/confirm-bundle.test.ts',
  'test/confirm-fixtures.test.ts',
  'test/confirm-corpus.test.ts',
  'test/host-hostile.test.ts',
  'test/hostile-suite.test.ts',
  'test/hostile-shapes.test.ts',
  'test/size-limits.test.ts',
  'test/baseline-cli.test.ts',
  'test/cli-changed.test.ts',
  'test/cli-shard-merge.test.ts',
  'test/lsp-server.test.ts',
  'test/lsp-perf.test.ts',
  'test/lsp-parity.test.ts',
  'test/lsp-reach-reuse.test.ts',
  'test/session-index-reuse.test.ts',
  'test/sarif-validate.test.ts',
  'test/precommit-hook.test.ts',
  'test/install.test.ts',
  'test/report-audit.test.ts',
  'test/cli-confirm-summary.test.ts',
  'test/confirm-honest-statuses.test.ts',
  'test/confirm-suite-inputs.test.ts',
  'test/confirm-stand-in-files.test.ts',
  'test/confirm-documented-config.test.ts',
  'test/confirm-match-read.test.ts',
  'test/cli-docs-hints.test.ts',
  'test/cli-init.test.ts',
  'test/cli-related.test.ts',
  'test/corpora/**/*.test.ts',
  'test/readme-configs.test.ts',
  'test/python-parsers.test.ts',
  'test/python-incremental-parse.test.ts',
  'test/vacuous-verdict-confirm.test.ts',
  'test/test-status-verdict-confirm.test.ts',
  'test/judge-reply-parsing-confirm.test.ts',
  'test/verdict-composition-confirm.test.ts',
  'test/expected-load-confirm.test.ts',
  'test/control-flow-slip-confirm.test.ts',
  'test/unset-dependency-confirm.test.ts',
  'test/suite-osworld.test.ts',
  'test/regex-redos-load.test.ts',
  'test/time-dependent-confirm.test.ts',
  'test/float-equality-confirm.test.ts',
  'test/substring-verdict-confirm.test.ts',
  'test/evaluator-dispatch-confirm.test.ts',
  'test/regex-redos-confirm.test.ts',
  'test/lambda-arity-confirm.test.ts',
  'test/replace-not-unique-confirm.test.ts',
  'test/ignored-exit-code-confirm.test.ts',
  'test/undeclared-tool-confirm.test.ts',
  'test/init-missing-confirm.test.ts',
  'test/ans-mismatch-confirm.test.ts',
];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    projects: [
      { extends: true, test: { name: 'fast', include: ['test/**/*.test.ts'], exclude: slow } },
      // Generous bounds: these start real processes, and a loaded machine (two CI runs at once) is slow.
      { extends: true, test: { name: 'slow', include: slow, testTimeout: 120_000, hookTimeout: 120_000 } },
    ],
  },
});
