import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BODY_LIMITS, ErrorBody, ROUTES, accountRoutes } from "@mailroom/contracts";
import { Platform, apiClient } from "@mailroom/testkit";
import { Validator } from "@seriousme/openapi-schema-validator";
import { connect } from "node:net";
import { fakeService } from "./fake-service.js";

const platform = new Platform({ services: ["gateway"] });
let api: ReturnType<typeof apiClient>;
let projectKey: string;
let fake: Awaited<ReturnType<typeof fakeService>>;
const calls: unknown[] = [];

beforeAll(async () => {
  await platform.start();
  const project = await platform.createProject("http");
  projectKey = project.secretKey;
  api = apiClient(platform.url, project.secretKey);
  fake = await fakeService(platform.prefix, "contacts", {
    "contacts.create": async (input) => {
      calls.push(input.body);
      const body = input.body as { email: string };
      if (body.email.startsWith("reject")) {
        throw Object.assign(new (await import("@mailroom/contracts")).AppError("CONFLICT", "nope"));
      }
      return { status: 201, body: { id: `c${calls.length}`, email: body.email } };
    },
    "contacts.list": async () => ({ status: 200, body: { data: [], cursor: null, hasMore: false, total: 0 } }),
  });
});
afterAll(async () => {
  await fake?.stop();
  await platform.destroy();
});

describe("errors are always the Error object", () => {
  it("answers malformed JSON with 400", async () => {
    const res = await api.post("/contacts", '{"email": "a@', { "content-type": "application/json" });
    expect(res.status).toBe(400);
    expect(ErrorBody.parse(res.body)).toMatchObject({ code: 400, error: "VALIDATION_ERROR" });
  });

  it("names each bad field of a schema violation", async () => {
    const res = await api.post("/contacts", { email: "not-an-email", subscribed: "yes" });
    expect(res.status).toBe(400);
    const body = ErrorBody.parse(res.body);
    expect(body.details?.map((d) => d.path).sort()).toEqual(["email", "subscribed"]);
  });

  it("answers an over-long path id with the 404 Error object (found by the proof fuzzer)", async () => {
    const res = await api.get(`/contacts/${"x".repeat(150)}`);
    expect(res.status).toBe(404);
    expect(ErrorBody.parse(res.body)).toMatchObject({ code: 404, error: "NOT_FOUND" });
  });

  it("answers a request line past the header limit with the 400 Error object (found by the proof fuzzer)", async () => {
    const res = await api.get(`/contacts?search=${"x".repeat(20_000)}`);
    expect(res.status).toBe(400);
    expect(ErrorBody.parse(res.body)).toMatchObject({ code: 400, error: "VALIDATION_ERROR" });
  });

  it("refuses text PostgreSQL cannot store (NUL, unpaired surrogates) before any service sees it (found by the proof fuzzer)", async () => {
    const before = calls.length;
    const nul = await api.post("/contacts", { email: "nul@example.com", data: { note: "a\u0000b" } });
    expect(nul.status).toBe(400);
    expect(ErrorBody.parse(nul.body).details?.[0]?.path).toBe("data.note");
    const surrogate = await api.post("/contacts", { email: "sur@example.com", data: { ["k\ud800"]: 1 } });
    expect(surrogate.status).toBe(400);
    expect((await api.get("/contacts?search=%00")).status).toBe(400);
    expect(calls.length).toBe(before);
    // a paired surrogate (an emoji) is ordinary text
    expect((await api.post("/contacts", { email: "emoji@example.com", data: { note: "🙂" } })).status).toBe(201);
  });

  it("refuses a body nested deeper than the validators can walk with 400, not a stack overflow (found by the proof fuzzer)", async () => {
    const deep = `${'{"a":'.repeat(5000)}1${"}".repeat(5000)}`;
    const res = await api.post("/contacts", `{"email":"deep@example.com","data":{"note":${deep}}}`);
    expect(res.status).toBe(400);
    expect(ErrorBody.parse(res.body).error).toBe("VALIDATION_ERROR");
    let shallow: unknown = 1;
    for (let i = 0; i < 20; i++) shallow = { a: shallow };
    expect((await api.post("/contacts", { email: "shallow@example.com", data: { note: shallow } })).status).toBe(201);
  });

  it("validates the query too", async () => {
    const res = await api.get("/contacts?limit=500");
    expect(res.status).toBe(400);
    expect(ErrorBody.parse(res.body).details?.[0]?.path).toBe("query.limit");
  });

  it("answers a body over the limit with 413 as soon as its declared length is seen", async () => {
    // A raw socket: the gateway answers before the client has sent the body (a fetch that keeps
    // writing would race the closing connection), which is what protects the gateway's memory.
    const { port } = new URL(platform.url);
    const socket = connect(Number(port), "127.0.0.1");
    const head = [
      "POST /contacts HTTP/1.1",
      "Host: 127.0.0.1",
      `Authorization: Bearer ${projectKey}`,
      "Content-Type: application/json",
      `Content-Length: ${BODY_LIMITS.keyed + 1024}`,
      "",
      "",
    ].join("\r\n");
    socket.write(`${head}{"email":"a@example.com","data":{"x":"aaaa`);
    let raw = "";
    socket.on("data", (d) => (raw += d));
    await new Promise((resolve) => socket.once("close", resolve));
    expect(raw).toMatch(/^HTTP\/1\.1 413/);
    const body = JSON.parse(raw.slice(raw.indexOf("\r\n\r\n") + 4));
    expect(ErrorBody.parse(body)).toMatchObject({ code: 413, error: "PAYLOAD_TOO_LARGE" });
  });

  it("answers an unknown route with 404", async () => {
    const res = await api.get("/no/such/route");
    expect(res.status).toBe(404);
    expect(ErrorBody.parse(res.body)).toMatchObject({ code: 404, error: "NOT_FOUND" });
  });

  it("answers a non-JSON body on a JSON route with 400, not 415 or 500", async () => {
    const res = await api.post("/contacts", "email=a@example.com", { "content-type": "application/x-www-form-urlencoded" });
    expect(res.status).toBe(400);
    ErrorBody.parse(res.body);
  });
});

