/** Builders for rule documentation examples in the reference task format. */

/** One task file at `tasks/<Family>/<name>.json`, pretty-printed like real suites. */
export function taskFile(family: string, name: string, task: Record<string, unknown>): Record<string, string> {
  return { [`tasks/${family}/${name}.json`]: JSON.stringify(task, null, 2) + '\n' };
}

/** The launch initializer most GUI tasks start with. */
export function launch(app: string, ...args: string[]): Record<string, unknown> {
  return { func: 'launch', command: [app, ...args], wait: 5 };
}
