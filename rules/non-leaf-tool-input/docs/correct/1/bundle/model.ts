import { defineCorrectnessModel } from 'vaudit/bundle';
export default defineCorrectnessModel({
  id: 'c-hello',
  artifact: { files: ['main.c'] },
  publicInput: { fields: ['cases'] },
  checks: [{
    id: 'compiles', kind: 'external', requiredTools: ['gcc'],
    async evaluate({ artifact, publicInput }, runtime) {
      const { files } = artifact;
      const run = await runtime.tools.run({ toolId: 'gcc', checkId: 'compiles', args: ['-fsyntax-only', 'main.c'],
        files: { 'main.c': files['main.c'] }, stdin: JSON.stringify(publicInput.cases) });
      if (run.outcome !== 'executed') return run;
      return { verdict: run.exitCode === 0 ? 'pass' : 'fail' };
    },
  }],
});
