export default async function evaluate(page) {
  try {
    const reply = await fetch(`${page.url}/settings`, { signal: AbortSignal.timeout(5000) });
    const settings = await reply.json();
    return { _success: settings.theme === 'dark' };
  } catch (err) { // vaudit-expect: swallowed-error-verdict/jsSwallowed
    return { _success: false };
  }
}
