export function checkMean(values, expected) {
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  return Math.abs(mean - parseFloat(expected)) <= 1e-9 * Math.max(1, Math.abs(mean));
}
