/**
 * Suppressions: inline comments in code, `"//vaudit-ignore"` members in JSON
 * objects, and config `ignores` entries (file glob + JSON pointer + rules).
 * Tracks which suppressions matched so unused ones can be reported.
 */
import type { Finding } from '../core/types.js';
import type { SourceFile } from '../core/source.js';
import type { LoadedConfig } from '../config/load.js';
import globMatcher, { isLiteralGlob } from '../core/match.js';
import { rel } from '../core/paths.js';
import { pointerWithin, type JsonValueRef } from '../lang/json/parse.js';

export interface Suppression {
  file: string;
  /** 1-based line the suppression applies to (code), or undefined. */
  line?: number;
  /** JSON pointer prefix (JSON). */
  pointer?: string;
  rules: string[];
  /** Where the directive itself is (for the unused report). */
  at: { line: number; column: number };
  source: 'comment' | 'json' | 'config';
  /** JSON: the `"//vaudit-ignore"` member (key and value offsets), for the fix that removes it. */
  member?: Pick<JsonValueRef, 'value' | 'start' | 'end' | 'keyStart'>;
  configPath?: string;
  /** Config entries: the file globs, matched relative to `configDir`. */
  matchesFile?: (relPath: string) => boolean;
  /** Config entries whose globs are all literal paths: those paths (the index looks them up, not each glob). */
  literalFiles?: readonly string[];
  configDir?: string;
  used: Set<string>;
}

// A directive is a comment of its own: `#` / `//` at the start of the line or after whitespace
// (not quoted inside a string or a documentation comment such as `// vaudit-ignore-line x`).
const PY_RE = /(?:^|\s)#\s*vaudit:\s*ignore\[([^\]]*)\]/;
const JS_NEXT_RE = /(?:^|\s)\/\/\s*vaudit-ignore-next-line\s+([\w\-, ]+)/;
const JS_LINE_RE = /(?:^|\s)\/\/\s*vaudit-ignore-line\s+([\w\-, ]+)/;

/** Rule ids of a directive: separated by commas and/or spaces. */
export function ruleIdList(s: string): string[] {
  return s.split(/[,\s]+/).map((x) => x.trim()).filter(Boolean);
}

export function commentSuppressions(file: SourceFile): Suppression[] {
  const out: Suppression[] = [];
  const lang = file.language;
  if (lang !== 'python' && lang !== 'javascript' && lang !== 'typescript') return out;
  const text = file.source.text;
  if (!text.includes('vaudit')) return out;
  const n = file.source.lineCount;
  for (let line = 1; line <= n; line++) {
    const t = file.source.lineText(line);
    if (!t.includes('vaudit')) continue;
    if (lang !== 'python' && /^\s*(\*|\/\*)/.test(t)) continue; // inside a block comment
    if (lang === 'python') {
      const m = PY_RE.exec(t);
      if (m) {
        const own = t.slice(0, m.index).trim() === '';
        out.push({ file: file.path, line: own ? nextCodeLine(file, line, '#') : line, rules: ruleIdList(m[1]!), at: { line, column: m.index + m[0].indexOf('#') + 1 }, source: 'comment', used: new Set() });
      }
    } else {
      const next = JS_NEXT_RE.exec(t);
      if (next) out.push({ file: file.path, line: line + 1, rules: ruleIdList(next[1]!), at: { line, column: next.index + next[0].indexOf('/') + 1 }, source: 'comment', used: new Set() });
      const same = JS_LINE_RE.exec(t);
      if (same) out.push({ file: file.path, line, rules: ruleIdList(same[1]!), at: { line, column: same.index + same[0].indexOf('/') + 1 }, source: 'comment', used: new Set() });
    }
  }
  return out;
}

function nextCodeLine(file: SourceFile, line: number, comment: string): number {
  for (let l = line + 1; l <= file.source.lineCount; l++) {
    const t = file.source.lineText(l).trim();
    if (t && !t.startsWith(comment)) return l;
  }
  return line + 1;
}

/** `"//vaudit-ignore": "id" | ["id", …]` members, given the file's pointer → value map. */
export function jsonSuppressions(file: SourceFile, values: ReadonlyMap<string, Pick<JsonValueRef, 'value' | 'start' | 'end' | 'keyStart'>>): Suppression[] {
  const out: Suppression[] = [];
  // no `//vaudit-ignore` key can be in a text that spells neither its name nor any \u escape: the
  // walk over every value of the document is skipped (Spider2-V: 29,500 values, none of them one)
  const text = file.source.text;
  if (!text.includes('vaudit-ignore') && !text.includes('\\u')) return out;
  const suffix = '/~1~1vaudit-ignore';
  for (const [ptr, ref] of values) {
    if (!ptr.endsWith(suffix)) continue;
    const v = ref.value;
    const rules = typeof v === 'string' ? ruleIdList(v) : Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
    const pos = file.source.positionAt(ref.start);
    out.push({ file: file.path, pointer: ptr.slice(0, -suffix.length), rules, at: { line: pos.line, column: pos.column }, source: 'json', member: ref, used: new Set() });
  }
  return out;
}

