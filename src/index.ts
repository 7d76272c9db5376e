/** vaudit's library API: lint programmatically, define rules, read findings. */
export { lint, type LintOptions, type LintResult, type LintStats } from './engine/lint.js';
export { defineRule, type Rule, type RuleMeta, type RuleContext, type Visitors } from './contract/rule.js';
export type { Finding, Range, Position, Confirmation, ConfirmationStatus, Severity, SeveritySetting } from './core/types.js';
export type { Suite, Task, VerifierEntry, EmbeddedCode } from './suites/types.js';
export type { JsonValueRef } from './lang/json/parse.js';
export { loadRules } from './contract/registry.js';
