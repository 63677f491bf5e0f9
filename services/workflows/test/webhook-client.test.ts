import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { waitFor } from "@mailroom/testkit";
import { callWebhook, WebhookError, WebhookInterrupted, type WebhookPolicy } from "../src/infra/webhook-client.js";

/** A loopback receiver that counts connections, and answers or drops by rule. */
async function receiver(onRequest: (req: http.IncomingMessage, res: http.ServerResponse, nth: number) => void) {
  const sockets = new Set<Socket>();
  const served = new WeakMap<Socket, number>();
  const server = http.createServer((req, res) => {
    const nth = (served.get(req.socket) ?? 0) + 1;
    served.set(req.socket, nth);
    req.resume();
    req.on("end", () => onRequest(req, res, nth));
  });
  server.keepAliveTimeout = 10_000;
  let closed = 0;
  server.on("connection", (s: Socket) => {
    sockets.add(s);
    s.once("close", () => closed++);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;
  const policy: WebhookPolicy = {
    resolve: async () => ["127.0.0.1"],
    allowedHosts: new Set([`127.0.0.1:${port}`]),
    timeoutMs: 5000,
    maxRedirects: 3,
  };
  const call = async (path: string) => (await callWebhook({ url: `http://127.0.0.1:${port}${path}`, method: "POST", headers: {}, body: "{}" }, policy)).status;
  const close = async () => {
    for (const s of sockets) s.destroy();
    await new Promise((r) => server.close(r));
  };
  return { call, connections: () => sockets.size, closed: () => closed, close };
}

let close: (() => Promise<unknown>) | undefined;
afterEach(async () => close?.());

describe("webhook client connections", () => {
  it("reuses one kept-alive connection for calls in a row", async () => {
    const r = await receiver((_req, res) => res.end("ok"));
    close = r.close;
    for (let i = 0; i < 5; i++) expect(await r.call("/ok")).toBe(200);
    expect(r.connections()).toBe(1);
  });

  it("sends again on a fresh connection when a pooled one was closed by the server", async () => {
    // the second request on a connection is dropped unanswered, as by a server closing an idle socket
    const seen: number[] = [];
    const r = await receiver((req, res, nth) => {
      seen.push(nth);
      if (nth === 2) req.socket.destroy();
      else res.end("ok");
    });
    close = r.close;
    expect(await r.call("/a")).toBe(200);
    expect(await r.call("/b")).toBe(200);
    expect(seen).toEqual([1, 2, 1]);
    expect(r.connections()).toBe(2);
  });

  it("does not send a third time when the fresh connection fails too", async () => {
    let requests = 0;
    const r = await receiver((req, res, nth) => {
      requests++;
      if (requests === 1) res.end("ok");
      else req.socket.destroy();
      void nth;
    });
    close = r.close;
    expect(await r.call("/a")).toBe(200);
    await expect(r.call("/b")).rejects.toThrow(/request failed/);
    expect(requests).toBe(3);
  });

  it("closes idle pooled connections within about a second", async () => {
    const r = await receiver((_req, res) => res.end("ok"));
    close = r.close;
    expect(await r.call("/ok")).toBe(200);
    // the client closes it (the server keeps connections for 10 s)
    await waitFor(() => r.closed() === 1, { timeoutMs: 1500, intervalMs: 20, what: "the idle connection closed" });
    expect(await r.call("/ok")).toBe(200);
    expect(r.connections()).toBe(2);
  });
});

/** A loopback server that records each request's headers; `answer` decides the reply. */
async function recorder(answer: (req: http.IncomingMessage, res: http.ServerResponse) => void) {
  const seen: Array<{ url: string; headers: http.IncomingHttpHeaders; body: string }> = [];
  const sockets = new Set<Socket>();
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      seen.push({ url: req.url ?? "", headers: req.headers, body });
      answer(req, res);
    });
  });
  server.on("connection", (s: Socket) => sockets.add(s));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    seen,
    sockets,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((r) => server.close(r));
    },
  };
}

const policyFor = (...ports: number[]): WebhookPolicy => ({
  resolve: async () => ["127.0.0.1"],
  allowedHosts: new Set(ports.map((p) => `127.0.0.1:${p}`)),
  timeoutMs: 5000,
  maxRedirects: 3,
});

