/**
 * Inputs for bundle control cases.
 *
 * Declared: `<bundle name without extension>.cases.json` beside the bundle (`model.ts` → `model.cases.json`),
 * see src/confirm/bundle/README.md. Generated (when nothing is declared): from the projections — every
 * declared artifact file and public-input field filled with witness strings, in four variants:
 * valid-looking files and fields, the same with the bundle's own string constants written in (reaches
 * `content.includes('…')` branches), empty fields, and a malformed input (fields absent). Files and
 * fields the bundle reads but does not declare are supplied too (a real submission carries more than
 * the projection names): their bytes are then not declared leaves, which is what the origin check
 * must see.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { ts } from 'ts-morph';
import type { BundleCase, CaseInput, ScriptedAnswer } from './types.js';
import type { PreparedBundle } from './load.js';

const CASE_KINDS = ['valid', 'wrong-but-valid', 'malformed', 'equivalent-valid'] as const;

function casesFileFor(bundleFile: string): string {
  const b = basename(bundleFile).replace(/\.(ts|mts|cts|js|mjs|cjs)$/i, '');
  return join(dirname(bundleFile), `${b}.cases.json`);
}

function isAnswer(v: unknown): v is ScriptedAnswer {
  return !!v && typeof v === 'object' && !Array.isArray(v) && ('exitCode' in v || 'outcome' in v);
}

function checkAnswer(v: unknown, where: string, problems: string[]): void {
  const list = Array.isArray(v) ? v : [v];
  for (const a of list) {
    if (!isAnswer(a)) {
      problems.push(`${where} must be a tool answer ({ exitCode, stdout?, stderr? } or { outcome })`);
      continue;
    }
    const o = (a as { outcome?: unknown }).outcome ?? 'executed';
    if (!['executed', 'timeout', 'crash', 'sandbox', 'verifierUnavailable'].includes(String(o))) problems.push(`${where}.outcome '${String(o)}' is not a run outcome`);
    if (o === 'executed' && typeof (a as { exitCode?: unknown }).exitCode !== 'number') problems.push(`${where}.exitCode must be a number`);
  }
}

/** Read the declared cases of a bundle; `undefined` when there is no cases file. */
export function readDeclaredCases(bundleFile: string): CaseInput[] | { error: string } | undefined {
  const path = casesFileFor(bundleFile);
  if (!existsSync(path)) return undefined;
  let doc: unknown;
  try {
    doc = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    return { error: `${basename(path)} is not valid JSON: ${(e as Error).message}` };
  }
  const problems: string[] = [];
  const list = (doc as { cases?: unknown })?.cases;
  if (!Array.isArray(list) || list.length === 0) return { error: `${basename(path)} must hold a non-empty \`cases\` array` };
  const out: CaseInput[] = [];
  const ids = new Set<string>();
  list.forEach((c: Record<string, unknown>, i) => {
    const where = `cases[${i}]`;
    if (!c || typeof c !== 'object') return void problems.push(`${where} must be an object`);
    const id = typeof c.id === 'string' && c.id ? c.id : `case-${i}`;
    if (ids.has(id)) problems.push(`${where}.id '${id}' is not unique`);
    ids.add(id);
    const kind = c.kind ?? 'valid';
    if (!(CASE_KINDS as readonly unknown[]).includes(kind)) problems.push(`${where}.kind must be one of ${CASE_KINDS.join(', ')}`);
    const artifact = c.artifact ?? {};
    if (typeof artifact !== 'object' || Array.isArray(artifact) || Object.values(artifact as object).some((v) => typeof v !== 'string'))
      problems.push(`${where}.artifact must map file names to strings`);
    const publicInput = c.publicInput ?? {};
    if (typeof publicInput !== 'object' || Array.isArray(publicInput)) problems.push(`${where}.publicInput must be an object`);
    if (c.tool !== undefined) {
      if (isAnswer(c.tool) || Array.isArray(c.tool)) checkAnswer(c.tool, `${where}.tool`, problems);
      else if (typeof c.tool === 'object' && c.tool) for (const [k, v] of Object.entries(c.tool)) checkAnswer(v, `${where}.tool.${k}`, problems);
      else problems.push(`${where}.tool must be a tool answer, a list of them, or a map from check id to either`);
    }
    if (c.expect !== undefined && (typeof c.expect !== 'object' || Object.values(c.expect as object).some((v) => v !== 'pass' && v !== 'fail')))
      problems.push(`${where}.expect must map check ids to 'pass' or 'fail'`);
    out.push({
      id,
      kind: kind as CaseInput['kind'],
      source: 'declared',
      label: `declared ${String(kind)} case \`${id}\`${typeof c.description === 'string' ? ` (${c.description})` : ''}`,
      artifact: artifact as Record<string, string>,
      publicInput: publicInput as Record<string, unknown>,
      ...(c.tool !== undefined ? { tool: c.tool as CaseInput['tool'] } : {}),
      ...(c.expect !== undefined ? { expect: c.expect as Record<string, 'pass' | 'fail'> } : {}),
    });
  });
  if (problems.length) return { error: `${basename(path)}: ${problems.slice(0, 5).join('; ')}` };
  return out;
}