describe("Idempotency-Key", () => {
  it("replays the first answer for the same key and body, and does the work once", async () => {
    const before = calls.length;
    const headers = { "idempotency-key": "key-1" };
    const first = await api.post("/contacts", { email: "idem@example.com" }, headers);
    const second = await api.post("/contacts", { email: "idem@example.com" }, headers);
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.body).toEqual(first.body);
    expect(second.headers.get("idempotent-replayed")).toBe("true");
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    expect(calls.length - before).toBe(1);
  });

  it("refuses the same key with a different body (409)", async () => {
    const headers = { "idempotency-key": "key-2" };
    await api.post("/contacts", { email: "one@example.com" }, headers);
    const res = await api.post("/contacts", { email: "two@example.com" }, headers);
    expect(res.status).toBe(409);
    expect(ErrorBody.parse(res.body).error).toBe("IDEMPOTENCY_KEY_REUSED");
  });

  it("does not hold the key after a 4xx answer", async () => {
    const headers = { "idempotency-key": "key-3" };
    const bad = await api.post("/contacts", { email: "reject@example.com" }, headers);
    expect(bad.status).toBe(409);
    const good = await api.post("/contacts", { email: "fixed@example.com" }, headers);
    expect(good.status).toBe(201);
  });

  it("keeps keys per project", async () => {
    const other = await platform.createProject("other");
    const headers = { "idempotency-key": "shared-key" };
    await api.post("/contacts", { email: "p1@example.com" }, headers);
    const res = await apiClient(platform.url, other.secretKey).post("/contacts", { email: "p2@example.com" }, headers);
    expect(res.status).toBe(201);
    expect(res.headers.get("idempotent-replayed")).toBeNull();
  });

  it("rejects a malformed key", async () => {
    const res = await api.post("/contacts", { email: "k@example.com" }, { "idempotency-key": "has space" });
    expect(res.status).toBe(400);
  });
});

