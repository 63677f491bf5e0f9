import type { Filter, FilterExpression } from "@mailroom/contracts";
import type { ContactFacts } from "../src/index.js";

export const NOW = new Date("2025-06-15T12:00:00.000Z");
export const DAY = 86_400_000;
export const ago = (ms: number) => new Date(NOW.getTime() - ms);

export function contact(over: Partial<ContactFacts> = {}): ContactFacts {
  return {
    email: "Ada.Lovelace@Example.com",
    subscribed: true,
    createdAt: ago(10 * DAY),
    updatedAt: ago(DAY),
    data: { plan: "pro", age: 36, vip: true, tags: ["early", "beta"], profile: { tier: "gold", since: "2024-01-01T00:00:00Z" }, nothing: null },
    events: [],
    emailActivity: [],
    segments: new Set(),
    ...over,
  };
}

/** One filter as a whole expression. */
export function only(field: string, operator: Filter["operator"], value?: Filter["value"], unit?: Filter["unit"]): FilterExpression {
  const filter: Filter = { field, operator };
  if (value !== undefined) filter.value = value;
  if (unit !== undefined) filter.unit = unit;
  return { logic: "AND", groups: [{ filters: [filter] }] };
}