describe("webhook client hostile endpoints", () => {
  const closers: Array<() => Promise<unknown>> = [];
  afterEach(async () => {
    for (const c of closers.splice(0)) await c();
  });

  const secrets = { Authorization: "Bearer s3cret", Cookie: "session=abc", "X-Api-Key": "k", "Content-Type": "application/json" };

  it("keeps the step's headers on a same-origin redirect and drops all but safelisted ones across origins", async () => {
    let firstUrl = "";
    const other = await recorder((req, res) => {
      if (req.url === "/back") res.writeHead(307, { location: `${firstUrl}/returned` }).end();
      else res.end("ok");
    });
    const first = await recorder((req, res) => {
      if (req.url === "/same") res.writeHead(307, { location: "/landed" }).end();
      else if (req.url === "/away") res.writeHead(307, { location: `${other.url}/landed` }).end();
      else if (req.url === "/away-and-back") res.writeHead(307, { location: `${other.url}/back` }).end();
      else res.end("ok");
    });
    firstUrl = first.url;
    closers.push(first.close, other.close);
    const policy = policyFor(first.port, other.port);
    expect((await callWebhook({ url: `${first.url}/same`, method: "POST", headers: secrets, body: "{}" }, policy)).status).toBe(200);
    expect(first.seen.at(-1)!.headers).toMatchObject({ authorization: "Bearer s3cret", cookie: "session=abc", "x-api-key": "k" });

    expect((await callWebhook({ url: `${first.url}/away`, method: "POST", headers: secrets, body: "{}" }, policy)).status).toBe(200);
    const landed = other.seen.at(-1)!;
    expect(landed.body).toBe("{}");
    expect(landed.headers["content-type"]).toBe("application/json");
    for (const h of ["authorization", "cookie", "x-api-key"]) expect(landed.headers[h], h).toBeUndefined();

    // sent back to the first origin by the other one: what was dropped stays dropped
    expect((await callWebhook({ url: `${first.url}/away-and-back`, method: "POST", headers: secrets, body: "{}" }, policy)).status).toBe(200);
    const returned = first.seen.find((r) => r.url === "/returned")!;
    expect(returned.headers.authorization).toBeUndefined();
    expect(returned.headers.cookie).toBeUndefined();
  });

  it("never sends the framing, Host or hop-by-hop headers a stored step may still carry", async () => {
    const r = await recorder((_req, res) => res.end("ok"));
    closers.push(r.close);
    const headers = {
      Host: "internal.example",
      "Content-Length": "0",
      "Transfer-Encoding": "chunked",
      Connection: "close",
      Upgrade: "websocket",
      "X-Ok": "1",
    };
    expect((await callWebhook({ url: `${r.url}/h`, method: "POST", headers, body: '{"a":1}' }, policyFor(r.port))).status).toBe(200);
    const got = r.seen[0]!;
    expect(got.body).toBe('{"a":1}');
    expect(got.headers.host).toBe(`127.0.0.1:${r.port}`);
    expect(got.headers["content-length"]).toBe("7");
    expect(got.headers["transfer-encoding"]).toBeUndefined();
    expect(got.headers.upgrade).toBeUndefined();
    expect(got.headers["x-ok"]).toBe("1");
  });

  it("answers with the status of an endless body once it has read 64 KB, and drops that socket", async () => {
    const r = await recorder((_req, res) => {
      res.writeHead(200, { "content-type": "text/plain" });
      const chunk = Buffer.alloc(16 * 1024, "a");
      const t = setInterval(() => res.write(chunk), 5);
      res.on("close", () => clearInterval(t));
    });
    closers.push(r.close);
    const started = Date.now();
    expect((await callWebhook({ url: `${r.url}/endless`, method: "POST", headers: {}, body: "{}" }, policyFor(r.port))).status).toBe(200);
    expect(Date.now() - started).toBeLessThan(3000); // well within the 5 s budget
    await waitFor(() => [...r.sockets].every((s) => s.destroyed), { what: "the socket dropped" });
  });

  it("refuses a name resolving to a private address without naming the address", async () => {
    const policy: WebhookPolicy = { ...policyFor(), resolve: async () => ["93.184.216.34", "10.20.30.40"] };
    const err = await callWebhook({ url: "http://db.internal.example/x", method: "POST", headers: {}, body: "{}" }, policy).catch((e: Error) => e);
    expect(err).toBeInstanceOf(WebhookError);
    expect((err as Error).message).toMatch(/db\.internal\.example resolves to an address that is not public/);
    expect((err as Error).message).not.toMatch(/10\.20\.30\.40|93\.184|private/);
  });

  it("says a connection failed without naming the address it was connecting to", async () => {
    const r = await recorder((_req, res) => res.end("ok"));
    const port = r.port;
    await r.close(); // nothing listens there any more
    const err = await callWebhook({ url: `http://127.0.0.1:${port}/x`, method: "POST", headers: {}, body: "{}" }, policyFor(port)).catch((e: Error) => e);
    expect((err as Error).message).toBe("request failed (ECONNREFUSED)");
  });

  it("an interrupt cuts a call waiting for its answer short, as WebhookInterrupted", async () => {
    const r = await recorder(() => undefined); // never answers
    closers.push(r.close);
    const interrupt = new AbortController();
    const call = callWebhook({ url: `${r.url}/slow`, method: "POST", headers: {}, body: "{}" }, policyFor(r.port), interrupt.signal);
    await waitFor(() => r.seen.length > 0, { what: "the request received" });
    interrupt.abort();
    await expect(call).rejects.toBeInstanceOf(WebhookInterrupted);
  });
});
