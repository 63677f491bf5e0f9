import { beforeAll, describe, expect, it } from "vitest";
import { label, notBuilt, type ApiDocument } from "./support/openapi.js";
import { loadApi } from "./support/openapi.js";
import { pathOn, settledSnapshot, snapshot, validBody } from "./support/requests.js";
import { seedTenant, unique, type Tenant } from "./support/tenant.js";
import { expectLogsFreeOf } from "./support/logs.js";

/**
 * Tenant isolation over every route of the served OpenAPI document: project A's key on project B's
 * ids is 404 NOT_FOUND and changes nothing B can see; A's lists never show B's ids. Routes whose
 * service is not built yet (503) are reported as skipped and covered as soon as they land.
 */
let api: ApiDocument;
let a: Tenant;
let b: Tenant;
const markers = { a: unique("iso-body-a"), b: unique("iso-body-b") };

beforeAll(async () => {
  api = await loadApi();
  [a, b] = await Promise.all([seedTenant("iso-a", markers.a), seedTenant("iso-b", markers.b)]);
  if (b.unavailable.length) console.info(`[isolation] fixture kinds not built yet (503): ${b.unavailable.join(", ")}`);
}, 120_000);

describe("tenant isolation", () => {
  it("answers 404 NOT_FOUND to another project's key on every route with ids, and changes nothing", async () => {
    const before = await settledSnapshot(api, b);
    expect(Object.keys(before).length).toBeGreaterThan(5);
    const targets = api.operations
      .filter((op) => op.secured && op.pathParams.length)
      // deletions last, so an isolation failure in one cannot hide another behind a 404
      .sort((x, y) => Number(x.method === "DELETE") - Number(y.method === "DELETE"));
    const checked: string[] = [];
    const skipped: string[] = [];
    const failures: string[] = [];
    for (const op of targets) {
      const { path, missing } = pathOn(op, b);
      const res = await a.project.api.call(op.method, path, validBody(api, op, b));
      if (notBuilt(res)) {
        skipped.push(label(op));
        continue;
      }
      if (missing.length) {
        failures.push(`${label(op)} answers ${res.status} but project B has no ${missing.join(", ")}: add one to seedTenant`);
        continue;
      }
      if (res.status !== 404 || res.body?.error !== "NOT_FOUND") {
        failures.push(`${label(op)} with A's key on B's ids: ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
        continue;
      }
      checked.push(label(op));
    }
    console.info(`[isolation] ${checked.length} routes checked; skipped (service not built, 503): ${skipped.join(", ") || "none"}`);
    expect(failures).toEqual([]);
    expect(checked.length).toBeGreaterThan(20);
    expect(await snapshot(api, b)).toEqual(before);
  }, 180_000);

  it("never lists another project's ids, even when asked for them by filter", async () => {
    const bIds = b.allIds();
    const lists = api.operations.filter((op) => op.method === "GET" && op.secured && !op.pathParams.length && !op.raw);
    const checked: string[] = [];
    const skipped: string[] = [];
    for (const op of lists) {
      // `contactId=<B's contact>` and the like: a filter naming a foreign id must not reach it.
      const query = new URLSearchParams();
      for (const q of op.queryParams) {
        const m = /^(\w+)Id$/.exec(q.name);
        const id = m && b.ids[`${m[1]}s`];
        if (id) query.set(q.name, id);
      }
      for (const path of [op.path, query.size ? `${op.path}?${query}` : undefined]) {
        if (!path) continue;
        const res = await a.project.api.get(path);
        if (notBuilt(res)) {
          skipped.push(label(op));
          break;
        }
        expect(res.status, `${path}: ${JSON.stringify(res.body).slice(0, 200)}`).toBeLessThan(500);
        const text = JSON.stringify(res.body);
        for (const id of [...bIds, markers.b]) expect(text.includes(id), `${path} shows B's ${id}`).toBe(false);
        checked.push(path);
      }
    }
    console.info(`[isolation] lists checked: ${checked.join(", ")}; skipped (503): ${skipped.join(", ") || "none"}`);
    expect(checked.length).toBeGreaterThan(5);
  }, 60_000);

  it("refuses another project's ids inside request bodies", async () => {
    const cases: Array<[string, () => Promise<{ status: number; body: any }>]> = [
      ["send with B's template", () => a.project.api.post("/v1/send", { to: "probe@example.com", template: b.ids.templates })],
      ["campaign on B's segment", () =>
        a.project.api.post("/campaigns", { name: "x", subject: "x", body: "x", from: a.sender, audienceType: "SEGMENT", segmentId: b.ids.segments })],
      ["execution for B's contact", () => a.project.api.post(`/workflows/${a.ids.workflows}/executions`, { contactId: b.ids.contacts })],
    ];
    const before = await snapshot(api, b);
    for (const [name, call] of cases) {
      const res = await call();
      if (notBuilt(res) || (name.includes("execution") && !a.ids.workflows)) continue;
      expect(res.status, `${name}: ${JSON.stringify(res.body).slice(0, 200)}`).toBeGreaterThanOrEqual(400);
      expect(res.status, name).toBeLessThan(500);
    }
    expect(await snapshot(api, b)).toEqual(before);
  }, 60_000);

  it("logs none of the keys or bodies it sent", async () => {
    await expectLogsFreeOf({
      "A's secret key": a.project.secretKey,
      "B's secret key": b.project.secretKey,
      "A's public key": a.project.publicKey,
      "B's public key": b.project.publicKey,
      "A's body marker": markers.a,
      "B's body marker": markers.b,
    });
  });
});
