/**
 * Config discovery and validation. `vaudit.config.json` is looked up from each
 * linted path upward (stopping at a config with `"root": true` or the file
 * system root). Validation uses ajv against schemas/config.schema.json; errors
 * name the JSON pointer and a fix hint.
 */
import { existsSync, readFileSync } from 'node:fs';
import { loadTextSync } from '../core/load.js';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import type { Ajv2020 as Ajv2020Class } from 'ajv/dist/2020.js';
import type { ErrorObject } from 'ajv';

/** ajv costs ~0.1 s to load: load it on first use (synchronously; it is CommonJS). */
const loadAjv = (): typeof Ajv2020Class => (createRequire(import.meta.url)('ajv/dist/2020') as { Ajv2020: typeof Ajv2020Class }).Ajv2020;
import type { SeveritySetting } from '../core/types.js';
import { closestNames } from '../core/names.js';
import { SourceText } from '../core/source.js';
import { parseJsonDocument, type JsonDocument } from '../lang/json/parse.js';

export const CONFIG_FILE = 'vaudit.config.json';

interface IgnoreEntry {
  files: string | string[];
  pointer?: string;
  rules: string[];
  reason?: string;
}

export interface VauditConfig {
  root?: boolean;
  include?: string[];
  exclude?: string[];
  adapter?: string;
  adapterOptions?: Record<string, unknown>;
  rules?: Record<string, SeveritySetting | [SeveritySetting, Record<string, unknown>?]>;
  ignores?: IgnoreEntry[];
  /** Report findings on verifier paths only (default) or in all code. */
  scope?: 'verifier' | 'all';
  /** Platform of the VM the suite's helper server runs in (default linux). */
  platform?: 'linux' | 'windows' | 'darwin' | 'any';
  /** Recognise suites without a declaration (default true); false: only `tasks` and `entrypoints`. */
  detect?: boolean;
  /** Task data beyond what vaudit recognises: files of task records and the module path each names. */
  tasks?: Array<{ files: string | string[]; module: string; export?: string; reason?: string }>;
  /** Verifier entrypoints beyond those vaudit recognises. */
  entrypoints?: Array<{ files: string | string[]; export?: string; class?: string; method?: string; reason?: string }>;
  confirm?: { isolation?: 'auto' | 'bwrap' | 'process'; requireIsolation?: boolean; timeoutMs?: number; jobs?: number; python?: string };
}

export interface LoadedConfig {
  /** Absolute path of the config file, or undefined for the built-in defaults. */
  path?: string;
  /** Folder the config's globs are relative to. */
  dir: string;
  config: VauditConfig;
}

export class ConfigError extends Error {
  constructor(readonly file: string, readonly problems: string[]) {
    super(`${file}: invalid configuration\n${problems.map((p) => `  ${p}`).join('\n')}`);
  }
}

const here = path.dirname(fileURLToPath(import.meta.url));
const SCHEMAS_DIR = [path.resolve(here, '../../schemas'), path.resolve(here, '../../../schemas')].find((d) =>
  existsSync(path.join(d, 'config.schema.json')),
) ?? path.resolve(here, '../../schemas');

let ajvInstance: InstanceType<typeof Ajv2020Class> | undefined;
const ajv = () => (ajvInstance ??= new (loadAjv())({ allErrors: true, strict: false, verbose: true }));
let validator: ReturnType<Ajv2020Class['compile']> | undefined;
function validate(doc: unknown): ErrorObject[] {
  validator ??= ajv().compile(JSON.parse(readFileSync(path.join(SCHEMAS_DIR, 'config.schema.json'), 'utf8')));
  return validator(doc) ? [] : [...(validator.errors ?? [])];
}

/** The option schema of each known rule (undefined: the rule takes no options). */
export type RuleOptionSchemas = ReadonlyMap<string, Record<string, unknown> | undefined>;

/** One problem of a config file: where (a JSON pointer; `key`: at the member's name) and what. */
interface Problem {
  pointer: string;
  message: string;
  key?: boolean;
}

/** " Did you mean 'x'?" when exactly one known name is a near miss of `name`. */
function didYouMean(name: string, known: Iterable<string>): string {
  const near = closestNames(name, known);
  return near.length === 1 ? ` Did you mean '${near[0]}'?` : '';
}

const optionValidators = new WeakMap<object, ReturnType<Ajv2020Class['compile']>>();
/** Problems with the options given to rules (`"rules": {"id": ["warn", {…}]}`), each at its pointer. */
function ruleOptionProblems(rules: VauditConfig['rules'], schemas: RuleOptionSchemas): Problem[] {
  const out: Problem[] = [];
  for (const [id, setting] of Object.entries(rules ?? {})) {
    if (!Array.isArray(setting) || setting.length < 2 || !schemas.has(id)) continue;
    const schema = schemas.get(id);
    const at = `/rules/${id}/1`;
    if (!schema) {
      out.push({ pointer: at, message: `rule '${id}' takes no options. Give only its severity.` });
      continue;
    }
    let v = optionValidators.get(schema);
    if (!v) optionValidators.set(schema, (v = ajv().compile(schema)));
    if (v(setting[1])) continue;
    for (const e of v.errors ?? []) {
      const pointer = at + e.instancePath;
      if (e.keyword === 'additionalProperties' && e.instancePath === '') {
        const name = (e.params as { additionalProperty: string }).additionalProperty;
        const allowed = Object.keys((schema.properties as object | undefined) ?? {});
        out.push({ pointer: `${pointer}/${name}`, key: true, message: `rule '${id}' has no option '${name}'.${didYouMean(name, allowed)} Allowed: ${allowed.join(', ')}; see 'vaudit rules ${id}'.` });
      } else out.push(hint({ ...e, instancePath: pointer }));
    }
  }
  return out;
}

