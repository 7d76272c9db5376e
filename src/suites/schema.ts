/**
 * Validation of reference-format tasks against the per-family JSON Schemas in
 * `schemas/tasks/` (ajv, draft 2020-12, compiled once per process). ajv's
 * errors are reduced to one problem per real defect, each at the exact JSON
 * pointer and file offsets.
 */
import { readFileSync, existsSync } from 'node:fs';
import { createHash } from 'node:crypto';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import type { Ajv2020 as Ajv2020Class, ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';

/** ajv costs ~0.1 s to load: load it on first use (synchronously; it is CommonJS). */
const loadAjv = (): typeof Ajv2020Class => (createRequire(import.meta.url)('ajv/dist/2020') as { Ajv2020: typeof Ajv2020Class }).Ajv2020;
import type { Task } from './types.js';
import type { JsonValueRef } from '../lang/json/parse.js';
import { FAMILY_KINDS, isCommentMember } from './families.js';
import { joinPointer, splitPointer } from '../lang/json/parse.js';
import { jsonDocumentOf } from '../lang/json/cache.js';
import type { PythonProject } from '../lang/python/types.js';
import { describeRead, entryReads, type EntryReads } from './reads.js';
import { editDistance } from '../core/names.js';

export interface ValidateOptions {
  /** When given, the fields an entry's bound verifier function reads decide which are required. */
  python?: PythonProject;
  /** Root for the paths in messages. */
  root?: string;
}

export type SchemaProblemKind =
  | 'missingField'
  | 'missingOneOf'
  | 'wrongType'
  | 'unknownKind'
  | 'unknownFamily'
  | 'emptyValue'
  | 'duplicateMember'
  | 'unknownField'
  | 'invalid';

export interface SchemaProblem {
  kind: SchemaProblemKind;
  pointer: string;
  start: number;
  end: number;
  data: Record<string, string | number>;
}

const SCHEMA_BASE = 'https://vaudit.dev/schemas/tasks/';

/** Find `schemas/tasks` from this module (works from src/ under vitest and from dist/ after build). */
function schemasDir(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    const cand = path.join(dir, 'schemas', 'tasks');
    if (existsSync(path.join(cand, 'common.schema.json'))) return cand;
    dir = path.dirname(dir);
  }
  throw new Error('vaudit: schemas/tasks not found next to the package');
}

interface Compiled {
  validators: Map<string, ValidateFunction>;
  generic: ValidateFunction;
  /** Known member names per entry kind per family, and of the task object. */
  entryFields: Map<string, Set<string>>;
  taskFields: Set<string>;
  initializerFields: Map<string, Set<string>>;
}

let compiled: Compiled | undefined;

/** `unicode: false`: string lengths in UTF-16 code units (`.length`) instead of ajv's code-point count,
 *  a loop over every character of every checked string (ScienceBoard: ≈ 8 ms of a run). The schemas
 *  only ask for non-empty strings (`minLength: 1`), where both counts agree; `newAjv` refuses any
 *  other length limit. */
const AJV_OPTIONS = { allErrors: true, strict: true, strictTypes: false, strictRequired: false, strictTuples: false, allowUnionTypes: true, unicode: false } as const;
/** ajv 8 marks `unicode` deprecated and says so on every instance ("DEPRECATED: option unicode. …", a line in
 *  every build): that one line is dropped, everything else ajv says is printed as by its default logger. */
const AJV_LOGGER = {
  log: console.log.bind(console),
  warn: (...args: unknown[]) => {
    if (typeof args[0] === 'string' && args[0].startsWith('DEPRECATED: option unicode.')) return;
    console.warn(...args);
  },
  error: console.error.bind(console),
};
const FAMILIES = Object.keys(FAMILY_KINDS);

/** A JSON Schema document, walked by shape (its keywords are read, never typed ahead). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- schemas are read by keyword, whatever their shape
type SchemaDoc = any;

interface SchemaSet {
  common: SchemaDoc;
  families: Map<string, SchemaDoc>;
  generic: SchemaDoc;
  /** sha256 of the schema texts and ajv options: keys the precompiled validators. */
  hash: string;
}

