import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * Markers a test message carries to get a verdict from the stand-in rspamd (there is no rspamd on a
 * test machine): one of these in the message picks the action, anything else is a clean "no action".
 */
export const RSPAMD_MARKERS = {
  reject: "RSPAMD-TEST-REJECT",
  addHeader: "RSPAMD-TEST-ADD-HEADER",
  slow: "RSPAMD-TEST-SLOW",
} as const;

/** What the stand-in kept of one `/checkv2` request (the first 256 KB of the message). */
export interface RspamdRequest {
  headers: Record<string, string | string[] | undefined>;
  message: string;
}

/**
 * A stand-in for rspamd's normal worker on loopback: `POST /checkv2` answers the JSON rspamd gives
 * (score, required_score, action, symbols), chosen by RSPAMD_MARKERS in the message; a "slow" message
 * is never answered, to test the platform's bound. `GET /requests` lists what it received, so a test
 * in another process can see the message the platform sent.
 */
export async function startFakeRspamd() {
  const requests: RspamdRequest[] = [];
  const server: Server = createServer((req, res) => {
    if (req.method === "GET" && req.url === "/requests") {
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(requests));
      return;
    }
    if (req.method !== "POST" || req.url !== "/checkv2") {
      res.writeHead(404).end();
      return;
    }
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const message = Buffer.concat(chunks).toString("utf8");
      requests.push({ headers: req.headers, message: message.slice(0, 256 * 1024) });
      if (requests.length > 500) requests.shift();
      if (message.includes(RSPAMD_MARKERS.slow)) return; // never answered
      const answer = message.includes(RSPAMD_MARKERS.reject)
        ? { score: 21.5, required_score: 15, action: "reject", symbols: { BAYES_SPAM: { name: "BAYES_SPAM", score: 12.5 }, FAKE_MARKER: { name: "FAKE_MARKER", score: 9 } } }
        : message.includes(RSPAMD_MARKERS.addHeader)
          ? { score: 7.1, required_score: 15, action: "add header", symbols: { FAKE_MARKER: { name: "FAKE_MARKER", score: 7.1 } } }
          : { score: 0.4, required_score: 15, action: "no action", symbols: { MIME_GOOD: { name: "MIME_GOOD", score: -0.1 }, HTML_SHORT: { name: "HTML_SHORT", score: 0.5 } } };
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ is_skipped: false, ...answer, messages: {} }));
    });
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((done) => server.close(() => done()));
    },
  };
}
