import { execFileSync } from 'node:child_process';

export async function check(dir, url) {
  execFileSync('make', ['-C', dir], { timeout: 120000, stdio: 'ignore' });
  const res = await fetch(url, { signal: AbortSignal.timeout(10000) });
  return res.ok;
}
