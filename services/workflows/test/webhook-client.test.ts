import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { callWebhook, type WebhookPolicy } from "../src/infra/webhook-client.js";

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
  server.on("connection", (s: Socket) => sockets.add(s));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;
  const policy: WebhookPolicy = {
    resolve: async () => ["127.0.0.1"],
    allowedHosts: new Set([`127.0.0.1:${port}`]),
    timeoutMs: 5000,
    maxRedirects: 3,
  };
  const call = (path: string) => callWebhook({ url: `http://127.0.0.1:${port}${path}`, method: "POST", headers: {}, body: "{}" }, policy);
  const close = async () => {
    for (const s of sockets) s.destroy();
    await new Promise((r) => server.close(r));
  };
  return { call, connections: () => sockets.size, close };
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
    await new Promise((res) => setTimeout(res, 1500));
    expect(await r.call("/ok")).toBe(200);
    expect(r.connections()).toBe(2);
  });
});
