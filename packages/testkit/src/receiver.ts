import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface Received {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
}

/** How the receiver answers one request; the body is "ok" unless given. */
export interface ReceiverAnswer {
  status: number;
  headers?: Record<string, string>;
  body?: string;
  delayMs?: number;
}

/**
 * An HTTP listener on loopback that records every request; `handle` decides the answer. The
 * webhook tests' stand-in for a customer's endpoint: the workflows service calls it, the test reads
 * what it got (the platform lists it in WEBHOOK_ALLOWED_HOSTS, loopback being refused otherwise).
 */
export async function startReceiver(handle: (req: Received) => ReceiverAnswer = () => ({ status: 200 })) {
  const received: Received[] = [];
  const server: Server = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      const r = { method: req.method ?? "", url: req.url ?? "", headers: req.headers, body };
      received.push(r);
      const answer = handle(r);
      const timer = setTimeout(() => {
        res.writeHead(answer.status, answer.headers);
        res.end(answer.body ?? "ok");
      }, answer.delayMs ?? 0);
      res.on("close", () => clearTimeout(timer));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
export type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/**
 * The shared platform's webhook endpoint (test/global-setup.ts), for test files in other processes:
 * `POST /status/<code>/…` answers that status (a failing endpoint), any other POST 200; `GET
 * /received?path=<p>` lists the POSTs made to path `p`, so a test can check what was signed.
 */
export function startWebhookSink(): Promise<Receiver> {
  let sink: Receiver | undefined;
  const handle = (r: Received): ReceiverAnswer => {
    const url = new URL(r.url, "http://sink");
    if (r.method === "GET" && url.pathname === "/received") {
      const posts = sink?.received.filter((p) => p.method === "POST" && p.url === url.searchParams.get("path")) ?? [];
      return { status: 200, headers: { "content-type": "application/json" }, body: JSON.stringify(posts) };
    }
    const status = /^\/status\/(\d{3})(\/|$)/.exec(url.pathname)?.[1];
    return status ? { status: Number(status), body: `failing on purpose with ${status}` } : { status: 200 };
  };
  return startReceiver(handle).then((s) => (sink = s));
}

/** What the shared sink got at `path` (see startWebhookSink). */
export async function sinkReceived(sinkUrl: string, path: string): Promise<Received[]> {
  const res = await fetch(`${sinkUrl}/received?path=${encodeURIComponent(path)}`);
  if (!res.ok) throw new Error(`the webhook sink answered ${res.status}`);
  return (await res.json()) as Received[];
}
