// The click path's link cache (usecases/engagement.ts): clicks that miss it together share one
// query, a stored email is then served from memory, and neither an unknown email nor a failed
// lookup is remembered.
import { describe, expect, it } from "vitest";
import type { WireNames } from "@mailroom/contracts";
import { createLogger, type OutboxRelay, type Sql } from "@mailroom/kit";
import { EngagementRecorder } from "../src/usecases/engagement.js";

function recorder(answer: (emailId: string) => string[] | null | Error) {
  const queries: string[] = [];
  // stands in for the pool: answers feedbackRepo.linksOf's query (`… where id = ${emailId} …`)
  const sql = async (_text: TemplateStringsArray, emailId: string) => {
    queries.push(emailId);
    await new Promise((r) => setTimeout(r, 20));
    const a = answer(emailId);
    if (a instanceof Error) throw a;
    return a ? [{ links: a }] : [];
  };
  const engagement = new EngagementRecorder(sql as unknown as Sql, {} as OutboxRelay, {} as WireNames, createLogger("test", "silent"));
  return { engagement, queries };
}

describe("click link lookups", () => {
  it("answers a burst of clicks on a fresh email with one query, then from memory", async () => {
    const { engagement, queries } = recorder(() => ["https://shop.example/a"]);
    const burst = await Promise.all(Array.from({ length: 50 }, () => engagement.linksOf("e1", "p1")));
    expect(burst.every((l) => l?.[0] === "https://shop.example/a")).toBe(true);
    expect(await engagement.linksOf("e1", "p1")).toEqual(["https://shop.example/a"]);
    expect(queries).toEqual(["e1"]);
  });

  it("keeps projects apart: the same email id under another project is its own lookup", async () => {
    const { engagement, queries } = recorder(() => ["https://x.example"]);
    await Promise.all([engagement.linksOf("e1", "p1"), engagement.linksOf("e1", "p2")]);
    expect(queries).toEqual(["e1", "e1"]);
  });

  it("does not remember an unknown email or a failed lookup", async () => {
    let fail = true;
    const { engagement, queries } = recorder((id) => (id === "missing" ? null : fail ? new Error("db down") : ["https://y.example"]));
    expect(await Promise.all([engagement.linksOf("missing", "p1"), engagement.linksOf("missing", "p1")])).toEqual([null, null]);
    expect(await engagement.linksOf("missing", "p1")).toBeNull();
    const failed = await Promise.allSettled([engagement.linksOf("e2", "p1"), engagement.linksOf("e2", "p1")]);
    expect(failed.map((r) => r.status)).toEqual(["rejected", "rejected"]);
    fail = false;
    expect(await engagement.linksOf("e2", "p1")).toEqual(["https://y.example"]);
    expect(queries).toEqual(["missing", "missing", "e2", "e2"]);
  });
});
