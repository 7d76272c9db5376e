export function checkMean(values, expected) {
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  return mean === parseFloat(expected); // vaudit-expect: float-equality/jsComputed
}
