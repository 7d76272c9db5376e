/**
 * The vaudit command line. Exit codes: 0 clean, 1 findings over the threshold,
 * 2 usage, configuration or internal error.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { runCheck } from './check.js';
import { runRules } from './rules-cmd.js';
import { runInit } from './init.js';
import { EXIT_USAGE, UsageError } from './exit-codes.js';
import { formatNames, registerFormat } from './format.js';
import { runMerge } from './merge.js';
import { parseShard, ShardSpecError } from './shard.js';
import { formatMarkdown } from '../report/markdown.js';
import { formatHtml } from '../report/html.js';
import { VERSION } from './version.js';
import { ConfigError, ConfigResolver } from '../config/load.js';
import { closePrestarted } from '../host/threads.js';

/** An integer option with a lower bound (`--max-warnings -1` means no limit, as in ESLint). */
function intArg(name: string, min: number) {
  return (v: string) => {
    const n = Number(v);
    if (v.trim() === '' || !Number.isInteger(n)) throw new InvalidArgumentError(`${name} must be an integer.`);
    if (n < min) throw new InvalidArgumentError(min === 1 ? `${name} must be at least 1.` : `${name} must be ${min} or more.`);
    return n;
  };
}

/** `--rule a,b --rule c`: every id given, in order (not variadic: `--rule a tasks/` keeps `tasks/` a path). */
function ruleIds(v: string, prev: string[] | undefined): string[] {
  return [...(prev ?? []), ...v.split(',').map((s) => s.trim()).filter(Boolean)];
}

registerFormat('markdown', formatMarkdown);
registerFormat('html', formatHtml);

function shardArg(v: string) {
  try {
    return parseShard(v);
  } catch (e) {
    if (e instanceof ShardSpecError) throw new InvalidArgumentError(e.message);
    throw e;
  }
}

function readStdin(): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    process.stdin.on('data', (c: Buffer) => chunks.push(c));
    process.stdin.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    process.stdin.on('error', reject);
  });
}

/** A standard stream that failed for a reason other than a closed reader (a full disk): the run ends with 2. */
let streamFailure: string | undefined;

/**
 * Writes to a standard stream that a failing stream does not crash: `vaudit check | head` closes the
 * pipe after its lines, and Node reports the next write as an unhandled 'error' event (EPIPE: a stack
 * trace, exit 1). As `cat` or `ruff` do, what a closed reader no longer wants is dropped quietly and the
 * run exits with its own code (a shell reads it from PIPESTATUS). Any other write error (ENOSPC) is
 * said in one line, and the run exits 2: its report is incomplete.
 */
function writerTo(stream: NodeJS.WriteStream, name: string): (s: string) => void {
  let failed = false;
  stream.on('error', (e: NodeJS.ErrnoException) => {
    failed = true;
    if (e.code !== 'EPIPE') streamFailure ??= `vaudit: cannot write to ${name}: ${e.code ?? e.message}\n`;
  });
  return (s) => {
    if (!failed) stream.write(s);
  };
}

