/** The "Disable <rule>" edits: small, valid, and honoured by the engine's suppression parser. */
import { describe, expect, it } from 'vitest';
import { jsDisableEdit, jsonDisableEdit, objectPointerFor, pythonDisableEdit } from '../src/lsp/edits.js';
import { applyEdits } from '../src/core/fix.js';
import { parseJsonDocument } from '../src/lang/json/parse.js';
import { commentSuppressions, jsonSuppressions } from '../src/engine/suppress.js';
import { SourceText } from '../src/core/source.js';
import type { SourceFile } from '../src/core/source.js';
import type { Language } from '../src/core/types.js';

const file = (text: string, language: Language): SourceFile => ({ path: '/x', relPath: 'x', language, source: new SourceText(text) });

function jsonEdit(text: string, pointer: string, rule: string) {
  const parsed = parseJsonDocument(text);
  if (!parsed.ok) throw new Error('bad fixture');
  const r = jsonDisableEdit(text, parsed.doc.values, pointer, rule);
  if (!r) return undefined;
  const out = applyEdits(text, [r.edit]);
  const again = parseJsonDocument(out);
  if (!again.ok) throw new Error(`edit made invalid JSON:\n${out}`);
  return { out, objectPointer: r.objectPointer, sups: jsonSuppressions(file(out, 'json'), again.doc.values) };
}

describe('task JSON: "//vaudit-ignore" member', () => {
  const task = '{\n  "type": "ChimeraX",\n  "evaluate": [\n    {"type": "states", "key": "lambda k: k"},\n    {\n      "type": "info",\n      "pred": "lambda a, b: a == b"\n    }\n  ]\n}\n';

  it('inserts into the object the pointer names, on one line when the object is on one line', () => {
    const r = jsonEdit(task, '/evaluate/0/key', 'lambda-syntax')!;
    expect(r.objectPointer).toBe('/evaluate/0');
    expect(r.out).toContain('{"//vaudit-ignore": ["lambda-syntax"], "type": "states", "key": "lambda k: k"}');
    expect(r.sups.map((s) => [s.pointer, s.rules])).toEqual([['/evaluate/0', ['lambda-syntax']]]);
  });

  it('keeps the indentation of a multi-line object and changes nothing else', () => {
    const r = jsonEdit(task, '/evaluate/1/pred', 'lambda-arity')!;
    expect(r.out).toBe(task.replace('{\n      "type": "info"', '{\n      "//vaudit-ignore": ["lambda-arity"],\n      "type": "info"'));
    expect(r.sups[0]!.pointer).toBe('/evaluate/1');
  });

  it('uses the task object for task-level pointers and arrays', () => {
    const r = jsonEdit(task, '/evaluate', 'ans-mismatch')!;
    expect(r.objectPointer).toBe('');
    expect(r.out.startsWith('{\n  "//vaudit-ignore": ["ans-mismatch"],\n  "type": "ChimeraX"')).toBe(true);
  });

  it('adds to an existing member (array, string), and offers nothing when the rule is already there', () => {
    const withArr = '{"type": "Lean", "evaluate": [{"//vaudit-ignore": ["a"], "type": "placeholder"}]}';
    expect(jsonEdit(withArr, '/evaluate/0', 'b')!.out).toContain('"//vaudit-ignore": ["a", "b"]');
    expect(jsonEdit(withArr, '/evaluate/0', 'a')).toBeUndefined();
    const withEmpty = '{"evaluate": [{"//vaudit-ignore": [], "type": "x"}]}';
    expect(jsonEdit(withEmpty, '/evaluate/0', 'b')!.out).toContain('"//vaudit-ignore": ["b"]');
    const withStr = '{"evaluate": [{"//vaudit-ignore": "a", "type": "x"}]}';
    expect(jsonEdit(withStr, '/evaluate/0/type', 'b')!.out).toContain('"//vaudit-ignore": ["a", "b"]');
  });

  it('handles an empty object, CRLF files and pointer escapes', () => {
    expect(jsonEdit('{"evaluate": [{}]}', '/evaluate/0', 'x')!.out).toBe('{"evaluate": [{"//vaudit-ignore": ["x"]}]}');
    const crlf = '{\r\n  "a/b": {\r\n    "k": 1\r\n  }\r\n}';
    const r = jsonEdit(crlf, '/a~1b/k', 'x')!;
    expect(r.objectPointer).toBe('/a~1b');
    expect(r.out).toBe('{\r\n  "a/b": {\r\n    "//vaudit-ignore": ["x"],\r\n    "k": 1\r\n  }\r\n}');
  });

  it('finds no object for a pointer outside the document', () => {
    const parsed = parseJsonDocument('[1, 2]');
    expect(parsed.ok && objectPointerFor(parsed.doc.values, '/0')).toBeUndefined();
  });
});

