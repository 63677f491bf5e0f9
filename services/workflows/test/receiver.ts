import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface Received {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
}

/** An HTTP listener on loopback that records every request; `handle` decides the answer. */
export async function startReceiver(handle: (req: Received) => { status: number; headers?: Record<string, string>; delayMs?: number } = () => ({ status: 200 })) {
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
        res.end("ok");
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