export async function main(argv: string[]): Promise<number> {
  let code = 0;
  const out = writerTo(process.stdout, 'standard output');
  const err = writerTo(process.stderr, 'standard error');
  const program = new Command();
  program.exitOverride();
  program
    .name('vaudit')
    .description('Static verifier audit linter for agent benchmarks and RL environments.')
    .version(VERSION, '-v, --version')
    .showHelpAfterError('(run vaudit --help for usage)')
    .configureOutput({ writeOut: out, writeErr: err });

  program
    .command('check')
    .description('Lint task suites and verifier code; with --confirm, run control cases that prove each finding.')
    .argument('[paths...]', 'files or folders (default: the current folder)')
    .option('--confirm', 'run host-executed control cases for findings that support them')
    .addOption(new Option('-f, --format <format>', 'output format').choices(formatNames()).default('stylish'))
    .option('-o, --output-file <file>', 'write the report to a file')
    .option('--max-warnings <n>', 'exit 1 when there are more warnings than this (-1: no limit)', intArg('--max-warnings', -1))
    .option('--quiet', 'report errors only')
    .option('--baseline <file>', 'only findings beyond this baseline fail')
    .option('--baseline-write <file>', 'write the current findings as a baseline')
    .option('--force-exclude', 'apply config excludes to explicitly named files too')
    .option('--stdin-filename <name>', 'lint standard input as if it were this file')
    .option('-c, --config <file>', 'use this config file instead of discovery')
    .option('--rule <ids>', 'run only these rules: comma-separated, or the option repeated (paths after it stay paths)', ruleIds)
    .option('--jobs <n>', 'parallel control-case workers (1 or more)', intArg('--jobs', 1))
    .option('--confirm-timeout <ms>', 'wall-clock bound of one control case', intArg('--confirm-timeout', 1))
    .addOption(new Option('--isolation <level>', "control-case isolation: auto (default; bubblewrap, else the suite's code is not run), bwrap, or process (explicit; not a sandbox)").choices(['auto', 'bwrap', 'process']))
    .option('--python <path>', "Python interpreter for control cases (e.g. the benchmark's own virtual environment; config confirm.python)")
    .option('--color', 'force colour')
    .option('--no-color', 'disable colour')
    .option('--cache', 'reuse the previous result when no input, rule or config changed, else the parsed trees of unchanged Python')
    .option('--cache-location <dir>', 'cache folder (default .vaudit-cache)')
    .option('--changed-since <rev>', 'check only files changed since this git revision (plus tasks routed to them)')
    .addOption(new Option('--scope <scope>', 'report findings on verifier paths only (default) or in all code').choices(['verifier', 'all']))
    .option('--shard <i/n>', 'keep shard i of n of the findings and control cases (CI matrix; merge with vaudit merge)', shardArg)
    .option('--fix', "apply the findings' safe fixes (add timeout=, rename a misspelt task member, remove an unused suppression), then report what is left")
    .option('--fix-dry-run', 'as --fix, but write nothing: print the changes as a diff (stderr)')
    .option('--debug', 'print what ran (Python parser, regex analysis, time and memory) to stderr')
    .option('--no-error-on-unmatched-pattern', 'exit 0 instead of 2 when a folder holds no file vaudit checks')
    .action(async (paths: string[], opts) => {
      code = await runCheck(paths, { ...opts, format: opts.format }, {
        cwd: process.cwd(), stdout: out, stderr: err, readStdin, isTTY: !!process.stdout.isTTY, stderrIsTTY: !!process.stderr.isTTY,
      });
    });

  program
    .command('init')
    .description('Write a vaudit.config.json for the suite in a folder (adapter, include globs, the rules that apply) and print what was detected.')
    .argument('[folder]', 'the suite\'s folder (default: the current folder)')
    .option('--force', 'replace an existing vaudit.config.json')
    .action(async (folder: string | undefined, opts: { force?: boolean }) => {
      code = await runInit(folder, opts, { cwd: process.cwd(), stdout: out });
    });

  program
    .command('merge')
    .description('Merge JSON reports (e.g. the shards of a --shard CI matrix) into one report.')
    .argument('<reports...>', 'JSON reports written by vaudit check --format json')
    .addOption(new Option('-f, --format <format>', 'output format').choices(formatNames()).default('json'))
    .option('-o, --output-file <file>', 'write the merged report to a file')
    .action(async (reports: string[], opts: { format: string; outputFile?: string }) => {
      code = await runMerge(reports, opts, { cwd: process.cwd(), stdout: out, stderr: err });
    });

  program
    .command('rules')
    .description('List the rules, or show one rule\'s documentation.')
    .argument('[id]', 'rule id')
    .addOption(new Option('-f, --format <format>', 'output format').choices(['text', 'markdown', 'json']).default('text'))
    .action(async (id: string | undefined, opts: { format: string }) => {
      code = await runRules(id, opts, out);
    });

  program
    .command('doctor')
    .description('Show what this machine can confirm: isolation level, Python interpreter, helpers (with sha256).')
    .option('--python <path>', 'the Python interpreter control cases would use (default: confirm.python of the config, else python3)')
    .option('-c, --config <file>', 'config file to read confirm.python / confirm.isolation from (default: discovered from the current folder)')
    .addOption(new Option('--isolation <level>', 'isolation policy to check').choices(['auto', 'bwrap', 'process']))
    .addOption(new Option('-f, --format <format>', 'output format').choices(['text', 'json']).default('text'))
    .action(async (opts: { python?: string; config?: string; isolation?: 'auto' | 'bwrap' | 'process'; format: string }) => {
      const { doctor, formatDoctor } = await import('../confirm/doctor.js');
      const cwd = process.cwd();
      if (opts.config && !existsSync(path.resolve(cwd, opts.config))) throw new UsageError(`Config file not found: ${opts.config} (given with -c/--config).`);
      // the config `vaudit check --confirm` would read from this folder; its python is relative to its folder
      const cfg = new ConfigResolver(cwd, undefined, opts.config ? path.resolve(cwd, opts.config) : undefined).forDir(cwd);
      const confirm = cfg.config.confirm;
      const d = await doctor({
        root: cwd,
        isolation: opts.isolation ?? confirm?.isolation,
        python: opts.python ? path.resolve(cwd, opts.python) : undefined,
        config: { path: cfg.path, python: confirm?.python ? path.resolve(cfg.dir, confirm.python) : undefined },
      });
      out(opts.format === 'json' ? JSON.stringify(d, null, 2) + '\n' : formatDoctor(d));
      code = d.python.version && 'level' in d.isolation ? 0 : 1;
    });

  program
    .command('lsp')
    .description('Run the language server (LSP) over standard input/output, for editors.')
    .option('--stdio', 'communicate over stdin/stdout (the default and only transport)')
    .action(async () => {
      const { runStdioServer } = await import('../lsp/server.js');
      code = await runStdioServer();
    });

  try {
    await program.parseAsync(argv, { from: 'user' });
    // a write that fails is reported when the stream says so, after the last write was queued
    await new Promise((resolve) => setImmediate(resolve));
    if (streamFailure) {
      process.stderr.write(streamFailure);
      return EXIT_USAGE;
    }
    return code;
  } catch (e) {
    if (e instanceof CommanderError) {
      if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || e.code === 'commander.help') return 0;
      return EXIT_USAGE;
    }
    if (e instanceof UsageError) {
      err(`vaudit: ${e.message}\n`);
      return EXIT_USAGE;
    }
    if (e instanceof ConfigError) {
      err(`vaudit: ${e.message}\n`);
      return EXIT_USAGE;
    }
    err(`vaudit: internal error: ${(e as Error)?.stack ?? String(e)}\nPlease report this.\n`);
    return EXIT_USAGE;
  } finally {
    // threads bin/prestart.js started that no check adopted (a usage error, a command that parses nothing)
    closePrestarted();
  }
}

