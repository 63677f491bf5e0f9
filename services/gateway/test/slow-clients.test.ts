import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ErrorBody } from "@mailroom/contracts";
import { Platform, apiClient } from "@mailroom/testkit";
import { fakeService } from "./fake-service.js";

/**
 * A client that sends its request slowly, or stops halfway, must not hold a connection for good
 * (decisions.md §12: every caller's work is bounded in time before it runs). HTTP_REQUEST_TIMEOUT_MS
 * bounds receiving a request; past it the Error object and a closed connection.
 */
const TIMEOUT_MS = 1500;
const platform = new Platform({ services: ["gateway"], env: { HTTP_REQUEST_TIMEOUT_MS: String(TIMEOUT_MS) } });
let fake: Awaited<ReturnType<typeof fakeService>>;

beforeAll(async () => {
  await platform.start();
  fake = await fakeService(platform.prefix, "contacts", {
    "contacts.list": async () => ({ status: 200, body: { data: [], cursor: null, hasMore: false, total: 0 } }),
  });
});
afterAll(async () => {
  await fake?.stop();
  await platform.destroy();
});

/** Writes `head`, then `trickle` one byte every 200 ms, and reads until the server closes. */
function slowRequest(head: string, trickle = false): Promise<{ raw: string; ms: number }> {
  const socket = connect(platform.gatewayPort, "127.0.0.1");
  const started = performance.now();
  let raw = "";
  socket.on("data", (d) => (raw += d));
  socket.write(head);
  const timer = trickle ? setInterval(() => socket.writable && socket.write("a"), 200) : undefined;
  return new Promise((resolve, reject) => {
    const guard = setTimeout(() => {
      socket.destroy();
      reject(new Error(`still open after 10 s, read: ${JSON.stringify(raw)}`));
    }, 10_000);
    socket.on("error", () => undefined);
    socket.on("close", () => {
      clearTimeout(guard);
      clearInterval(timer);
      resolve({ raw, ms: performance.now() - started });
    });
  });
}

function expectCutOff({ raw, ms }: { raw: string; ms: number }) {
  expect(raw).toMatch(/^HTTP\/1\.1 400 /);
  const body = ErrorBody.parse(JSON.parse(raw.slice(raw.indexOf("\r\n\r\n") + 4)));
  expect(body).toMatchObject({ code: 400, error: "VALIDATION_ERROR", message: "The request did not arrive in time" });
  expect(ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 100);
  expect(ms).toBeLessThan(TIMEOUT_MS + 2000);
}

describe("a slow or stalled client", () => {
  it("is cut off when its body stops coming", async () => {
    expectCutOff(await slowRequest("POST /u/x HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 1000\r\n\r\nList-Unsub"));
  });

  it("is cut off when its body trickles in", async () => {
    expectCutOff(await slowRequest("POST /u/x HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 10000\r\n\r\n", true));
  });

  it("is cut off when its headers never end", async () => {
    expectCutOff(await slowRequest("GET /t/o/x HTTP/1.1\r\nHost: x\r\nX-Slow: "));
  });

  it("leaves the gateway serving others meanwhile", async () => {
    const stalled = Array.from({ length: 20 }, () => slowRequest("POST /u/x HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n"));
    const { secretKey } = await platform.createProject("slow");
    const started = Date.now();
    expect((await apiClient(platform.url, secretKey).get("/contacts")).status).toBe(200);
    expect(Date.now() - started).toBeLessThan(TIMEOUT_MS);
    for (const s of await Promise.all(stalled)) expectCutOff(s);
  });
});
