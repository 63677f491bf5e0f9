import { describe, expect, it } from "vitest";
import { ProviderDirectory } from "./providers.js";

/** A lookup that answers from a table and counts what it was asked; `fail` answers null (a failed lookup). */
function lookup(table: Record<string, string>) {
  const asked: string[] = [];
  const state = { fail: false };
  const fn = async (domain: string) => {
    asked.push(domain);
    if (state.fail) return null;
    const host = table[domain];
    return host ? [{ exchange: host, priority: 10 }] : [];
  };
  return { fn, asked, state };
}

describe("the provider directory", () => {
  it("looks each new domain up once per job, and none of the big consumer domains", async () => {
    const l = lookup({ "corp.example": "corp-example.mail.protection.outlook.com", "shop.example": "mx.mimecast.com" });
    const dir = new ProviderDirectory(l.fn);
    const got = await dir.of(["a@corp.example", "B@Corp.Example", "c@shop.example", "d@gmail.com", "e@nomx.example", "f@[192.0.2.1]"]);
    expect(Object.fromEntries(got)).toEqual({
      "a@corp.example": "microsoft",
      "b@corp.example": "microsoft",
      "c@shop.example": "mimecast.com",
      "d@gmail.com": "google",
      "e@nomx.example": "nomx.example",
      "f@[192.0.2.1]": "unknown",
    });
    expect(l.asked.sort()).toEqual(["corp.example", "nomx.example", "shop.example"]);
    await dir.of(["x@corp.example", "y@shop.example"]);
    expect(l.asked).toHaveLength(3);
  });

  it("keeps serving an expired answer while asking again, and caches a failure only briefly", async () => {
    let now = 0;
    const l = lookup({ "corp.example": "aspmx.l.google.com" });
    const dir = new ProviderDirectory(l.fn, () => now);
    expect((await dir.of(["a@corp.example"])).get("a@corp.example")).toBe("google");
    now += 2 * 60 * 60_000;
    l.state.fail = true;
    // expired: the old answer at once, a lookup in the background (which fails)
    expect((await dir.of(["a@corp.example"])).get("a@corp.example")).toBe("google");
    expect(l.asked).toHaveLength(2);
    await new Promise((r) => setTimeout(r, 0));
    // the failed refresh kept the answer, to be asked again in a minute
    expect((await dir.of(["a@corp.example"])).get("a@corp.example")).toBe("google");
    expect(l.asked).toHaveLength(2);
    now += 61_000;
    await dir.of(["a@corp.example"]);
    expect(l.asked).toHaveLength(3);

    // a first lookup that fails: the domain is its own provider, asked again a minute later
    expect((await dir.of(["b@other.example"])).get("b@other.example")).toBe("other.example");
    l.state.fail = false;
    await dir.of(["b@other.example"]);
    expect(l.asked.filter((d) => d === "other.example")).toHaveLength(1);
    now += 61_000;
    await dir.of(["b@other.example"]);
    await new Promise((r) => setTimeout(r, 0));
    expect(l.asked.filter((d) => d === "other.example")).toHaveLength(2);
  });

  it("asks once for a domain many emails of a job want at the same moment", async () => {
    const l = lookup({});
    const dir = new ProviderDirectory(l.fn);
    await Promise.all([dir.of(["a@x.example"]), dir.of(["b@x.example"]), dir.of(["c@x.example"])]);
    expect(l.asked).toEqual(["x.example"]);
  });
});
