/**
 * Path templates: what a harness builds a module path from, as literal text and holes.
 * `Path(app_dir) / task["verify"]` is `[base, "/", member verify]`; `path.join(dir, "tasks", input.name)`
 * with candidates `${p}.ts` is `[base, "/tasks/", member name, ".ts"]`.
 */
export type Piece =
  | { kind: 'lit'; text: string }
  /** A member of the task record (`task["verify"]`, `task.get("verify")`, `input.name`); name '' is
   *  the record itself when it is a string (`for name in config["evals"]`). */
  | { kind: 'member'; name: string; basename?: boolean }
  /** A folder the harness knows at run time and vaudit does not (a parameter, an environment value). */
  | { kind: 'base' }
  /** The harness file's own folder (`os.path.dirname(__file__)`, `import.meta.dirname`). */
  | { kind: 'here'; dir: string };

export type Template = Piece[];

export const lit = (text: string): Template => (text ? [{ kind: 'lit', text }] : []);
export const BASE: Template = [{ kind: 'base' }];

/** Concatenation of two templates (literal text merged, empty literals dropped). */
function concat(a: Template, b: Template): Template {
  const out: Piece[] = [...a];
  for (const p of b) {
    const last = out[out.length - 1];
    if (p.kind === 'lit' && last?.kind === 'lit') out[out.length - 1] = { kind: 'lit', text: last.text + p.text };
    else if (!(p.kind === 'lit' && p.text === '')) out.push(p);
  }
  return out;
}

/** Every combination of alternatives of each part, concatenated (bounded). */
export function concatAll(parts: Template[][], limit = 16): Template[] {
  let acc: Template[] = [[]];
  for (const alts of parts) {
    const next: Template[] = [];
    for (const a of acc) for (const b of alts) if (next.length < limit) next.push(concat(a, b));
    acc = next;
  }
  return acc;
}

/** Path join of parts (`os.path.join`, `Path / x`, `path.join`): a separator between non-empty parts. */
export function joinAll(parts: Template[][], limit = 16): Template[] {
  const withSep: Template[][] = [];
  parts.forEach((alts, i) => {
    if (i > 0) withSep.push([lit('/')]);
    withSep.push(alts);
  });
  return concatAll(withSep, limit).map(normalise);
}

function normalise(t: Template): Template {
  return t.map((p) => (p.kind === 'lit' ? { kind: 'lit' as const, text: p.text.replace(/\/{2,}/g, '/') } : p));
}

/** The record members a template reads (once per template: a load asks it per record and route). */
const members = new WeakMap<Template, readonly string[]>();
export function membersOf(t: Template): readonly string[] {
  let m = members.get(t);
  if (!m) members.set(t, (m = t.flatMap((p) => (p.kind === 'member' ? [p.name] : []))));
  return m;
}

/**
 * The relative path a template gives for one record (`values` by member name), or undefined when a
 * member is missing or not a string. A leading `base`/`here` is left to the caller (`lead`).
 */
export function instantiate(t: Template, values: (member: string) => unknown): { lead?: Piece; rest: string } | undefined {
  let rest = '';
  let lead: Piece | undefined;
  for (const [i, p] of t.entries()) {
    if (p.kind === 'lit') rest += p.text;
    else if (p.kind === 'member') {
      const v = values(p.name);
      if (typeof v !== 'string' || !v) return undefined;
      rest += p.basename ? v.split('/').pop()! : v;
    } else if (i === 0) lead = p;
    else return undefined; // an unknown folder in the middle of a path: nothing to resolve against
  }
  return { lead, rest: lead ? rest.replace(/^\/+/, '') : rest };
}
