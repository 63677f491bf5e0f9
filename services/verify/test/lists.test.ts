import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadLists } from "../src/infra/load-lists.js";

const dir = mkdtempSync(join(tmpdir(), "verify-lists-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("loadLists", () => {
  it("builds the built-in lists from the registry packages and data/", () => {
    const lists = loadLists();
    expect(lists.disposable.size).toBeGreaterThan(10_000);
    expect(lists.disposable.match("mailinator.com")).toBe("mailinator.com");
    expect(lists.disposable.match("a.b.mailinator.com")).toBe("mailinator.com");
    expect(lists.personal.has("gmail.com")).toBe(true);
    expect(lists.aliases.match("mozmail.com")?.service.name).toBe("Firefox Relay");
    expect(lists.aliases.match("privaterelay.appleid.com")?.service.name).toBe("Apple Hide My Email");
    expect(lists.aliases.match("x.simplelogin.com")?.domain).toBe("simplelogin.com");
    expect(lists.aliases.match("gmail.com")).toBeNull();
    expect(lists.typos.misspellings["outlok.com"]).toBe("outlook.com");
  });

  it("extends and trims the lists from VERIFY_LISTS_DIR, without a code change", () => {
    writeFileSync(join(dir, "disposable.txt"), "# ours\nthrowaway.example\n-mailinator.com  # false positive\n");
    writeFileSync(join(dir, "personal.txt"), "Bücher.example\n");
    writeFileSync(
      join(dir, "aliases.json"),
      JSON.stringify({ services: [{ name: "Relay Example", source: "https://relay.example/", domains: ["relay.example"] }] }),
    );
    writeFileSync(join(dir, "typos.json"), JSON.stringify({ misspellings: { "exmaple.com": "example.com" } }));

    const lists = loadLists(dir);
    expect(lists.disposable.match("mx.throwaway.example")).toBe("throwaway.example");
    expect(lists.disposable.has("mailinator.com")).toBe(false);
    expect(lists.disposable.has("yopmail.com")).toBe(true);
    expect(lists.personal.has("xn--bcher-kva.example")).toBe(true);
    expect(lists.aliases.match("u.relay.example")?.service.name).toBe("Relay Example");
    expect(lists.aliases.match("duck.com")?.service.name).toBe("DuckDuckGo Email Protection");
    expect(lists.typos.misspellings["exmaple.com"]).toBe("example.com");
    expect(lists.typos.misspellings["gmial.com"]).toBe("gmail.com");
  });

  it("refuses a malformed list file rather than run with half a list", () => {
    const bad = mkdtempSync(join(tmpdir(), "verify-lists-bad-"));
    writeFileSync(join(bad, "aliases.json"), JSON.stringify({ services: [{ name: "No domains" }] }));
    expect(() => loadLists(bad)).toThrow(/aliases\.json/);
    rmSync(bad, { recursive: true, force: true });
  });
});
