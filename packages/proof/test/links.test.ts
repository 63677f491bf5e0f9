import { beforeAll, describe, expect, it } from "vitest";
import { waitFor } from "@mailroom/testkit";
import { mailboxMessages, sharedPlatform } from "@mailroom/testkit/shared";
import { fillPath, label, loadApi, notBuilt, type ApiDocument, type Operation } from "./support/openapi.js";
import { settledSnapshot, snapshot } from "./support/requests.js";
import { seedTenant, unique, type Tenant } from "./support/tenant.js";
import { expectLogsFreeOf } from "./support/logs.js";

/**
 * Every public link route of the document (`/t/o/`, `/t/c/`, `/u/`, `/s/`, `/m/` and any added later)
 * given tampered tokens (derived from the genuine ones in a delivered message) and foreign ones (a
 * genuine token of another link kind, an unsigned v0-style token): 404 and nothing changed.
 */
let api: ApiDocument;
let owner: Tenant;
let links: Operation[];
/** link kind (`t/o`, `u`, …) → a genuine token from the delivered message */
const genuine = new Map<string, string>();
const marker = unique("links-body");

const kindOf = (op: Operation) => op.path.replace(/^\//, "").replace(/\/\{token\}$/, "");

beforeAll(async () => {
  api = await loadApi();
  links = api.operations.filter((op) => !op.secured && op.pathParams.includes("token"));
  owner = await seedTenant("links", marker);
  // a double opt-in confirmation carries the /c link: a public key subscribes a new address
  const confirming = `${unique("confirm")}@example.com`;
  expect((await owner.project.api.patch("/settings/sending", { doubleOptIn: { enabled: true } })).status).toBe(200);
  expect((await owner.project.publicApi.post("/v1/track", { email: confirming, event: "signed_up", subscribed: true })).status).toBeLessThan(300);
  const base = sharedPlatform().url.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  for (const [address, what] of [[owner.contactEmail, "the owner's message"], [confirming, "the confirmation email"]] as const) {
    const msg = await waitFor(
      async () => ((await mailboxMessages([address])) as Array<{ envelope: { rcptTo: string[] }; html: string | null; headers: Array<{ value: string }> }>)
        .find((m) => m.envelope.rcptTo.includes(address)),
      { timeoutMs: 15_000, what },
    );
    const text = `${msg.html ?? ""}\n${msg.headers.map((h) => h.value).join("\n")}`;
    for (const m of text.matchAll(new RegExp(`${base}/([a-z/]+)/([A-Za-z0-9_.\\-]+)`, "g"))) {
      if (!genuine.has(m[1]!)) genuine.set(m[1]!, m[2]!);
    }
  }
}, 120_000);

/** Near misses of a genuine token: each must be as dead as a random string. */
function tampered(t: string, other: string | undefined): string[] {
  const swap = (c: string) => (c === "A" ? "B" : "A");
  const mid = Math.floor(t.length / 2);
  return [
    swap(t[0]!) + t.slice(1),
    t.slice(0, mid) + swap(t[mid]!) + t.slice(mid + 1),
    t.slice(0, -1) + swap(t.at(-1)!),
    t.slice(0, -1),
    `${t}A`,
    [...t].reverse().join(""),
    t.toUpperCase() === t ? t.toLowerCase() : t.toUpperCase(),
    ...(other ? [t.slice(0, mid) + other.slice(mid)] : []),
  ].filter((v) => v !== t);
}

function candidates(kind: string): Record<string, string> {
  const own = genuine.get(kind);
  const others = [...genuine].filter(([k]) => k !== kind);
  const out: Record<string, string> = {
    random: "A".repeat(48),
    uuid: owner.ids.emails ?? "01a1fd16-7867-76a6-891d-2ca844d378f3",
    "unsigned v0": `${owner.ids.emails ?? "01a1fd16-7867-76a6-891d-2ca844d378f3"}.${"A".repeat(43)}`,
    dot: ".",
    traversal: "..%2f..%2fopenapi.json",
  };
  for (const [k, t] of others) out[`foreign: genuine ${k} token`] = t;
  for (const [i, t] of (own ? tampered(own, others[0]?.[1]) : []).entries()) out[`tampered #${i}`] = t;
  return out;
}

describe("public link tokens", () => {
  it("answers 404 to tampered and foreign tokens on every link route and changes nothing", async () => {
    const before = await settledSnapshot(api, owner);
    const anon = owner.project.anon;
    const checked: string[] = [];
    const skipped: string[] = [];
    const failures: string[] = [];
    for (const op of links) {
      const kind = kindOf(op);
      let live = false;
      for (const [name, token] of Object.entries(candidates(kind))) {
        const path = fillPath(op.path, { token }).replace(/%252f/gi, "%2f");
        const res = await anon.call(op.method, path, op.method === "POST" ? "List-Unsubscribe=One-Click" : undefined, {
          "content-type": "application/x-www-form-urlencoded",
        });
        if (notBuilt(res)) break;
        live = true;
        if (res.status !== 404 || res.body?.error !== "NOT_FOUND") failures.push(`${label(op)} with a ${name} token: ${res.status}`);
      }
      if (!live) skipped.push(label(op));
      else if (!genuine.has(kind)) failures.push(`${label(op)} is served but the message had no genuine ${kind} link to tamper with`);
      else checked.push(label(op));
    }
    console.info(`[links] genuine kinds found: ${[...genuine.keys()].join(", ") || "none"}; checked: ${checked.join(", ") || "none"}; skipped (503): ${skipped.join(", ") || "none"}`);
    expect(failures).toEqual([]);
    expect(await snapshot(api, owner)).toEqual(before);
  }, 120_000);

  it("serves the genuine tokens the tampered ones came from (so the 404s above are meaningful)", async () => {
    for (const op of links.filter((o) => o.method === "GET")) {
      const token = genuine.get(kindOf(op));
      if (!token) continue;
      const res = await owner.project.anon.get(fillPath(op.path, { token }));
      if (notBuilt(res)) continue;
      expect(res.status, label(op)).toBeLessThan(400);
    }
  });

  it("logs none of the keys, tokens or bodies", async () => {
    await expectLogsFreeOf({ "secret key": owner.project.secretKey, "body marker": marker });
  });
});
