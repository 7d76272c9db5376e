export function sameLines(expected, output) {
  const want = new Set(expected);
  const got = new Set(output.split('\n'));
  return want.size === got.size // vaudit-expect: set-collapse/jsSize
    && [...want].every((l) => got.has(l));
}
