export async function lastOrderShipped(baseUrl: string): Promise<boolean> {
  const res = await fetch(`${baseUrl}/api/orders?sort=-created`);
  if (!res.ok) return false;
  const body = await res.json();
  if (body.orders.length === 0) return false;
  return body.orders[0].status === "shipped";
}
