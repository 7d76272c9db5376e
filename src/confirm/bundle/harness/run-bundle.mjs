// vaudit bundle harness: runs correctness-model checks' `evaluate` with a recording runtime port.
//
// Started ONLY by the host (src/host/host.ts), as `harness.mjs` in a private cell that holds the
// transpiled bundles (`b<i>/…`) and vaudit's runtime module (`node_modules/vaudit/bundle.{js,cjs}`).
// Reads one JSON request on stdin:
//   { bundles: [{ entry }], cases: [{ id, bundle, checkId, checkIndex, artifact, publicInput,
//                                     answers: { default, perCall?, atSite? }, deadlineMs }] }
// and writes a ready line, then one line per finished case on stdout, each prefixed with MARK (bundle
// code may print too). See src/confirm/bundle/README.md.
//
// The runtime port records every `runtime.tools.run` call: the site (instrumented call expression),
// toolId, checkId, args, and for each `files` value and `stdin` its ORIGIN, found by comparing bytes with
// the case's declared leaves: `artifact:<name>`, `publicInput:<path>`, `json:<projection path>`, else
// `authored:derived`. It answers with the case's scripted result (executed with an exit code, or a forced
// non-result). Answers are delivered one at a time, each on its own macrotask once the check has
// nothing else to do: the newest run something waits on (`await`, `.then`, `Promise.all`) first, else
// the newest run — a legitimate schedule of real tool durations under which every awaited run
// completes and a run nobody waits for is still pending when evaluate settles.
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import vm from 'node:vm';
import { AsyncLocalStorage } from 'node:async_hooks';

const MARK = '\u0001vaudit-case ';
const rawWrite = process.stdout.write.bind(process.stdout);
const emit = (o) => rawWrite(MARK + JSON.stringify(o) + '\n');
const NON_RESULTS = new Set(['verifierUnavailable', 'timeout', 'crash', 'sandbox']);
const MAX_RUNS = 500;

// The case a site or return belongs to is the async context it runs in (promises, timers and
// callbacks keep it), so a stray continuation of an earlier case is never counted in a later one.
const caseContext = new AsyncLocalStorage();
const sandbox = vm.createContext({ __vaudit_call: null });
globalThis.__vaudit_site = (key) => {
  const ctx = caseContext.getStore();
  if (ctx) ctx.site = key;
};
globalThis.__vaudit_ret = (key, value) => {
  const ctx = caseContext.getStore();
  if (ctx && !ctx.settled && ctx.rets.length < 200) ctx.rets.push({ site: key, value: summarize(value, ctx), completedRuns: ctx.completed, at: now(ctx) });
  return value;
};

function now(ctx) {
  return Math.round((performance.now() - ctx.t0) * 1000) / 1000;
}

function preview(s, n = 60) {
  const t = String(s);
  return t.length > n ? t.slice(0, n - 1) + '…' : t;
}

function summarize(v, ctx) {
  if (v !== null && typeof v === 'object' || typeof v === 'function') {
    if (typeof v.then === 'function') return { kind: 'promise' };
    if ('verdict' in v) return { kind: 'verdict', verdict: typeof v.verdict === 'string' ? v.verdict : preview(JSON.stringify(v.verdict)), detail: typeof v.detail === 'string' ? preview(v.detail, 120) : undefined };
    if ('outcome' in v) {
      const byHost = !!ctx && ctx.answers.has(v);
      if (v.outcome === 'executed') return { kind: 'executed-run', byHost };
      return { kind: NON_RESULTS.has(v.outcome) ? 'nonresult' : 'other', outcome: String(v.outcome), byHost };
    }
    let text;
    try {
      text = JSON.stringify(v);
    } catch {
      text = Object.prototype.toString.call(v);
    }
    return { kind: 'other', preview: preview(text ?? String(v)) };
  }
  return { kind: v === undefined ? 'undefined' : 'other', preview: preview(JSON.stringify(v) ?? String(v)) };
}

