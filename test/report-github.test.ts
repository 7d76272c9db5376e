/**
 * `--format github`: workflow commands, escaped per the Actions runner (ActionCommand.cs:
 * data escapes % \r \n; property values also : and ,). Lines are decoded here with the
 * runner's own algorithm and must round-trip. Multi-line ranges drop columns (GitHub
 * ignores them there).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { formatGithub } from '../src/report/github.js';
import { range, richInput, ROOT } from './helpers/report-input.js';
import { runCli } from './helpers/run-cli.js';

/** The runner's parser: `::name k=v,k=v::data`, then unescape. */
function parseCommand(line: string): { command: string; props: Record<string, string>; data: string } {
  const m = /^::([a-z-]+)(?: ([^:]*))?::(.*)$/s.exec(line);
  if (!m) throw new Error(`not a workflow command: ${line}`);
  const unData = (s: string) => s.replace(/%0D/g, '\r').replace(/%0A/g, '\n').replace(/%25/g, '%');
  const unProp = (s: string) => s.replace(/%0D/g, '\r').replace(/%0A/g, '\n').replace(/%3A/g, ':').replace(/%2C/g, ',').replace(/%25/g, '%');
  const props: Record<string, string> = {};
  for (const kv of (m[2] ?? '').split(',').filter(Boolean)) {
    const i = kv.indexOf('=');
    props[kv.slice(0, i)] = unProp(kv.slice(i + 1));
  }
  return { command: m[1]!, props, data: unData(m[3]!) };
}

/** The workflow-command lines of an output (it closes with a plain summary line). */
function commands(out: string): string[] {
  return out.trimEnd().split('\n').filter((l) => l.startsWith('::'));
}

describe('github workflow commands', () => {
  it('escapes data and properties so the runner decodes them exactly', () => {
    const f = richInput().findings[0]!;
    const weird = { ...f, file: path.join(ROOT, 'tasks/a,b:c%d.json'), message: 'Line one: 100% sure,\r\nline two.', confirmation: undefined, range: range(3, 5, 3, 9) };
    const out = formatGithub(richInput({ findings: [weird] }));
    const lines = out.trimEnd().split('\n');
    expect(lines).toHaveLength(2); // a newline in a message never starts a new command
    expect(lines[1]).toBe('vaudit: 1 problem (1 error, 0 warnings) in 4 files.'); // the closing summary
    expect(lines[0]).toContain('file=tasks/a%2Cb%3Ac%25d.json');
    const cmd = parseCommand(lines[0]!);
    expect(cmd).toEqual({
      command: 'error',
      props: { file: 'tasks/a,b:c%d.json', line: '3', col: '5', endColumn: '9', title: 'vaudit(unbound-name)' },
      data: 'Line one: 100% sure,\r\nline two.',
    });
  });

  it('drops columns for multi-line ranges and keeps them on one line', () => {
    const lines = commands(formatGithub(richInput())).map(parseCommand);
    expect(lines.map((l) => l.command)).toEqual(['error', 'error', 'warning']);
    // finding 0 spans lines 12–14: no col/endColumn
    expect(lines[0]!.props).toEqual({ file: 'verifier/chimerax/mixin.py', line: '12', endLine: '14', title: 'vaudit(unbound-name)' });
    // finding 1 is an empty range on one line
    expect(lines[1]!.props).toMatchObject({ line: '7', col: '20', endColumn: '20' });
    expect(lines[1]!.props).not.toHaveProperty('endLine');
    expect(lines[2]!.props).toMatchObject({ file: 'verifier/grassgis/mixin.py', line: '3', col: '1', endColumn: '30' });
    // the confirmation travels on a second (escaped) line of the message
    expect(lines[0]!.data).toMatch(/\nConfirmation: confirmed — fail \(NameError\)$/);
  });

  it('a range ending at the start of a later line ends on the line before', () => {
    const f = richInput().findings[2]!;
    const whole = formatGithub(richInput({ findings: [{ ...f, range: range(3, 1, 5, 1, 40, 90) }] }));
    expect(parseCommand(commands(whole)[0]!).props).toMatchObject({ line: '3', endLine: '4' });
    const oneLine = formatGithub(richInput({ findings: [{ ...f, range: range(3, 1, 4, 1, 40, 70) }] }));
    const p = parseCommand(commands(oneLine)[0]!).props;
    expect(p).toMatchObject({ line: '3', col: '1' });
    expect(p).not.toHaveProperty('endLine');
    expect(p).not.toHaveProperty('endColumn');
  });

  it('prints only the summary line for a clean run', () => {
    expect(formatGithub(richInput({ findings: [], runs: undefined }))).toBe('vaudit: no problems in 4 files.\n');
  });

  const work = mkdtempSync(path.join(tmpdir(), 'vaudit-gh-'));
  afterAll(() => rmSync(work, { recursive: true, force: true }));
  it('a real CLI run emits one command per finding with the exit code of the gate', () => {
    mkdirSync(path.join(work, 'v'), { recursive: true });
    writeFileSync(path.join(work, 'v', 'x, y.py'), 'def f(:\n    pass\n');
    const r = runCli(['check', '.', '--format', 'github'], { cwd: work });
    expect(r.code).toBe(1);
    const cmds = commands(r.stdout).map(parseCommand);
    expect(cmds).toHaveLength(1);
    expect(cmds[0]!.props.file).toBe('v/x, y.py');
    expect(cmds[0]!.props.line).toBe('1');
  });
});
