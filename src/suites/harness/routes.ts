/** A route the harness takes from a task record to the code that grades it, learned from its own code. */
import type { Template } from './template.js';

export interface ModuleRoute {
  /** The harness file and line that load the module (shown in the summary and in findings). */
  file: string;
  line: number;
  language: 'python' | 'js';
  /** The module path the harness builds from a record (or a dotted module name when `dotted`). */
  template: Template;
  dotted?: boolean;
  /** Declared in the config (`tasks`), not learned: `line` is the declaration's index. */
  declared?: boolean;
  /** Only records in these files (absolute paths) take this route (declared routes). */
  files?: (file: string) => boolean;
  /** The export the harness calls (`mod.verify`, `taskModule[name]`); absent: the module itself. */
  exportName?: string;
  /** The export is the record member's last path segment (`taskModule[input.name.split("/").pop()]`). */
  exportFromMember?: string;
  /** The export taken when the record lacks that member (`task.get("function", "verify")`). */
  exportDefault?: string;
}
