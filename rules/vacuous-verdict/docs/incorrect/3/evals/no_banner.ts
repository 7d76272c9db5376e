export async function noBanner({ v3 }) {
  const observations = await v3.observe("click the buy now button if it is available");
  return { success: observations.length === 0 }; // vaudit-expect: vacuous-verdict/jsEmptyResult
}
