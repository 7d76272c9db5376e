export function sameLines(expected, output) {
  const a = [...expected].sort();
  const b = output.split('\n').sort();
  return a.length === b.length && a.every((x, i) => x === b[i]);
}
