import type { Task } from "./types";

const BASE = "http://localhost:3000";

export const tasks: Task[] = [
  { id: "cart", goal: "Open the cart.", check: { kind: "url", url: `${BASE}/cart` } },
  { id: "search", goal: "Search for lamps.", check: { kind: "text", text: "Results for lamps" } },
  { id: "orders", goal: "Open your orders.", check: { kind: "url", path: "/orders" } }, // vaudit-expect: evaluator-dispatch/missingTaskField
  { id: "about", goal: "Read about us.", check: { kind: "title", title: "About us" } },
  { id: "help", goal: "Open help.", check: { kind: "text", text: "Help" } },
];
