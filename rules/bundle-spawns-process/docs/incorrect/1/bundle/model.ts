import { defineCorrectnessModel } from 'vaudit/bundle';
import { execFileSync } from 'node:child_process'; // vaudit-expect: bundle-spawns-process/spawns
export default defineCorrectnessModel({
  id: 'c-hello',
  artifact: { files: ['main.c'] },
  checks: [{
    id: 'compiles', kind: 'authored',
    async evaluate() {
      try { execFileSync('gcc', ['-c', 'main.c'], { timeout: 5000 }); return { verdict: 'pass' }; } catch { return { verdict: 'fail' }; }
    },
  }],
});
