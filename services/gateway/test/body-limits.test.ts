import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BODY_LIMITS, ErrorBody } from "@mailroom/contracts";
import { Platform, apiClient, rawRequest, type RawAnswer } from "@mailroom/testkit";
import { fakeService } from "./fake-service.js";

/**
 * Body limits per route, enforced before a body is parsed (decisions.md §12): anyone may call the
 * routes without a key, so they take 64 KB; keyed routes take 2 MB; only /v1/send takes the base64
 * attachments' size, and only from a caller whose key is valid.
 */
const platform = new Platform({ services: ["gateway"] });
let api: ReturnType<typeof apiClient>;
let secretKey: string;
const fakes: Array<{ stop(): Promise<void> }> = [];
const seen: string[] = [];

const EIGHT_MB = 8 * 1024 * 1024;
/** Routes without a key: the links, the SES webhook, and a path no route has (POST /t/c is GET only). */
const KEYLESS = ["/u/x", "/t/c/x", "/webhooks/ses", "/s/x"];

beforeAll(async () => {
  await platform.start();
  secretKey = (await platform.createProject("limits")).secretKey;
  api = apiClient(platform.url, secretKey);
  const ok = (name: string) => async () => {
    seen.push(name);
    return { status: 200, body: { success: true } };
  };
  fakes.push(
    await fakeService(platform.prefix, "contacts", {
      "contacts.list": async () => ({ status: 200, body: { data: [], cursor: null, hasMore: false, total: 0 } }),
      "contacts.create": async () => ({ status: 201, body: { id: "c1" } }),
    }),
    await fakeService(platform.prefix, "sending", {
      "sending.links.unsubscribe": ok("unsubscribe"),
      "sending.feedback.ses": ok("ses"),
      "sending.send": ok("send"),
    }),
  );
});
afterAll(async () => {
  for (const f of fakes) await f.stop();
  await platform.destroy();
});

function expectRefused(answer: RawAnswer, what: string) {
  expect(answer.status, what).toBe(413);
  expect(ErrorBody.parse(JSON.parse(answer.body)), what).toMatchObject({ code: 413, error: "PAYLOAD_TOO_LARGE" });
  // answered at once, not after the body was read (loopback buffers may still take it all)
  expect(answer.ms, what).toBeLessThan(1000);
}

/** The gateway process is alive and serving: its ops port and a keyed request through it. */
async function expectGatewayServing() {
  const proc = platform.procs.get("gateway")![0]!;
  expect(proc.child.exitCode).toBeNull();
  expect((await fetch(`http://127.0.0.1:${proc.opsPort}/livez`)).status).toBe(200);
  expect((await api.get("/contacts")).status).toBe(200);
}

describe("routes without a key", () => {
  it("refuse an 8 MB body with 413 on its Content-Length, one after the other", async () => {
    for (const path of KEYLESS) expectRefused(await rawRequest(platform.url, { method: "POST", path, bytes: EIGHT_MB }), path);
    await expectGatewayServing();
  });

  it("refuse four 8 MB bodies sent at once", async () => {
    const answers = await Promise.all(KEYLESS.map((path) => rawRequest(platform.url, { method: "POST", path, bytes: EIGHT_MB })));
    for (const [i, a] of answers.entries()) expectRefused(a, KEYLESS[i]!);
    await expectGatewayServing();
  });

  it("stop reading a chunked body without Content-Length as soon as it passes 64 KB", async () => {
    const answers = await Promise.all(KEYLESS.map((path) => rawRequest(platform.url, { method: "POST", path, bytes: EIGHT_MB, chunked: true })));
    for (const [i, a] of answers.entries()) expectRefused(a, `${KEYLESS[i]} chunked`);
    await expectGatewayServing();
  });

  it("take a body up to 64 KB", async () => {
    const anon = apiClient(platform.url);
    const form = `List-Unsubscribe=One-Click&pad=${"a".repeat(BODY_LIMITS.keyless - 100)}`;
    const fits = await anon.post("/u/x", form, { "content-type": "application/x-www-form-urlencoded" });
    expect(fits.status).toBe(200);
    expect(seen).toContain("unsubscribe");
    const over = await rawRequest(platform.url, { method: "POST", path: "/u/x", bytes: BODY_LIMITS.keyless + 1 });
    expect(over.status).toBe(413);
  });
});

describe("routes with a key", () => {
  it("take 2 MB, enough for a 1 MB template or campaign body as JSON, and refuse more", async () => {
    const fits = await api.post("/contacts", { email: "big@example.com", data: { note: "a".repeat(1024 * 1024 + 512 * 1024) } });
    expect(fits.status).toBe(201);
    const over = await rawRequest(platform.url, {
      method: "POST",
      path: "/contacts",
      headers: { authorization: `Bearer ${secretKey}` },
      bytes: EIGHT_MB,
    });
    expectRefused(over, "POST /contacts");
  });

  it("take an 8 MB /v1/send (base64 attachments) from a valid key only", async () => {
    const content = Buffer.alloc(6 * 1024 * 1024, 1).toString("base64");
    const body = { to: "a@example.com", from: "me@example.com", subject: "s", body: "b", attachments: [{ filename: "f.bin", contentType: "application/octet-stream", content }] };
    const sent = await api.post("/v1/send", body);
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    expect(seen).toContain("send");
    // without a key the body is not even read: 401 at once, and the connection closes
    const anon = await rawRequest(platform.url, { method: "POST", path: "/v1/send", bytes: EIGHT_MB });
    expect(anon.status).toBe(401);
    expect(anon.headers.connection).toBe("close");
    expect(anon.ms).toBeLessThan(1000);
    await expectGatewayServing();
  });

  it("state each route's limit in the OpenAPI document", async () => {
    const doc = (await api.get("/openapi.json")).body;
    expect(doc.paths["/v1/send"].post.requestBody.description).toMatch(/MB/);
    expect(doc.paths["/contacts"].post.requestBody.description).toContain("2 MB");
    expect(doc.paths["/webhooks/ses"].post.responses["413"]).toBeDefined();
  });
});
