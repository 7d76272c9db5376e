import { execFileSync } from 'node:child_process';

export async function check(dir, url) {
  execFileSync('make', ['-C', dir], { stdio: 'ignore' }); // vaudit-expect: missing-timeout/jsProcess
  const res = await fetch(url); // vaudit-expect: missing-timeout/jsFetch
  return res.ok;
}