function hint(e: ErrorObject): Problem {
  const at = e.instancePath;
  switch (e.keyword) {
    case 'additionalProperties': {
      const name = (e.params as { additionalProperty: string }).additionalProperty;
      // every property the schema allows at this level (ajv's verbose errors carry the schema object)
      const allowed = Object.keys((e.parentSchema?.properties as object | undefined) ?? {}).filter((k) => k !== '$schema');
      return { pointer: `${at}/${name}`, key: true, message: `unknown property '${name}'.${didYouMean(name, allowed)} Allowed: ${allowed.join(', ')}.` };
    }
    case 'enum': {
      const values = (e.params as { allowedValues: unknown[] }).allowedValues;
      const near = typeof e.data === 'string' ? didYouMean(e.data, values.filter((v): v is string => typeof v === 'string')) : '';
      return { pointer: at, message: `must be one of ${values.map((v) => JSON.stringify(v)).join(', ')}.${near}` };
    }
    case 'oneOf':
      return { pointer: at, message: 'a rule setting is "off", "warn", "error", or ["warn", { options }].' };
    case 'required':
      return { pointer: at, message: `missing required property '${(e.params as { missingProperty: string }).missingProperty}'.` };
    case 'pattern':
      return { pointer: at, message: `${e.message}. Rule ids are kebab-case (run 'vaudit rules' for the list).` };
    default:
      return { pointer: at, message: `${e.message}.` };
  }
}

/** `line:column pointer: message` for each problem, in file order (positions 1-based, as editors count). */
function located(text: string, doc: JsonDocument, problems: readonly Problem[]): string[] {
  const src = new SourceText(text);
  return problems
    .map((p) => {
      const ref = doc.values.get(p.pointer);
      const offset = ref ? (p.key && ref.keyStart !== undefined ? ref.keyStart : ref.start) : 0;
      const pos = src.positionAt(offset);
      return { offset, line: `${pos.line}:${pos.column} ${p.pointer || '/'}: ${p.message}` };
    })
    .sort((a, b) => a.offset - b.offset)
    .map((x) => x.line);
}

/** Parse and validate one config file; every problem at once, each with its line and column. Throws ConfigError. */
function readConfigFile(file: string, knownRules?: RuleOptionSchemas): VauditConfig {
  // read as every input file is (issue 30): over the size limit, binary or not UTF-8, the config is
  // invalid (exit 2), never applied in part while the file itself is reported unreadable
  const loaded = loadTextSync(file);
  if (!loaded.ok) {
    throw new ConfigError(file, [`${loaded.problem.reason}. The config is not loaded and no part of it applies.`]);
  }
  const text = loaded.text;
  const parsed = parseJsonDocument(text);
  if (!parsed.ok) {
    const pos = new SourceText(text).positionAt(parsed.error.start);
    throw new ConfigError(file, [`${pos.line}:${pos.column} not valid JSON: ${parsed.error.message}`]);
  }
  const doc = parsed.doc.value;
  const errors = validate(doc);
  // oneOf failures come with their branch errors; keep the most specific message per pointer.
  const seen = new Set<string>();
  const problems: Problem[] = [];
  const add = (p: Problem) => {
    const k = `${p.pointer}\0${p.message}`;
    if (!seen.has(k)) { seen.add(k); problems.push(p); }
  };
  for (const e of errors) {
    if (e.keyword === 'oneOf' || !errors.some((o) => o.keyword === 'oneOf' && e.instancePath.startsWith(o.instancePath) && o !== e)) add(hint(e));
  }
  const rules = (doc as VauditConfig | null)?.rules;
  if (knownRules && rules && typeof rules === 'object' && !Array.isArray(rules)) {
    for (const id of Object.keys(rules)) {
      if (!knownRules.has(id)) add({ pointer: `/rules/${id}`, key: true, message: `unknown rule '${id}'.${didYouMean(id, knownRules.keys())} Run 'vaudit rules' for the list.` });
    }
    for (const p of ruleOptionProblems(rules, knownRules)) add(p);
  }
  if (problems.length) throw new ConfigError(file, located(text, parsed.doc, problems));
  return doc as VauditConfig;
}

/** Resolves the config that applies to a folder, with a cache. */
export class ConfigResolver {
  private byDir = new Map<string, LoadedConfig>();
  constructor(
    private readonly fallbackDir: string,
    /** Known rules and their option schemas: config naming other rules, or giving bad options, is an error. */
    private readonly knownRules?: RuleOptionSchemas,
    /** An explicit config (--config) overrides discovery. */
    private readonly explicit?: string,
  ) {}

  forFile(file: string): LoadedConfig {
    return this.forDir(path.dirname(file));
  }

  forDir(dir: string): LoadedConfig {
    if (this.explicit) {
      const p = path.resolve(this.explicit);
      let c = this.byDir.get('\0explicit');
      if (!c) {
        c = { path: p, dir: path.dirname(p), config: readConfigFile(p, this.knownRules) };
        this.byDir.set('\0explicit', c);
      }
      return c;
    }
    const hit = this.byDir.get(dir);
    if (hit) return hit;
    const candidate = path.join(dir, CONFIG_FILE);
    let result: LoadedConfig;
    if (existsSync(candidate)) {
      result = { path: candidate, dir, config: readConfigFile(candidate, this.knownRules) };
    } else {
      const parent = path.dirname(dir);
      result = parent === dir ? { dir: this.fallbackDir, config: {} } : this.forDir(parent);
    }
    this.byDir.set(dir, result);
    return result;
  }
}