function loadSchemaSet(): SchemaSet {
  const dir = schemasDir();
  const h = createHash('sha256').update(JSON.stringify(AJV_OPTIONS));
  const load = (name: string) => {
    const text = readFileSync(path.join(dir, name), 'utf8');
    h.update(name).update('\0').update(text);
    return JSON.parse(text) as SchemaDoc;
  };
  const common = load('common.schema.json');
  const families = new Map(FAMILIES.map((f) => [f, load(`${f}.schema.json`)] as const));
  const generic = load('generic.schema.json');
  return { common, families, generic, hash: h.digest('hex') };
}

/** Throws on a string length limit other than `minLength: 1` (see `AJV_OPTIONS.unicode`). */
function checkLengthLimits(doc: SchemaDoc, where: string): void {
  if (!doc || typeof doc !== 'object') return;
  for (const [k, v] of Object.entries(doc)) {
    if ((k === 'minLength' && v !== 1) || k === 'maxLength') throw new Error(`vaudit: ${where}: ${k} ${String(v)} needs ajv's unicode option (only minLength 1 counts the same in code units)`);
    checkLengthLimits(v, where);
  }
}

function newAjv(set: SchemaSet, extra: Record<string, unknown> = {}): Ajv2020Class {
  for (const [name, doc] of [['common', set.common], ...set.families, ['generic', set.generic]] as const) checkLengthLimits(doc, name);
  const ajv = new (loadAjv())({ ...AJV_OPTIONS, logger: AJV_LOGGER, ...extra });
  ajv.addSchema(set.common);
  for (const s of set.families.values()) ajv.addSchema(s);
  ajv.addSchema(set.generic);
  return ajv;
}

/** Where the build writes the precompiled validators (ajv standalone code): `<pkg>/dist/schemas/`. */
export const PRECOMPILED_VALIDATORS = path.resolve(path.dirname(schemasDir()), '..', 'dist', 'schemas', 'task-validators.cjs');

/** The precompiled validators inside the single-file build (scripts/build-bundle.mjs): compiled with
 *  the rest of the CLI and kept in its V8 code cache, where a require of the file from dist/ compiles
 *  210 KB of generated code on every run. */
let bundledValidators: (() => Record<string, unknown>) | undefined;

/** Called once by the single-file build's entry, before the CLI runs.
 *  @public (used by the generated bundle entry, scripts/build-bundle.mjs) */
export function setBundledValidators(load: () => Record<string, unknown>): void {
  bundledValidators = load;
}

/** Validators generated at build time (scripts/compile-schemas.mjs) — compiling the schemas with ajv at
 *  start-up costs ~60 ms of every run. Used only when generated from exactly these schemas. */
function loadPrecompiled(hash: string): Record<string, ValidateFunction> | undefined {
  try {
    let mod: Record<string, unknown>;
    if (bundledValidators) mod = bundledValidators();
    else if (!existsSync(PRECOMPILED_VALIDATORS)) return undefined;
    else mod = createRequire(import.meta.url)(PRECOMPILED_VALIDATORS) as Record<string, unknown>;
    return mod.schemaHash === hash ? (mod as Record<string, ValidateFunction>) : undefined;
  } catch {
    return undefined;
  }
}

/** ajv standalone code for the task schemas (CommonJS), stamped with the schema hash. */
export function standaloneValidatorsSource(): string {
  const set = loadSchemaSet();
  const ajv = newAjv(set, { code: { source: true } });
  const refs: Record<string, string> = { generic: SCHEMA_BASE + 'generic.schema.json' };
  for (const fam of FAMILIES) refs[fam] = SCHEMA_BASE + `${fam}.schema.json`;
  const standalone = (createRequire(import.meta.url)('ajv/dist/standalone') as { default: (a: unknown, r: unknown) => string }).default;
  return `${linearErrors(standalone(ajv, refs))}\nexports.schemaHash = ${JSON.stringify(set.hash)};\n`;
}