export function configSuppressions(cfg: LoadedConfig): Suppression[] {
  return (cfg.config.ignores ?? []).map((e) => {
    const files = Array.isArray(e.files) ? e.files : [e.files];
    return {
      file: '',
      pointer: e.pointer,
      rules: e.rules,
      at: { line: 1, column: 1 },
      source: 'config' as const,
      configPath: cfg.path,
      used: new Set<string>(),
      matchesFile: globMatcher(files),
      literalFiles: files.length > 0 && files.every(isLiteralGlob) ? files : undefined,
      configDir: cfg.dir,
    };
  });
}

/** Whether `s` covers finding `f` (nothing recorded). */
function covers(s: Suppression, f: Finding): boolean {
  if (!s.rules.includes(f.ruleId) && !s.rules.includes('all')) return false;
  if (s.source === 'config') {
    if (!s.matchesFile!(rel(s.configDir!, f.file))) return false;
    if (s.pointer !== undefined && !pointerWithin(f.pointer, s.pointer)) return false;
  } else if (s.file !== f.file) {
    return false;
  } else if (s.source === 'json') {
    if (!pointerWithin(f.pointer, s.pointer ?? '')) return false;
  } else if (s.line !== f.range.start.line) {
    return false;
  }
  return true;
}

/**
 * The suppressions of a run, indexed so that finding the one that covers a finding does not scan them
 * all (issue 30: 140,000 suppression comments or config entries times the findings was quadratic): a
 * comment's by file and line, a task's by file, a config entry's by rule. `first` returns the
 * suppression `suppresses` would have found first in the list order, and marks it used.
 */
export class SuppressionIndex {
  private readonly byLine = new Map<string, Array<[number, Suppression]>>();
  private readonly byFile = new Map<string, Array<[number, Suppression]>>();
  private readonly byRule = new Map<string, Array<[number, Suppression]>>();
  /** Config entries whose files are all literal paths, by config folder, rule and path. */
  private readonly byLiteral = new Map<string, Array<[number, Suppression]>>();
  private readonly configDirs = new Set<string>();

  constructor(sups: readonly Suppression[]) {
    const add = (m: Map<string, Array<[number, Suppression]>>, k: string, e: [number, Suppression]) => {
      const l = m.get(k);
      if (l) l.push(e);
      else m.set(k, [e]);
    };
    sups.forEach((s, i) => {
      if (s.source === 'config') this.configDirs.add(s.configDir!);
      if (s.source === 'config') {
        for (const r of new Set(s.rules)) {
          if (s.literalFiles) for (const p of new Set(s.literalFiles)) add(this.byLiteral, `${s.configDir!}\0${r}\0${p}`, [i, s]);
          else add(this.byRule, r, [i, s]);
        }
      }
      else if (s.source === 'json') add(this.byFile, s.file, [i, s]);
      else add(this.byLine, `${s.file}\0${s.line}`, [i, s]);
    });
  }

  /** Config entries naming `rule` whose globs match `file`, computed once per file and rule (not per finding). */
  private readonly byFileRule = new Map<string, Array<[number, Suppression]>>();
  private configFor(file: string, rule: string): Array<[number, Suppression]> | undefined {
    const k = `${file}\0${rule}`;
    let l = this.byFileRule.get(k);
    if (l) return l;
    l = (this.byRule.get(rule) ?? []).filter(([, s]) => s.matchesFile!(rel(s.configDir!, file)));
    let literal = false;
    for (const dir of this.configDirs) {
      const hits = this.byLiteral.get(`${dir}\0${rule}\0${rel(dir, file)}`);
      if (hits) {
        for (const h of hits) l.push(h);
        literal = true;
      }
    }
    // in list order, as one scan of every entry would find them
    if (literal) l.sort((a, b) => a[0] - b[0]);
    this.byFileRule.set(k, l);
    return l;
  }

  first(f: Finding): Suppression | undefined {
    let best: [number, Suppression] | undefined;
    const scan = (l: Array<[number, Suppression]> | undefined) => {
      if (!l) return;
      for (const e of l) {
        if (best && e[0] >= best[0]) return;
        if (covers(e[1], f)) {
          best = e;
          return;
        }
      }
    };
    scan(this.byLine.get(`${f.file}\0${f.range.start.line}`));
    scan(this.byFile.get(f.file));
    scan(this.configFor(f.file, f.ruleId));
    scan(this.configFor(f.file, 'all'));
    best?.[1].used.add(f.ruleId);
    return best?.[1];
  }
}
