import { defineCorrectnessModel } from 'vaudit/bundle';
export default defineCorrectnessModel({
  id: 'c-hello',
  artifact: { files: ['main.c'] },
  checks: [{
    id: 'compiles', kind: 'external', requiredTools: ['gcc'],
    async evaluate({ artifact }, runtime) {
      const run = await runtime.tools.run({ toolId: 'gcc', checkId: 'compiles', args: ['-c', 'main.c'], files: { 'main.c': artifact.files['main.c'] } });
      if (run.outcome !== 'executed') return run;
      return { verdict: run.exitCode === 0 ? 'pass' : 'fail', detail: run.stderr };
    },
  }],
});