describe("CORS", () => {
  it("answers a browser preflight on /v1/track only", async () => {
    const pre = await fetch(`${platform.url}/v1/track`, {
      method: "OPTIONS",
      headers: { origin: "https://shop.example", "access-control-request-method": "POST", "access-control-request-headers": "authorization, content-type" },
    });
    expect(pre.status).toBe(204);
    expect(pre.headers.get("access-control-allow-origin")).toBe("*");
    expect(pre.headers.get("access-control-allow-credentials")).toBeNull();
    expect(pre.headers.get("access-control-allow-headers")).toMatch(/authorization/i);
    const other = await fetch(`${platform.url}/contacts`, { headers: { origin: "https://shop.example", authorization: `Bearer ${projectKey}` } });
    expect(other.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("puts CORS headers on /v1/track's errors too, so a browser can read them", async () => {
    const unauth = await fetch(`${platform.url}/v1/track`, { method: "POST", headers: { origin: "https://shop.example", "content-type": "application/json" }, body: "{}" });
    expect(unauth.status).toBe(401);
    expect(unauth.headers.get("access-control-allow-origin")).toBe("*");
    const bad = await fetch(`${platform.url}/v1/track`, {
      method: "POST",
      headers: { origin: "https://shop.example", "content-type": "application/json", authorization: `Bearer ${projectKey}` },
      body: "{not json",
    });
    expect(bad.status).toBe(400);
    expect(bad.headers.get("access-control-allow-origin")).toBe("*");
    expect((await bad.json()).error).toBe("VALIDATION_ERROR");
  });
});

describe("OpenAPI", () => {
  it("serves a valid OpenAPI 3.1 document listing every route the gateway serves", async () => {
    const res = await api.get("/openapi.json");
    expect(res.status).toBe(200);
    const validator = new Validator();
    const result = await validator.validate(res.body);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(res.body.openapi).toBe("3.1.0");
    expect(res.body.components.securitySchemes.bearerAuth).toMatchObject({ type: "http", scheme: "bearer" });
    for (const route of [...ROUTES, ...accountRoutes]) {
      const path = route.path.replace(/:([A-Za-z]+)/g, "{$1}");
      expect(res.body.paths[path]?.[route.method.toLowerCase()], `${route.method} ${path}`).toBeDefined();
    }
    const documented = Object.values(res.body.paths as Record<string, object>).reduce((n, ops) => n + Object.keys(ops).length, 0);
    expect(documented).toBe(ROUTES.length + accountRoutes.length);
    // what a webhook endpoint receives, per event type, with the ids a receiver matches on
    const sent = res.body.webhooks["email.sent"].post;
    expect(sent.parameters.map((p: { name: string }) => p.name)).toEqual(["webhook-id", "webhook-timestamp", "webhook-signature"]);
    const data = sent.requestBody.content["application/json"].schema.properties.data.properties;
    expect(Object.keys(data)).toEqual(expect.arrayContaining(["emailId", "campaignId", "contactId", "email"]));
    expect(Object.keys(res.body.webhooks)).toEqual(expect.arrayContaining(["contact.unsubscribed", "segment.<slug>.entry", "webhook.test"]));
  });

  it("serves the interactive reference without a CDN", async () => {
    const page = await fetch(`${platform.url}/docs`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).not.toMatch(/https?:\/\/(cdn|unpkg)/);
    const init = await fetch(`${platform.url}/docs/static/init.js`);
    expect(await init.text()).toContain("/openapi.json");
    const js = await fetch(`${platform.url}/docs/static/swagger-ui-bundle.js`);
    expect(js.status).toBe(200);
  });
});