/**
 * ajv's generated code collects a sub-schema's errors with `vErrors = vErrors.concat(sub.errors)`
 * inside the loop over an array's items: with `allErrors`, a task whose 50,000 initializers each
 * fail copies the whole list 50,000 times (minutes; issue 17). Append in place instead.
 */
function linearErrors(code: string): string {
  const concat = /vErrors = vErrors === null \? (\w+)\.errors : vErrors\.concat\(\1\.errors\);/g;
  return code.replace(concat, (_m, fn: string) => `if (vErrors === null) vErrors = ${fn}.errors.slice(); else for (const e of ${fn}.errors) vErrors.push(e);`);
}

/** Validators compiled now with ajv (what a run uses when no precompiled file matches). */
export function liveValidators(): Record<string, ValidateFunction> {
  const set = loadSchemaSet();
  const ajv = newAjv(set);
  const out: Record<string, ValidateFunction> = { generic: ajv.getSchema(SCHEMA_BASE + 'generic.schema.json')! };
  for (const fam of FAMILIES) out[fam] = ajv.getSchema(SCHEMA_BASE + `${fam}.schema.json`)!;
  return out;
}

function compile(): Compiled {
  if (compiled) return compiled;
  const set = loadSchemaSet();
  const { common } = set;
  const validators = new Map<string, ValidateFunction>();
  let generic: ValidateFunction;
  const pre = loadPrecompiled(set.hash);
  if (pre) {
    for (const fam of FAMILIES) validators.set(fam, pre[fam]!);
    generic = pre.generic!;
  } else {
    const ajv = newAjv(set);
    for (const fam of FAMILIES) validators.set(fam, ajv.getSchema(SCHEMA_BASE + `${fam}.schema.json`)!);
    generic = ajv.getSchema(SCHEMA_BASE + 'generic.schema.json')!;
  }
  const entryFields = new Map<string, Set<string>>();
  for (const [fam, s] of set.families) {
    for (const branch of s.$defs.entry.allOf as Array<{ if: SchemaDoc; then: { $ref: string } }>) {
      const kind = branch.if.properties.type.const as string;
      const def = branch.then.$ref.split('/').pop()!;
      entryFields.set(`${fam}/${kind}`, new Set(Object.keys(common.$defs[def].properties ?? {})));
    }
  }
  const initializerFields = new Map<string, Set<string>>();
  for (const b of common.$defs.initializer.allOf as Array<{ if: SchemaDoc; then: SchemaDoc }>) {
    initializerFields.set(b.if.properties.func.const, new Set(['func', ...Object.keys(b.then.properties ?? {})]));
  }
  compiled = { validators, generic, entryFields, taskFields: new Set(Object.keys(common.$defs.task.properties)), initializerFields };
  return compiled;
}

function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

function nearMiss(name: string, known: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestD = 3;
  for (const k of known) {
    if (k === name) return undefined;
    const d = editDistance(name.toLowerCase(), k.toLowerCase());
    const limit = k.length <= 4 ? 1 : 2;
    if (d <= limit && d < bestD) {
      best = k;
      bestD = d;
    }
  }
  return best;
}

function describeWhere(pointer: string, task: Task): string {
  const t = splitPointer(pointer);
  if (t.length === 0) return 'the task';
  if (t[0] === 'evaluate' && t.length >= 2) {
    const e = task.values.get(`/evaluate/${t[1]}`)?.value as Record<string, unknown> | undefined;
    const kind = e && typeof e === 'object' && typeof e.type === 'string' ? `"${e.type}" ` : '';
    return `the ${kind}entry ${pointer}`;
  }
  if (t[0] === 'initialize' && t.length >= 2) return `the initializer ${pointer}`;
  return pointer;
}

