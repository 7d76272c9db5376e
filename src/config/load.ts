/**
 * Config discovery and validation. `vaudit.config.json` is looked up from each
 * linted path upward (stopping at a config with `"root": true` or the file
 * system root). Validation uses ajv against schemas/config.schema.json; errors
 * name the JSON pointer and a fix hint.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import type { Ajv2020 as Ajv2020Class } from 'ajv/dist/2020.js';
import type { ErrorObject } from 'ajv';

/** ajv costs ~0.1 s to load: load it on first use (synchronously; it is CommonJS). */
const loadAjv = (): typeof Ajv2020Class => (createRequire(import.meta.url)('ajv/dist/2020') as { Ajv2020: typeof Ajv2020Class }).Ajv2020;
import type { SeveritySetting } from '../core/types.js';

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
const ajv = () => (ajvInstance ??= new (loadAjv())({ allErrors: true, strict: false }));
let validator: ReturnType<Ajv2020Class['compile']> | undefined;
function validate(doc: unknown): ErrorObject[] {
  validator ??= ajv().compile(JSON.parse(readFileSync(path.join(SCHEMAS_DIR, 'config.schema.json'), 'utf8')));
  return validator(doc) ? [] : [...(validator.errors ?? [])];
}

/** The option schema of each known rule (undefined: the rule takes no options). */
export type RuleOptionSchemas = ReadonlyMap<string, Record<string, unknown> | undefined>;

const optionValidators = new WeakMap<object, ReturnType<Ajv2020Class['compile']>>();
/** Problems with the options given to rules (`"rules": {"id": ["warn", {…}]}`), each at its pointer. */
function ruleOptionProblems(rules: VauditConfig['rules'], schemas: RuleOptionSchemas): string[] {
  const out: string[] = [];
  for (const [id, setting] of Object.entries(rules ?? {})) {
    if (!Array.isArray(setting) || setting.length < 2 || !schemas.has(id)) continue;
    const schema = schemas.get(id);
    const at = `/rules/${id}/1`;
    if (!schema) {
      out.push(`${at}: rule '${id}' takes no options. Give only its severity.`);
      continue;
    }
    let v = optionValidators.get(schema);
    if (!v) optionValidators.set(schema, (v = ajv().compile(schema)));
    if (v(setting[1])) continue;
    for (const e of v.errors ?? []) {
      const pointer = at + e.instancePath;
      if (e.keyword === 'additionalProperties' && e.instancePath === '') {
        const allowed = Object.keys((schema.properties as object | undefined) ?? {}).join(', ');
        out.push(`${pointer}: rule '${id}' has no option '${(e.params as { additionalProperty: string }).additionalProperty}'. Allowed: ${allowed}; see 'vaudit rules ${id}'.`);
      } else out.push(hint({ ...e, instancePath: pointer }));
    }
  }
  return out;
}

function hint(e: ErrorObject): string {
  const at = e.instancePath || '/';
  switch (e.keyword) {
    case 'additionalProperties':
      return `${at}: unknown property '${(e.params as { additionalProperty: string }).additionalProperty}'. Allowed: root, include, exclude, adapter, adapterOptions, rules, ignores, confirm.`;
    case 'enum':
      return `${at}: must be one of ${(e.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(', ')}.`;
    case 'oneOf':
      return `${at}: a rule setting is "off", "warn", "error", or ["warn", { options }].`;
    case 'required':
      return `${at}: missing required property '${(e.params as { missingProperty: string }).missingProperty}'.`;
    case 'pattern':
      return `${at}: ${e.message}. Rule ids are kebab-case (run 'vaudit rules' for the list).`;
    default:
      return `${at}: ${e.message}.`;
  }
}

/** Parse and validate one config file. Throws ConfigError. */
function readConfigFile(file: string, knownRules?: RuleOptionSchemas): VauditConfig {
  let doc: unknown;
  try {
    doc = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new ConfigError(file, [`not valid JSON: ${(err as Error).message}`]);
  }
  const errors = validate(doc);
  // oneOf failures come with their branch errors; keep the most specific message per pointer.
  const seen = new Set<string>();
  const problems: string[] = [];
  for (const e of errors) {
    if (e.keyword === 'oneOf' || !errors.some((o) => o.keyword === 'oneOf' && e.instancePath.startsWith(o.instancePath) && o !== e)) {
      const h = hint(e);
      if (!seen.has(h)) { seen.add(h); problems.push(h); }
    }
  }
  if (problems.length === 0 && knownRules) {
    for (const id of Object.keys((doc as VauditConfig).rules ?? {})) {
      if (!knownRules.has(id)) problems.push(`/rules/${id}: unknown rule '${id}'. Run 'vaudit rules' for the list.`);
    }
    problems.push(...ruleOptionProblems((doc as VauditConfig).rules, knownRules));
  }
  if (problems.length) throw new ConfigError(file, problems);
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
