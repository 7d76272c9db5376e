/**
 * The oracle contract: what a rule's `oracle.ts` receives (`OracleContext`), returns (`Plan`) and
 * works on (`Witness`, `Target`). Helpers to build plans live in oracle-kit.ts, which re-exports these.
 */
import type { Confirmation, ControlCaseRequest, Finding } from '../core/types.js';
import type { Project } from '../contract/project.js';
import type { CaseResult, PyCallCase, PyCase, Spec } from './harness.js';
import type { Slice } from './slice-python.js';

export interface Witness {
  /** Short description shown in reports. */
  label?: string;
  args: Spec[];
  kwargs?: Record<string, Spec>;
  /** Overrides `selfAttrs` for this witness. */
  self?: Spec;
  stubTools?: Record<string, string>;
  servers?: PyCallCase['servers'];
  /** Run as a route of its web app with this request (see routes.ts). */
  route?: PyCallCase['route'];
  /** File fixtures at absolute paths, and folders that must exist (bwrap binds them privately). */
  files?: PyCallCase['files'];
  dirs?: string[];
  /** Of `files`, the stand-ins for files a task names that the suite does not ship (path → content). */
  standIns?: Record<string, string>;
}

export interface OracleContext {
  finding: Finding;
  control: ControlCaseRequest;
  project: Project | undefined;
  root: string;
  /** Per-case bound (ms). */
  timeoutMs: number;
}

export interface Plan {
  cases: PyCase[];
  judge(results: ReadonlyMap<string, CaseResult>): Confirmation;
}

export interface Oracle {
  id: string;
  plan(ctx: OracleContext): Promise<Plan | Confirmation>;
}

export interface Target {
  file: string;
  line: number;
  slice: Slice;
  /** Parameters after `self` for methods. */
  params: string[];
}