function witnessFile(name: string): string {
  const tag = `vaudit witness ${name}`;
  if (/\.(c|h|cc|cpp|hpp|cxx|java|cs|go|rs|swift|kt|scala)$/i.test(name)) return `/* ${tag} */\nint main(void) { return 0; }\n`;
  if (/\.py$/i.test(name)) return `# ${tag}\ndef main():\n    print("vaudit-witness")\n\n\nif __name__ == "__main__":\n    main()\n`;
  if (/\.(js|mjs|cjs|ts|mts|cts)$/i.test(name)) return `// ${tag}\nconsole.log("vaudit-witness");\n`;
  if (/\.(tex|sty|cls)$/i.test(name)) return `% ${tag}\n\\documentclass{article}\n\\begin{document}\nvaudit\n\\end{document}\n`;
  if (/\.lean$/i.test(name)) return `-- ${tag}\ntheorem vaudit_witness : True := trivial\n`;
  if (/\.(sh|bash)$/i.test(name)) return `# ${tag}\necho vaudit-witness\n`;
  if (/\.json$/i.test(name)) return `{"vaudit": "witness ${name}"}\n`;
  return `${tag}\n`;
}

/** Member names of built-ins and of the bundle contract: never data keys of a public-input element. */
const NOT_KEYS = new Set<string>([
  ...Object.getOwnPropertyNames(String.prototype),
  ...Object.getOwnPropertyNames(Array.prototype),
  ...Object.getOwnPropertyNames(Object.prototype),
  ...Object.getOwnPropertyNames(Promise.prototype),
  ...Object.getOwnPropertyNames(Function.prototype),
  ...Object.getOwnPropertyNames(RegExp.prototype),
  ...Object.getOwnPropertyNames(Map.prototype),
  ...Object.getOwnPropertyNames(JSON),
  ...Object.getOwnPropertyNames(Math),
  ...Object.getOwnPropertyNames(Object),
  ...Object.getOwnPropertyNames(Promise),
  ...['tools', 'run', 'files', 'artifact', 'publicInput', 'outcome', 'exitCode', 'stdout', 'stderr', 'verdict', 'detail', 'checks', 'evaluate'],
  ...['log', 'error', 'warn', 'info', 'debug', 'env', 'argv', 'url', 'meta', 'exports', 'default', 'prototype'],
]);
const ARRAY_USE = /^\s*(?:\?\.)?(?:\.\s*(?:map|forEach|length|filter|some|every|flatMap|reduce|slice|entries|keys|values|find|findIndex|at|indexOf)\b|\[\s*\d)/;

interface TextFacts {
  constants: string[];
  elementKeys: string[];
  undeclaredFiles: string[];
  undeclaredFields: string[];
  arrayFields: Set<string>;
  objectFields: Map<string, string[]>;
}

function textFacts(b: PreparedBundle): TextFacts {
  const text = b.text;
  const model = b.model;
  const declaredFiles = new Set(model?.declaredFiles ?? []);
  const declaredFields = model?.declaredFields ?? [];
  const sf = ts.createSourceFile(b.file, text, ts.ScriptTarget.Latest, true, /\.(c|m)?js$/i.test(b.file) ? ts.ScriptKind.JS : ts.ScriptKind.TS);
  const constants = new Set<string>();
  const keys = new Set<string>();
  const undeclaredFiles = new Set<string>();
  const undeclaredFields = new Set<string>();
  const visit = (n: ts.Node): void => {
    if ((ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n)) && !ts.isImportDeclaration(n.parent) && !ts.isExportDeclaration(n.parent)) {
      if (n.text.length >= 2 && n.text.length <= 80 && !ts.isPropertyAssignment(n.parent)) constants.add(n.text);
      if (ts.isElementAccessExpression(n.parent) && n.parent.argumentExpression === n && /\.[A-Za-z0-9]+$/.test(n.text) && !declaredFiles.has(n.text)) {
        if (/\bfiles\b/.test(n.parent.expression.getText(sf))) undeclaredFiles.add(n.text);
      }
    }
    if (ts.isPropertyAccessExpression(n)) {
      const name = n.name.text;
      if (!NOT_KEYS.has(name)) keys.add(name);
      if (/(^|\.)publicInput$/.test(n.expression.getText(sf)) && !declaredFields.includes(name)) undeclaredFields.add(name);
    }
    if (ts.isBindingElement(n) && ts.isObjectBindingPattern(n.parent)) {
      const name = n.propertyName && ts.isIdentifier(n.propertyName) ? n.propertyName.text : ts.isIdentifier(n.name) ? n.name.text : undefined;
      if (name && !NOT_KEYS.has(name) && !['input', 'runtime'].includes(name)) keys.add(name);
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  for (const f of declaredFields) keys.delete(f);
  for (const f of undeclaredFields) keys.delete(f);
  const arrayFields = new Set<string>();
  const objectFields = new Map<string, string[]>();
  for (const f of declaredFields) {
    const re = new RegExp(String.raw`\b${f.replace(/[$]/g, '\\$')}\b`, 'g');
    let m: RegExpExecArray | null;
    while ((m = re.exec(text))) {
      const after = text.slice(m.index + f.length, m.index + f.length + 40);
      const before = text.slice(Math.max(0, m.index - 40), m.index);
      if (ARRAY_USE.test(after) || /\bof\s+[\w$.]*$/.test(before)) arrayFields.add(f);
      const member = /^\s*(?:\?\.|\.)\s*([A-Za-z_$][\w$]*)/.exec(after);
      if (member && !NOT_KEYS.has(member[1]!)) objectFields.set(f, [...(objectFields.get(f) ?? []), member[1]!]);
    }
  }
  return {
    constants: [...constants].slice(0, 24),
    elementKeys: [...keys].slice(0, 24),
    undeclaredFiles: [...undeclaredFiles],
    undeclaredFields: [...undeclaredFields],
    arrayFields,
    objectFields,
  };
}

/** Generated inputs from the projections (see the file comment). */
function generateInputs(b: PreparedBundle): CaseInput[] {
  const model = b.model;
  const files = model?.declaredFiles ?? [];
  const fields = model?.declaredFields ?? [];
  const facts = textFacts(b);
  // Every key of an element holds the same witness string, so a tool that echoes its stdin answers
  // exactly what an `expected`-like key holds (a valid run); the variant with the bundle's constants
  // ends values with a newline, so transformed leaves (`.trim()`) differ from the declared bytes.
  const element = (field: string, i: number, extra = ''): Record<string, string> | string => {
    if (!facts.elementKeys.length) return `vaudit-${field}-${i}${extra}`;
    return Object.fromEntries(facts.elementKeys.map((k) => [k, `vaudit-${field}-${i}${extra}`]));
  };
  const fieldValue = (f: string, extra: string): unknown => {
    if (facts.arrayFields.has(f)) return [element(f, 0, extra), element(f, 1, extra)];
    const members = facts.objectFields.get(f);
    if (members?.length) return Object.fromEntries(members.map((k) => [k, `vaudit-${f}${extra}`]));
    return `vaudit-${f}${extra}`;
  };
  const emptyValue = (f: string): unknown => (facts.arrayFields.has(f) ? [] : facts.objectFields.get(f)?.length ? {} : '');
  const extraFiles = Object.fromEntries(facts.undeclaredFiles.map((n) => [n, `vaudit undeclared file ${n}\n`]));
  const extraFields = Object.fromEntries(facts.undeclaredFields.map((n) => [n, `vaudit-undeclared-${n}\n`]));
  const baseFiles = Object.fromEntries(files.map((n) => [n, witnessFile(n)]));
  const constLines = facts.constants.length ? `\n${facts.constants.join('\n')}\n` : '';
  const constFiles = Object.fromEntries(Object.entries(baseFiles).map(([n, c]) => [n, c + constLines.slice(1)]));
  const constExtra = facts.constants.length ? ` ${facts.constants.join(' ')}\n` : '';
  const describe = (what: string) => `generated ${what} (artifact: ${files.join(', ') || 'no files'}${fields.length ? `; publicInput: ${fields.join(', ')}` : ''})`;
  const out: CaseInput[] = [
    {
      id: 'gen-valid',
      kind: 'generated',
      source: 'generated',
      label: describe('witness input'),
      artifact: baseFiles,
      publicInput: Object.fromEntries(fields.map((f) => [f, fieldValue(f, '')])),
    },
  ];
  if (facts.undeclaredFiles.length || facts.undeclaredFields.length) {
    out.push({
      id: 'gen-undeclared',
      kind: 'generated',
      source: 'generated',
      label: describe(`witness input that also carries what the bundle reads but does not declare (${[...facts.undeclaredFiles, ...facts.undeclaredFields.map((f) => `publicInput.${f}`)].join(', ')})`),
      artifact: { ...extraFiles, ...baseFiles },
      publicInput: { ...extraFields, ...Object.fromEntries(fields.map((f) => [f, fieldValue(f, '')])) },
    });
  }
  if (facts.constants.length) {
    out.push({
      id: 'gen-constants',
      kind: 'generated',
      source: 'generated',
      label: describe("witness input holding the bundle's own string constants"),
      artifact: constFiles,
      publicInput: Object.fromEntries(fields.map((f) => [f, fieldValue(f, constExtra)])),
    });
  }
  if (fields.length) {
    out.push({
      id: 'gen-empty',
      kind: 'generated',
      source: 'generated',
      label: describe('input with empty public-input fields'),
      artifact: baseFiles,
      publicInput: Object.fromEntries(fields.map((f) => [f, emptyValue(f)])),
    });
  }
  out.push({
    id: 'gen-malformed',
    kind: 'malformed',
    source: 'generated',
    label: describe('malformed input (empty files, public-input fields absent)'),
    artifact: Object.fromEntries(Object.keys(baseFiles).map((n) => [n, ''])),
    publicInput: {},
  });
  return out;
}

const inputsCache = new Map<string, CaseInput[] | { error: string }>();

/** Declared inputs when the bundle has a cases file, else generated ones (cached on both texts). */
export function inputsFor(b: PreparedBundle): CaseInput[] | { error: string } {
  let declared = '';
  try {
    declared = readFileSync(casesFileFor(b.file), 'utf8');
  } catch {
    /* none */
  }
  const key = createHash('sha256').update(b.file).update('\0').update(b.text).update('\0').update(declared).digest('hex');
  let v = inputsCache.get(key);
  if (!v) {
    v = readDeclaredCases(b.file) ?? generateInputs(b);
    if (inputsCache.size >= 256) inputsCache.clear();
    inputsCache.set(key, v);
  }
  return v;
}

export const EXIT_0: ScriptedAnswer = { outcome: 'executed', exitCode: 0, stdout: '', stderr: '' };
/** Exit 0 with stdout = stdin: the generated cases' valid answer. */
const EXIT_0_ECHO: ScriptedAnswer = { outcome: 'executed', exitCode: 0, stderr: '', echoStdin: true };
const EXIT_1: ScriptedAnswer = { outcome: 'executed', exitCode: 1, stdout: '', stderr: 'error: rejected by the tool\n' };
const FORCED: ScriptedAnswer[] = (['timeout', 'crash', 'verifierUnavailable', 'sandbox'] as const).map((o) => ({ outcome: o, detail: `forced ${o} (vaudit control case)` }));

function label(a: ScriptedAnswer): string {
  return a.outcome === 'executed' ? `exit ${a.exitCode}${a.echoStdin ? ' (stdout = stdin)' : ''}` : `forced ${a.outcome}`;
}

/** The tool answers of an input for a check: its declared answer(s), or exit 0 and exit 1. */
export function executedAnswers(input: CaseInput, checkId: string): Array<{ label: string; default: ScriptedAnswer; perCall?: ScriptedAnswer[] }> {
  let t = input.tool;
  if (t && !isAnswer(t) && !Array.isArray(t)) t = (t as Record<string, ScriptedAnswer | ScriptedAnswer[]>)[checkId];
  if (t === undefined) return [input.source === 'generated' ? EXIT_0_ECHO : EXIT_0, EXIT_1].map((a) => ({ label: label(a), default: a }));
  const norm = (a: ScriptedAnswer): ScriptedAnswer => ('outcome' in a && a.outcome && a.outcome !== 'executed' ? a : { ...(a as object), outcome: 'executed' } as ScriptedAnswer);
  if (Array.isArray(t)) {
    const list = t.map(norm);
    return [{ label: `${list.map(label).join(', ')} (declared, one per call)`, default: list[list.length - 1]!, perCall: list }];
  }
  const a = norm(t as ScriptedAnswer);
  return [{ label: `${label(a)} (declared)`, default: a }];
}

/** Build a control case (ids are stable per bundle, check, input and answer, so oracles share cases). */
export function makeCase(
  b: PreparedBundle,
  check: { id: string; index: number },
  input: CaseInput,
  answer: { label: string; default: ScriptedAnswer; perCall?: ScriptedAnswer[]; atSite?: { site: string; answer: ScriptedAnswer } },
  ruleId: string,
  deadlineMs: number,
): BundleCase {
  return {
    id: `${b.file}#${check.index}:${check.id}|${input.id}|${answer.label}`,
    file: b.file,
    checkId: check.id,
    checkIndex: check.index,
    input,
    answers: { default: answer.default, ...(answer.perCall ? { perCall: answer.perCall } : {}), ...(answer.atSite ? { atSite: answer.atSite } : {}) },
    answerLabel: answer.label,
    deadlineMs,
    ruleIds: [ruleId],
  };
}

/**
 * Forced non-results. With `site` (an instrumented run call), only runs made there get the non-result and
 * the others exit 0, so an earlier run that passes its non-result through cannot hide the flagged one.
 */
export function forcedAnswers(site?: { key: string; line: number }): Array<{ label: string; default: ScriptedAnswer; atSite?: { site: string; answer: ScriptedAnswer } }> {
  if (!site) return FORCED.map((a) => ({ label: label(a), default: a }));
  return FORCED.map((a) => ({ label: `${label(a)} at line ${site.line}, exit 0 elsewhere`, default: EXIT_0_ECHO, atSite: { site: site.key, answer: a } }));
}
