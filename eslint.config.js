// ESLint for vaudit's own code (npm run lint). typescript-eslint's recommended rules without type
// information (fast), plus a few that catch real mistakes in a linter's code base.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'rules/*/fixtures/**', 'rules/*/docs/**', 'fixtures/**', '.ci/**', 'bench/fuzz/out/**'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: 'module',
      globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly', URL: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', setImmediate: 'readonly', performance: 'readonly', structuredClone: 'readonly', TextDecoder: 'readonly', TextEncoder: 'readonly', AbortController: 'readonly', queueMicrotask: 'readonly', WebAssembly: 'readonly', globalThis: 'readonly' },
    },
    rules: {
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      'no-var': 'error',
      'prefer-const': ['error', { destructuring: 'all' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports', disallowTypeAnnotations: false }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  {
    // No function over 150 lines in the product (issue 15); `node scripts/long-functions.mjs` measures
    // the same with the TypeScript API and lists the offenders.
    files: ['src/**/*.ts', 'rules/*/*.ts'],
    rules: { 'max-lines-per-function': ['error', { max: 150, skipBlankLines: false, skipComments: false, IIFEs: true }] },
  },
  {
    // Tests poke at untyped JSON reports and strip terminal escapes on purpose.
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off', 'no-control-regex': 'off' },
  },
  {
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // bin/ is CommonJS (bin/package.json): the entry point starts without Node's ES module loader
    files: ['bin/**/*.js'],
    languageOptions: { sourceType: 'commonjs', globals: { require: 'readonly', module: 'writable', __dirname: 'readonly' } },
  },
);
