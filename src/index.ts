/** vaudit's library API: lint programmatically, define rules, read findings. */
export { lint, type LintOptions, type LintResult, type LintStats } from './engine/lint.js';
export { defineRule, type Rule, type RuleMeta, type RuleContext, type Visitors } from './engine/rule.js';
export type { Finding, Range, Position, Confirmation, ConfirmationStatus, Severity, SeveritySetting } from './engine/types.js';
export type { Suite, Task, VerifierEntry, EmbeddedCode, JsonValueRef } from './suites/types.js';
export { loadRules } from './engine/registry.js';
