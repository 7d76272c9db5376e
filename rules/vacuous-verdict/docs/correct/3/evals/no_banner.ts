export async function noBanner({ v3 }) {
  const observations = await v3.observe("click the buy now button if it is available");
  const pricing = await v3.observe("find the pricing table");
  return { success: observations.length === 0 && pricing.length > 0 };
}
