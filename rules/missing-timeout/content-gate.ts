/**
 * Whether a flagged call runs only on a path that a file's content (or size, existence, hash) chooses: a
 * test before the call, or around it, that reads a value taken from a file. A control case that gives the
 * task a stand-in file (the suite does not ship the real one) shows only what the stand-in's content does
 * on such a path, never what the task's own file does, so its verdict there is no verdict.
 *
 * Taken from a file: a value bound from a file read or a stat of a path (`open(…)`, `json.load`, `.read()`,
 * `os.path.getsize/exists/isfile`, `Path.exists()/stat()`, a hash, a CSV/Excel/zip reader), and every value
 * bound from one of those. A path string's own tests (`src.startswith("http")`) are not content.
 */
import { field, named, walk, type PyNode } from '../../src/lang/python/tree.js';
import type { PythonAnalysis } from '../../src/lang/python/types.js';

const FILE_READ =
  /\bopen\s*\(|\bjson\.loads?\s*\(|\.read\s*\(|\.readlines?\s*\(|\.read_(?:text|bytes)\s*\(|\bos\.path\.(?:getsize|exists|isfile|isdir|lexists|getmtime)\s*\(|\.(?:exists|is_file|stat)\s*\(\s*\)|\bos\.stat\s*\(|\bhashlib\.|\bsha\d+\s*\(|\bmd5\s*\(|\bcsv\.|\bpd\.read_|\bread_(?:csv|excel|json)\s*\(|\bload_workbook\s*\(|\bzipfile\.|\byaml\.(?:safe_)?load\s*\(|\btomllib\.load|\bconfigparser\b/;

const EXIT = new Set(['return_statement', 'raise_statement', 'continue_statement', 'break_statement']);

/** The test that decides whether the call on `line` runs and reads a file-derived value: its line and text. */
export function contentGate(a: PythonAnalysis, line: number): { line: number; test: string } | undefined {
  const fn = a
    .functions()
    .filter((f) => a.line(f.node) <= line && line <= a.line(f.node) + a.src(f.node).split('\n').length - 1)
    .pop();
  if (!fn) return undefined;
  // names bound from a file read, to a fixpoint
  const binds: Array<{ names: string[]; value: string }> = [];
  const ids = (n: PyNode | undefined) => {
    const out: string[] = [];
    if (n) walk(n, (x) => void (x.type === 'identifier' && out.push(x.text)));
    return out;
  };
  walk(fn.node, (x) => {
    if (x !== fn.node && (x.type === 'function_definition' || x.type === 'class_definition')) return false;
    if (x.type === 'assignment' || x.type === 'augmented_assignment') binds.push({ names: ids(field(x, 'left')), value: a.src(field(x, 'right') ?? x) });
    else if (x.type === 'for_statement' || x.type === 'for_in_clause') binds.push({ names: ids(field(x, 'left')), value: a.src(field(x, 'right') ?? x) });
    else if (x.type === 'as_pattern') binds.push({ names: ids(field(x, 'alias') ?? named(x)[1]), value: a.src(named(x)[0] ?? x) });
    else if (x.type === 'named_expression') binds.push({ names: ids(field(x, 'name')), value: a.src(field(x, 'value') ?? x) });
    return undefined;
  });
  const tainted = new Set<string>();
  const reads = (text: string) => FILE_READ.test(text) || [...text.matchAll(/[A-Za-z_]\w*/g)].some((m) => tainted.has(m[0]));
  for (let changed = true; changed; ) {
    changed = false;
    for (const b of binds) {
      if (!reads(b.value)) continue;
      for (const n of b.names) {
        if (tainted.has(n)) continue;
        tainted.add(n);
        changed = true;
      }
    }
  }
  const readsNode = (n: PyNode | undefined) => !!n && reads(a.src(n));
  const exits = (n: PyNode | undefined) => {
    let hit = false;
    if (n) walk(n, (x) => {
      if (x.type === 'function_definition' || x.type === 'class_definition') return false;
      if (EXIT.has(x.type) || (x.type === 'call' && /^(?:sys\.exit|exit|quit|os\._exit)$/.test(a.src(field(x, 'function') ?? x)))) hit = true;
      return undefined;
    });
    return hit;
  };
  // the deepest node starting on the flagged line
  let at: PyNode | undefined;
  walk(fn.node, (x) => {
    if (a.line(x) === line && x.type.endsWith('statement')) at ??= x;
    return undefined;
  });
  if (!at) return undefined;
  const gate = (n: PyNode, test: PyNode | undefined) => ({ line: a.line(n), test: a.src(test ?? n).split('\n')[0]!.slice(0, 80) });
  let child: PyNode = at;
  for (let p = at.parent; p && p !== fn.node.parent; child = p, p = p.parent) {
    if ((p.type === 'if_statement' || p.type === 'while_statement') && field(p, 'condition') !== child) {
      // the branch runs on its condition (an elif or else: on the earlier ones too)
      const conds = [field(p, 'condition'), ...named(p).filter((x) => x.type === 'elif_clause' && x.start < child.start).map((x) => field(x, 'condition'))];
      const c = conds.find((x) => readsNode(x));
      if (c) return gate(p, c);
    }
    if (p.type === 'elif_clause' && readsNode(field(p, 'condition'))) return gate(p, field(p, 'condition'));
    if ((p.type === 'for_statement' || p.type === 'for_in_clause') && field(p, 'right') !== child && readsNode(field(p, 'right'))) return gate(p, field(p, 'right'));
    if (p.type === 'conditional_expression' && readsNode(p)) return gate(p, p);
    if (p.type === 'except_clause' && p.parent && readsNode(field(p.parent, 'body'))) return gate(p, p);
    if (p.type !== 'block' && p.type !== 'module') continue;
    // an earlier test in the same block that leaves on one of its branches
    for (const st of named(p)) {
      if (st.start >= child.start) break;
      if (st.type === 'if_statement') {
        const conds = [field(st, 'condition'), ...named(st).filter((x) => x.type === 'elif_clause').map((x) => field(x, 'condition'))];
        const c = conds.find((x) => readsNode(x));
        if (c && exits(st)) return gate(st, c);
      }
      if (st.type === 'try_statement' && readsNode(field(st, 'body')) && named(st).some((x) => x.type === 'except_clause' && exits(x))) return gate(st, st);
      if (st.type === 'while_statement' && readsNode(field(st, 'condition')) && exits(field(st, 'body'))) return gate(st, field(st, 'condition'));
    }
  }
  return undefined;
}