describe('Python: # vaudit: ignore[rule]', () => {
  it('appends a trailing directive the engine applies to that line', () => {
    const text = 'import subprocess\nsubprocess.run(["x"])   \nprint(1)\n';
    const e = pythonDisableEdit(text, 1, 'missing-timeout')!;
    const out = applyEdits(text, [e]);
    expect(out).toBe('import subprocess\nsubprocess.run(["x"])  # vaudit: ignore[missing-timeout]   \nprint(1)\n');
    expect(commentSuppressions(file(out, 'python')).map((s) => [s.line, s.rules])).toEqual([[2, ['missing-timeout']]]);
  });

  it('extends an existing directive and skips a rule already listed', () => {
    const text = 'x = f()  # vaudit: ignore[a]\n';
    expect(applyEdits(text, [pythonDisableEdit(text, 0, 'b')!])).toBe('x = f()  # vaudit: ignore[a, b]\n');
    expect(pythonDisableEdit(text, 0, 'a')).toBeUndefined();
  });

  it('refuses lines that end inside a triple-quoted string or after a backslash', () => {
    const text = 'x = """abc\ndef"""\ny = 1 + \\\n  2\n';
    expect(pythonDisableEdit(text, 0, 'r')).toBeUndefined();
    expect(pythonDisableEdit(text, 2, 'r')).toBeUndefined();
    expect(pythonDisableEdit(text, 1, 'r')).toEqual({ start: 17, end: 17, newText: '  # vaudit: ignore[r]' });
  });

  it('is not fooled by quotes inside comments or a # inside a string', () => {
    const text = "a = 1  # don't\ns = '#'\n";
    expect(applyEdits(text, [pythonDisableEdit(text, 1, 'r')!])).toBe("a = 1  # don't\ns = '#'  # vaudit: ignore[r]\n");
  });
});

describe('JavaScript/TypeScript: // vaudit-ignore-next-line', () => {
  it('inserts a directive above with the same indentation', () => {
    const text = 'function f() {\n    return fetch(u);\n}\n';
    const out = applyEdits(text, [jsDisableEdit(text, 1, 'missing-timeout')!]);
    expect(out).toBe('function f() {\n    // vaudit-ignore-next-line missing-timeout\n    return fetch(u);\n}\n');
    expect(commentSuppressions(file(out, 'javascript')).map((s) => [s.line, s.rules])).toEqual([[3, ['missing-timeout']]]);
  });

  it('extends the directive on the line above', () => {
    const text = '// vaudit-ignore-next-line a\nx();\n';
    expect(applyEdits(text, [jsDisableEdit(text, 1, 'b')!])).toBe('// vaudit-ignore-next-line a, b\nx();\n');
  });

  it('refuses a line inside a template literal or block comment', () => {
    const text = 'const s = `a\n${x}\nb`;\n/* c\nd */ y();\nz();\n';
    expect(jsDisableEdit(text, 1, 'r')).toBeUndefined();
    expect(jsDisableEdit(text, 4, 'r')).toBeUndefined();
    expect(jsDisableEdit(text, 5, 'r')).toBeDefined();
  });
});
