/**
 * The correctness-model bundle contract (`vaudit/bundle`).
 *
 * A bundle is a `.ts`/`.js` module that default-exports
 * `defineCorrectnessModel({...})`. It declares the submission's projections
 * (the artifact files and the public-input fields: the "leaves" an external
 * check may hand to a tool) and a list of checks. Each check's `evaluate`
 * receives those projections and an evaluate-scoped runtime port; the only
 * way a check may start a process is `runtime.tools.run(...)`, which the host
 * executes (it resolves the tool id, hashes the executable, isolates the run).
 *
 * The declarative part (everything except `evaluate`) is described by
 * `schemas/bundle.schema.json`; see docs/bundles.md.
 */

/** How a tool run ended. Only `executed` carries an answer. */
export type RunOutcome = 'executed' | NonResultOutcome;
export type NonResultOutcome = 'verifierUnavailable' | 'timeout' | 'crash' | 'sandbox';

/** The tool ran to exit (any exit code: a compiler that rejects the artifact has answered). */
export interface ExecutedRun {
  outcome: 'executed';
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** The host could not obtain an answer. A non-result is not a verdict: pass it through. */
export interface NonResult {
  outcome: NonResultOutcome;
  detail: string;
}

export type RunResult = ExecutedRun | NonResult;

/** One request to the host. `files` and `stdin` of an external check must be leaves of the projections. */
export interface ToolRunRequest {
  /** A tool id listed in the check's `requiredTools`. */
  toolId: string;
  /** The id of the check making the run (the host binds the run to it). */
  checkId: string;
  /** Bounded argument vector (no shell). */
  args?: readonly string[];
  /** Files written into the check's private tool directory: relative path → content. */
  files?: Readonly<Record<string, string>>;
  stdin?: string;
  /** Wall-clock bound in milliseconds (the host applies its own ceiling). */
  timeoutMs?: number;
}

/** The evaluate-scoped port the host hands to a check. It is the only process capability a bundle gets. */
export interface RuntimePort {
  tools: {
    run(request: ToolRunRequest): Promise<RunResult>;
  };
}

export type VerdictValue = 'pass' | 'fail';

export interface Verdict {
  verdict: VerdictValue;
  /** Short explanation shown in reports. */
  detail?: string;
}

/** What `evaluate` returns: a verdict decided from a completed run, or the run's non-result unchanged. */
export type CheckResult = Verdict | NonResult;

/** The projections a check sees. */
export interface EvaluateInput<F extends string = string, P extends string = string> {
  artifact: { files: Readonly<Record<F, string>> };
  publicInput: Readonly<Record<P, unknown>>;
}

/**
 * `external`: the verdict comes from a real tool; `files`/`stdin` must be string leaves (or JSON) of the
 * declared projections. `authored`: the check may construct tool inputs (drivers, fixtures) — its verdict
 * is the author's computation and is reported as such.
 */
export type CheckKind = 'external' | 'authored';

export interface CheckDefinition<F extends string = string, P extends string = string> {
  id: string;
  kind: CheckKind;
  /** Tool ids this check may run; the host resolves each one (`.toolchain/` first, then PATH). */
  requiredTools?: readonly string[];
  description?: string;
  evaluate(input: EvaluateInput<F, P>, runtime: RuntimePort): Promise<CheckResult> | CheckResult;
}

export interface CorrectnessModel<F extends string = string, P extends string = string> {
  id: string;
  description?: string;
  /** The submission's files: leaves are `artifact.files[<name>]`. */
  artifact: { files: readonly F[] };
  /** Public-input fields: leaves are `publicInput.<field>` and the strings inside them. */
  publicInput?: { fields: readonly P[] };
  checks: readonly CheckDefinition<F, P>[];
}

/** Problems of the declarative part that make a model unusable (thrown by `defineCorrectnessModel`). */
export class CorrectnessModelError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid correctness model: ${problems.join('; ')}`);
    this.name = 'CorrectnessModelError';
  }
}

const ID = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** Checks the declarative part; returns the problems found (empty when valid). */
export function validateCorrectnessModel(model: CorrectnessModel<string, string>): string[] {
  const problems: string[] = [];
  if (typeof model?.id !== 'string' || !ID.test(model.id)) problems.push('`id` must be a non-empty identifier');
  const files = model?.artifact?.files;
  if (!Array.isArray(files) || files.some((f) => typeof f !== 'string' || f === '')) {
    problems.push('`artifact.files` must be an array of file names');
  }
  const fields = model?.publicInput?.fields;
  if (fields !== undefined && (!Array.isArray(fields) || fields.some((f) => typeof f !== 'string' || f === ''))) {
    problems.push('`publicInput.fields` must be an array of field names');
  }
  if (!Array.isArray(model?.checks) || model.checks.length === 0) {
    problems.push('`checks` must be a non-empty array');
    return problems;
  }
  const seen = new Set<string>();
  model.checks.forEach((c, i) => {
    const where = `checks[${i}]`;
    if (typeof c?.id !== 'string' || !ID.test(c.id)) problems.push(`${where}.id must be a non-empty identifier`);
    else if (seen.has(c.id)) problems.push(`${where}.id '${c.id}' is not unique`);
    else seen.add(c.id);
    if (c?.kind !== 'external' && c?.kind !== 'authored') problems.push(`${where}.kind must be 'external' or 'authored'`);
    if (c?.requiredTools !== undefined && (!Array.isArray(c.requiredTools) || (c.requiredTools as readonly unknown[]).some((t) => typeof t !== 'string' || !ID.test(t as string)))) {
      problems.push(`${where}.requiredTools must be an array of tool ids`);
    }
    if (typeof c?.evaluate !== 'function') problems.push(`${where}.evaluate must be a function`);
  });
  return problems;
}

/**
 * Declares a correctness model. Typed: `artifact.files['x']` and `publicInput.y` only type-check for
 * declared names. Throws `CorrectnessModelError` when the declarative part is invalid.
 */
export function defineCorrectnessModel<const F extends string, const P extends string = never>(
  model: CorrectnessModel<F, P>,
): CorrectnessModel<F, P> {
  const problems = validateCorrectnessModel(model);
  if (problems.length > 0) throw new CorrectnessModelError(problems);
  return model;
}

export function isExecuted(run: RunResult): run is ExecutedRun {
  return run.outcome === 'executed';
}

export function isNonResult(value: RunResult | CheckResult): value is NonResult {
  return 'outcome' in value && value.outcome !== 'executed';
}