/** Declared leaves of a case: bytes → label (first label wins). */
function leafTable(artifact, publicInput, fields) {
  const table = new Map();
  const add = (bytes, label) => {
    if (typeof bytes === 'string' && !table.has(bytes)) table.set(bytes, label);
  };
  const json = (v, label) => {
    try {
      add(JSON.stringify(v), label);
      add(JSON.stringify(v, null, 2), label);
    } catch {
      /* cyclic: not JSON */
    }
  };
  for (const [name, content] of Object.entries(artifact.files ?? {})) {
    if (!artifact.declared.includes(name)) continue;
    add(content, `artifact:${name}`);
  }
  for (const [name, content] of Object.entries(artifact.files ?? {})) if (artifact.declared.includes(name)) json(content, `json:artifact.files[${JSON.stringify(name)}]`);
  const walk = (v, path, depth) => {
    if (typeof v === 'string') add(v, `publicInput:${path}`);
    if (depth > 8 || v === null || typeof v !== 'object') return;
    if (Array.isArray(v)) v.forEach((x, i) => walk(x, `${path}[${i}]`, depth + 1));
    else for (const [k, x] of Object.entries(v)) walk(x, `${path}.${k}`, depth + 1);
  };
  const walkJson = (v, path, depth) => {
    json(v, `json:publicInput.${path}`);
    if (depth > 8 || v === null || typeof v !== 'object') return;
    if (Array.isArray(v)) v.forEach((x, i) => walkJson(x, `${path}[${i}]`, depth + 1));
    else for (const [k, x] of Object.entries(v)) walkJson(x, `${path}.${k}`, depth + 1);
  };
  for (const f of fields) if (publicInput && f in publicInput) walk(publicInput[f], f, 0);
  for (const f of fields) if (publicInput && f in publicInput) walkJson(publicInput[f], f, 0);
  return table;
}

function originOf(table, v) {
  if (typeof v === 'string') return table.get(v) ?? 'authored:derived';
  return 'authored:derived';
}

function describeValue(v) {
  if (typeof v === 'string') return { bytes: Buffer.byteLength(v), preview: preview(JSON.stringify(v)) };
  if (v instanceof Uint8Array) return { bytes: v.byteLength, type: 'bytes', preview: `<${v.byteLength} bytes>` };
  return { type: v === null ? 'null' : typeof v, preview: preview(String(v)) };
}

function answerFor(c, seq, req, site) {
  const per = c.answers.perCall;
  const at = c.answers.atSite;
  const a = (at && site === at.site && at.answer) || (Array.isArray(per) && per[seq - 1]) || c.answers.default || { outcome: 'executed', exitCode: 0 };
  if (NON_RESULTS.has(a.outcome)) return { outcome: a.outcome, detail: a.detail ?? `forced ${a.outcome} (vaudit control case)` };
  const stdout = a.echoStdin ? (typeof req.stdin === 'string' ? req.stdin : '') : (a.stdout ?? '');
  return { outcome: 'executed', exitCode: a.exitCode ?? 0, stdout, stderr: a.stderr ?? '' };
}

/** A run's promise: a real Promise that notes when something subscribes to it (await, then, all). */
class RunPromise extends Promise {
  static get [Symbol.species]() {
    return Promise;
  }
  then(onFulfilled, onRejected) {
    this.subscribed = true;
    return super.then(onFulfilled, onRejected);
  }
}

