/**
 * Public surface of the correctness-model bundle model (owned by src/lang/ts).
 * Placeholder interfaces: the bundle module fills these in.
 */
export interface BundleModel {
  file: string;
  id?: string;
  checks: BundleCheck[];
}

export interface BundleCheck {
  id?: string;
  kind?: 'external' | 'authored';
  requiredTools: string[];
  toolRuns: BundleToolRun[];
}

export interface BundleToolRun {
  /** UTF-16 offsets of the `runtime.tools.run(...)` call. */
  start: number;
  end: number;
}
