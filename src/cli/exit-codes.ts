export const EXIT_CLEAN = 0;
export const EXIT_FINDINGS = 1;
export const EXIT_USAGE = 2;

/** An error that ends the run with exit code 2 and a clear message (no stack trace). */
export class UsageError extends Error {}