/** Validate one task; problems are deduplicated and carry exact offsets. */
export function validateTask(task: Task, opts: ValidateOptions = {}): SchemaProblem[] {
  const c = compile();
  const json = task.json as Record<string, unknown>;
  const out: SchemaProblem[] = [];
  const seen = new Set<string>();
  const push = (p: SchemaProblem, key: string) => {
    if (seen.has(key)) return;
    seen.add(key);
    out.push(p);
  };
  const refAt = (pointer: string): JsonValueRef => task.values.get(pointer) ?? task.values.get('')!;
  const family = typeof json.type === 'string' ? json.type : undefined;
  let validate = c.generic;
  if (family !== undefined && c.validators.has(family)) validate = c.validators.get(family)!;
  else if (family !== undefined) {
    const r = refAt('/type');
    push({ kind: 'unknownFamily', pointer: '/type', start: r.start, end: r.end, data: { family, families: Object.keys(FAMILY_KINDS).join(', ') } }, 'fam');
  }
  // Entries bound to a verifier function: what that function reads decides what is required.
  const readsAt = new Map<string, EntryReads>();
  if (opts.python) {
    for (const entry of task.entries) {
      const r = entry.binding && entryReads(opts.python, entry.binding);
      if (r) readsAt.set(entry.pointer, r);
    }
  }
  const root = opts.root ?? task.suite.root;
  const schemaSource = `the ${family ?? 'task'} verifier reads it (schemas/tasks/${family && c.validators.has(family) ? family : 'common'}.schema.json)`;
  validate(json);
  // `required` inside an anyOf branch is reported once, by the anyOf (one of several fields is missing).
  const errors = (validate.errors ?? []).filter((e: ErrorObject) => e.keyword !== 'if' && !(e.keyword === 'required' && /\/anyOf\/\d+\/required$/.test(e.schemaPath)));
  const typeErrorAt = new Set(errors.filter((e) => e.keyword === 'type').map((e) => e.instancePath));
  for (const e of errors) {
    const pointer = e.instancePath;
    const ref = refAt(pointer);
    const where = describeWhere(pointer, task);
    switch (e.keyword) {
      case 'required':
      case 'dependentRequired': {
        const field = String((e.params as { missingProperty: string }).missingProperty);
        const reads = readsAt.get(pointer);
        // A field the bound verifier function does not read on every path is not required of this entry.
        if (reads && !reads.required.has(field)) break;
        const source = (reads && describeRead(reads, field, root)) ?? schemaSource;
        // Report at the object's opening brace for the whole task; the whole entry/initializer otherwise.
        const end = pointer === '' ? ref.start + 1 : ref.end;
        push({ kind: 'missingField', pointer, start: ref.start, end, data: { field, where, source } }, `req:${pointer}:${field}`);
        break;
      }
      case 'anyOf': {
        if (typeErrorAt.has(pointer)) break;
        const branches = /^(.*)\/anyOf$/.exec(e.schemaPath);
        const all = (validate.errors ?? [])
          .filter((x) => x.keyword === 'required' && x.instancePath === pointer && branches && x.schemaPath.startsWith(`${branches[1]}/anyOf/`))
          .map((x) => `"${String((x.params as { missingProperty: string }).missingProperty)}"`);
        if (all.length > 0) {
          push({ kind: 'missingOneOf', pointer, start: ref.start, end: ref.end, data: { fields: all.join(' or '), where } }, `anyOf:${pointer}`);
        } else {
          push({ kind: 'invalid', pointer, start: ref.start, end: ref.end, data: { where, detail: e.message ?? 'invalid value' } }, `anyOf:${pointer}`);
        }
        break;
      }
      case 'type': {
        const expected = String((e.params as { type: string | string[] }).type);
        const field = splitPointer(pointer).pop() ?? '(root)';
        push({ kind: 'wrongType', pointer, start: ref.start, end: ref.end, data: { field, expected: expected.replace(',', ' or '), actual: typeName(ref.value), where } }, `type:${pointer}`);
        break;
      }
      case 'enum': {
        if (typeErrorAt.has(pointer)) break;
        const t = splitPointer(pointer);
        if (t[0] === 'evaluate' && t[2] === 'type') {
          const kinds = (FAMILY_KINDS[family ?? ''] ?? []).join(', ');
          push({ kind: 'unknownKind', pointer, start: ref.start, end: ref.end, data: { kind: String(ref.value), family: family ?? 'unknown', kinds } }, `enum:${pointer}`);
        } else {
          push({ kind: 'invalid', pointer, start: ref.start, end: ref.end, data: { where, detail: e.message ?? 'invalid value' } }, `enum:${pointer}`);
        }
        break;
      }
      case 'minLength':
      case 'minItems': {
        if (typeErrorAt.has(pointer)) break;
        const field = splitPointer(pointer).pop() ?? '(root)';
        push({ kind: 'emptyValue', pointer, start: ref.start, end: ref.end, data: { field, where } }, `empty:${pointer}`);
        break;
      }
      default: {
        if (typeErrorAt.has(pointer)) break;
        push({ kind: 'invalid', pointer, start: ref.start, end: ref.end, data: { where, detail: e.message ?? 'invalid value' } }, `${e.keyword}:${pointer}`);
      }
    }
  }
  // Fields the bound verifier function reads unguarded on every path, absent from the entry.
  for (const entry of task.entries) {
    const reads = readsAt.get(entry.pointer);
    if (!reads) continue;
    for (const field of reads.required.keys()) {
      if (field in entry.fields || (entry.ref.value as Record<string, unknown>)[field] !== undefined) continue;
      const where = describeWhere(entry.pointer, task);
      push({ kind: 'missingField', pointer: entry.pointer, start: entry.ref.start, end: entry.ref.end, data: { field, where, source: describeRead(reads, field, root)! } }, `req:${entry.pointer}:${field}`);
    }
  }
  // Duplicate members: json.load keeps the last one silently.
  const parsed = jsonDocumentOf(task.file);
  if (parsed.ok) {
    // one problem per member name of an object, at its first ignored value, with how many times the
    // name appears (issue 30: 416,668 repeats of one member were as many findings, 2.4 GB)
    const byMember = new Map<string, { d: (typeof parsed.doc.duplicates)[number]; times: number }>();
    for (const d of parsed.doc.duplicates) {
      if (isCommentMember(d.name)) continue;
      const p = joinPointer(d.objectPointer, d.name);
      const seen = byMember.get(p);
      if (seen) seen.times++;
      else byMember.set(p, { d, times: 2 });
    }
    for (const [p, { d, times }] of byMember) {
      push(
        { kind: 'duplicateMember', pointer: p, start: d.ignored.keyStart ?? d.ignored.start, end: d.ignored.end, data: { field: d.name, where: describeWhere(d.objectPointer, task), times: times === 2 ? 'twice' : `${times.toLocaleString('en-US')} times` } },
        `dup:${p}:${d.ignored.start}`,
      );
    }
  }
  // Near-miss member names (typos): a misspelt `pred` is silently never applied.
  const checkNames = (pointer: string, known: Set<string> | undefined) => {
    const obj = task.values.get(pointer)?.value;
    if (!known || typeof obj !== 'object' || obj === null || Array.isArray(obj)) return;
    for (const name of Object.keys(obj)) {
      if (known.has(name) || isCommentMember(name)) continue;
      const guess = nearMiss(name, known);
      if (!guess) continue;
      const ref = refAt(joinPointer(pointer, name));
      push({ kind: 'unknownField', pointer: joinPointer(pointer, name), start: ref.keyStart ?? ref.start, end: ref.keyEnd ?? ref.end, data: { field: name, guess, where: describeWhere(pointer, task) } }, `typo:${pointer}:${name}`);
    }
  };
  checkNames('', c.taskFields);
  for (const entry of task.entries) checkNames(entry.pointer, c.entryFields.get(`${family}/${entry.kind}`));
  for (const init of task.initializers) {
    const v = init.value as Record<string, unknown> | null;
    if (v && typeof v === 'object' && typeof v.func === 'string') checkNames(init.pointer, c.initializerFields.get(v.func));
  }
  out.sort((a, b) => a.start - b.start || a.end - b.end);
  return out;
}

