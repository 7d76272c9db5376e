import { defineCorrectnessModel } from 'vaudit/bundle';
const HEADER = '#define main real_main\n';
export default defineCorrectnessModel({
  id: 'c-hello',
  artifact: { files: ['main.c'] },
  checks: [{
    id: 'compiles', kind: 'external', requiredTools: ['gcc'],
    async evaluate({ artifact }, runtime) {
      const run = await runtime.tools.run({ toolId: 'gcc', checkId: 'compiles', args: ['-fsyntax-only', 'main.c'],
        files: { 'main.c': artifact.files['main.c'], 'stub.h': HEADER } }); // vaudit-expect: non-leaf-tool-input/nonLeaf
      if (run.outcome !== 'executed') return run;
      return { verdict: run.exitCode === 0 ? 'pass' : 'fail' };
    },
  }],
});
