export async function lastOrderShipped(baseUrl: string): Promise<boolean> {
  const res = await fetch(`${baseUrl}/api/orders?sort=-created`);
  const body = await res.json(); // vaudit-expect: unguarded-state-read/jsUnguarded
  return body.orders[0].status === "shipped"; // vaudit-expect: unguarded-state-read/jsShortRead
}