function makeRuntime(ctx, c, check) {
  const required = Array.isArray(check.requiredTools) ? check.requiredTools : [];
  const pump = () => {
    if (ctx.pumping) return;
    ctx.pumping = true;
    const tick = () => {
      let i = ctx.queue.length - 1;
      while (i >= 0 && !ctx.queue[i].promise.subscribed) i--;
      if (i < 0) i = ctx.queue.length - 1;
      if (i < 0) {
        ctx.pumping = false;
        return;
      }
      const [job] = ctx.queue.splice(i, 1);
      job.deliver();
      setImmediate(tick);
    };
    setImmediate(tick);
  };
  const run = (req) => {
    const site = ctx.site;
    ctx.site = null;
    const seq = ctx.runs.length + 1;
    const rec = { seq, site, state: 'pending', calledAt: now(ctx) };
    if (ctx.runs.length < MAX_RUNS) ctx.runs.push(rec);
    else ctx.truncatedRuns = (ctx.truncatedRuns ?? 0) + 1;
    if (req === null || typeof req !== 'object') {
      rec.state = 'rejected';
      rec.rejected = 'the request is not an object';
      throw new TypeError('runtime.tools.run: the request must be an object');
    }
    rec.toolId = typeof req.toolId === 'string' ? req.toolId : describeValue(req.toolId).preview;
    rec.checkId = typeof req.checkId === 'string' ? req.checkId : describeValue(req.checkId).preview;
    if (rec.checkId !== c.checkId) rec.checkIdMismatch = true;
    rec.args = Array.isArray(req.args) ? req.args.slice(0, 40).map((a) => preview(a, 120)) : [];
    rec.inputs = [];
    if (req.files !== undefined) {
      if (req.files === null || typeof req.files !== 'object') rec.inputs.push({ role: 'files', origin: 'authored:derived', ...describeValue(req.files) });
      else
        for (const [key, v] of Object.entries(req.files).slice(0, 200)) {
          rec.inputs.push({ role: 'file', key, origin: originOf(ctx.leaves, v), ...describeValue(v) });
        }
    }
    if (req.stdin !== undefined) rec.inputs.push({ role: 'stdin', origin: originOf(ctx.leaves, req.stdin), ...describeValue(req.stdin) });
    if (!required.includes(rec.toolId)) {
      // The host resolves only the check's declared tools: an id outside the inventory is an
      // authoring defect that throws (seed 000, "Tool authority").
      rec.state = 'rejected';
      rec.rejected = `tool id '${rec.toolId}' is not in the check's requiredTools`;
      return Promise.reject(new Error(`runtime.tools.run: ${rec.rejected}`));
    }
    const answer = answerFor(c, seq, req, site);
    rec.answer = answer.outcome === 'executed' ? { outcome: 'executed', exitCode: answer.exitCode } : { outcome: answer.outcome };
    ctx.answers.add(answer);
    let resolve;
    const promise = new RunPromise((r) => (resolve = r));
    ctx.queue.push({
      promise,
      deliver() {
        rec.state = ctx.settled ? 'resolved-after-return' : 'resolved';
        rec.resolvedAt = now(ctx);
        if (answer.outcome === 'executed' && !ctx.settled) ctx.completed += 1;
        resolve(answer);
      },
    });
    pump();
    return promise;
  };
  const tools = Object.freeze({ run });
  return Object.freeze({ tools });
}

function errorInfo(e) {
  if (e instanceof Error) return { type: e.name, message: preview(e.message, 300) };
  return { type: typeof e, message: preview(String(e), 300) };
}

const tick = () => new Promise((r) => setImmediate(r));

