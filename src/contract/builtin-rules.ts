/**
 * The findings the engine itself reports (no rule folder: nothing to configure but their severity in a
 * report): `vaudit rules <id>` documents them and SARIF describes them like the rules.
 */
export interface BuiltinRule {
  id: string;
  description: string;
  /** The severity reported (a note says where it differs). */
  severity: 'error' | 'warn';
  whatItDoes: string;
  why: string;
}

export const BUILTIN_RULES: readonly BuiltinRule[] = [
  {
    id: 'parse-error',
    description: 'A file could not be read or parsed; vaudit could not check it.',
    severity: 'error',
    whatItDoes: 'Reports a task or verifier file that is not valid JSON, Python, JavaScript or TypeScript, that cannot be read, that nests deeper than the parsers accept (JavaScript and TypeScript: brackets, statements, templates and operators counted on the tokens), or that is too large for the analyses (`too-large`: over the size limit, Python code of more than 400,000 syntax nodes, a JavaScript or TypeScript file of more than 400,000 tokens, or a Python file whose flow analysis goes over its step budget); a binary file with a checked extension is a warning (it does not fail the run).',
    why: 'A file vaudit cannot parse is a file no rule checked, and usually one the benchmark cannot load either: a task that does not parse is never graded.',
  },
  {
    id: 'unused-suppression',
    description: 'A suppression comment or entry matches no finding.',
    severity: 'warn',
    whatItDoes: 'Reports a `# vaudit: ignore[rule]`, `// vaudit-ignore-next-line rule`, `"//vaudit-ignore"` member or config `ignores` entry that suppressed nothing in this run, or that names a rule that does not exist. `vaudit check --fix` removes the ids that matched nothing (the whole directive when none is left).',
    why: 'A suppression left behind after its finding was fixed silently hides the next defect of that rule on that line.',
  },
  {
    id: 'internal-error',
    description: 'A rule crashed on a file; other rules still ran.',
    severity: 'error',
    whatItDoes: 'Reports a rule that threw on a file: that rule\'s findings for the file are missing; every other rule still ran.',
    why: 'A silent gap in the audit would read as a clean file.',
  },
];

export function builtinRule(id: string): BuiltinRule | undefined {
  return BUILTIN_RULES.find((r) => r.id === id);
}

/** One built-in's page, as `vaudit rules <id>` prints it. */
export function renderBuiltin(r: BuiltinRule): string {
  return `${r.id}\n\n${r.description}\n\nDefault severity: ${r.severity} · reported by vaudit itself (not configurable per file; suppress it like a rule)\n\nWhat it does\n${r.whatItDoes}\n\nWhy is this bad?\n${r.why}\n`;
}