async function runCase(c, model) {
  const t0 = performance.now();
  const ctx = { t0, site: null, runs: [], rets: [], queue: [], pumping: false, settled: false, completed: 0, answers: new WeakSet(), leaves: null };
  const out = { id: c.id };
  const checks = Array.isArray(model?.checks) ? model.checks : [];
  const check = checks.find((k) => k && k.id === c.checkId) ?? (c.checkId ? undefined : checks[c.checkIndex]);
  if (!check || typeof check.evaluate !== 'function') {
    out.status = 'error';
    out.stage = 'check';
    out.detail = `the loaded model has no check '${c.checkId}' with an evaluate function (checks: ${checks.map((k) => k?.id).join(', ')})`;
    return out;
  }
  const fields = Array.isArray(model?.publicInput?.fields) ? model.publicInput.fields : [];
  const declared = Array.isArray(model?.artifact?.files) ? model.artifact.files : [];
  ctx.leaves = leafTable({ files: c.artifact, declared }, c.publicInput, fields);
  // The check gets fresh copies: what it does to them cannot change the leaves it is judged against.
  const input = { artifact: { files: structuredClone(c.artifact) }, publicInput: structuredClone(c.publicInput ?? {}) };
  const runtime = makeRuntime(ctx, c, check);
  let settle;
  const settled = new Promise((r) => (settle = r));
  let timer;
  try {
    // The synchronous part of evaluate runs under a vm watchdog (an endless loop before the first
    // await ends this case, not the batch); what follows an await is bounded by the deadline below
    // and, for a synchronous endless loop, by the host's wall-clock limit of the whole child.
    let p;
    sandbox.__vaudit_call = () => check.evaluate(input, runtime);
    try {
      p = Promise.resolve(caseContext.run(ctx, () => vm.runInContext('__vaudit_call()', sandbox, { timeout: c.deadlineMs ?? 2000 })));
    } catch (e) {
      p = e && e.code === 'ERR_SCRIPT_EXECUTION_TIMEOUT' ? new Promise(() => {}) : Promise.reject(e);
      if (e && e.code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') settle({ deadline: true, sync: true });
    }
    sandbox.__vaudit_call = null;
    p.then(
      (v) => settle({ ok: true, v }),
      (e) => settle({ ok: false, e }),
    );
    timer = setTimeout(() => settle({ deadline: true }), c.deadlineMs ?? 2000);
    const r = await settled;
    ctx.settled = true;
    out.ms = now(ctx);
    if (r.deadline) {
      out.status = 'deadline';
      out.detail = r.sync
        ? `evaluate did not return within ${c.deadlineMs ?? 2000} ms (a synchronous endless loop?)`
        : `evaluate did not settle within ${c.deadlineMs ?? 2000} ms`;
    } else if (r.ok) {
      out.status = 'returned';
      out.result = summarize(r.v, ctx);
    } else {
      out.status = 'threw';
      out.error = errorInfo(r.e);
    }
    out.pendingAtReturn = ctx.runs.filter((x) => x.state === 'pending').map((x) => x.seq);
    // Let what the check left behind finish (bounded) before the next case starts.
    const drainUntil = performance.now() + 200;
    for (let i = 0; i < 2000 && performance.now() < drainUntil; i++) {
      if (!ctx.queue.length && !ctx.pumping) {
        await tick();
        if (!ctx.queue.length && !ctx.pumping) break;
      }
      await tick();
    }
  } finally {
    clearTimeout(timer);
  }
  out.runs = ctx.runs;
  if (ctx.truncatedRuns) out.truncatedRuns = ctx.truncatedRuns;
  out.rets = ctx.rets.slice(0, 200);
  return out;
}

async function main() {
  const chunks = [];
  for await (const ch of process.stdin) chunks.push(ch);
  const req = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  emit({ ready: true });
  // Unhandled rejections of bundle code (a dropped run that rejects) must not end the batch.
  process.on('unhandledRejection', () => {});
  const models = new Map();
  for (const c of req.cases) {
    let loaded = models.get(c.bundle);
    if (!loaded) {
      const b = req.bundles[c.bundle];
      try {
        const mod = await import(pathToFileURL(join(process.cwd(), b.entry)).href);
        let model = mod.default;
        if (model && !Array.isArray(model.checks) && model.default) model = model.default;
        loaded = model && Array.isArray(model.checks) ? { model } : { error: `the module's default export is not a correctness model` };
      } catch (e) {
        const info = errorInfo(e);
        loaded = { error: `${info.type}: ${info.message}` };
      }
      models.set(c.bundle, loaded);
    }
    if (loaded.error) {
      emit({ id: c.id, status: 'error', stage: 'load', detail: `the bundle could not be loaded in the child: ${loaded.error}` });
      continue;
    }
    let r;
    try {
      r = await runCase(c, loaded.model);
    } catch (e) {
      const info = errorInfo(e);
      r = { id: c.id, status: 'error', stage: 'harness', detail: `${info.type}: ${info.message}` };
    }
    emit(r);
  }
}

// Exit (bundle code may leave timers behind) only once every answer is flushed: writes to a pipe are
// asynchronous, and process.exit would drop the ones still queued.
main().then(
  () => rawWrite('', () => process.exit(0)),
  (e) => {
    process.stderr.write(`vaudit bundle harness: ${e?.stack ?? e}\n`);
    process.exit(70);
  },
);
