import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { inboxPage, mailHtml, messagePage, notFoundPage } from "./pages.js";
import type { MessageStore } from "./store.js";
import { type StoredMessage, toSummary } from "./types.js";

const COMMON_HEADERS = {
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "no-referrer",
  "Cache-Control": "no-store",
};

// The inbox pages need nothing but their inline stylesheet, same-origin frames and the recipient
// filter, a GET form to the inbox itself.
const PAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; frame-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

// Mail HTML runs with no script at all, even when opened outside its sandboxed frame; images and
// inline styles stay allowed so the message looks as it would in a mail client.
const MAIL_CSP = "sandbox allow-popups allow-popups-to-escape-sandbox; default-src 'none'; img-src data: http: https:; style-src 'unsafe-inline'; font-src data:; form-action 'none'; frame-ancestors 'self'";

type Reply = { status: number; type: string; body: string | Buffer; headers?: Record<string, string> };

export function createWebServer(store: MessageStore): Server {
  return createServer((req, res) => {
    send(res, route(store, req));
  });
}

function route(store: MessageStore, req: IncomingMessage): Reply {
  const url = new URL(req.url ?? "/", "http://devmailbox");
  const path = url.pathname;
  const method = req.method ?? "GET";

  if (path === "/api/messages") {
    if (method === "GET") return json(200, addressedTo(store.list(), recipients(url.searchParams)).map(toSummary));
    if (method === "DELETE") {
      store.clear();
      return { status: 204, type: "text/plain", body: "" };
    }
    return notAllowed("GET, DELETE");
  }

  const isRead = method === "GET" || method === "HEAD";
  if (path === "/") {
    const to = recipients(url.searchParams);
    return isRead ? page(200, inboxPage(addressedTo(store.list(), to), to)) : notAllowed("GET");
  }

  const apiMatch = /^\/api\/messages\/([^/]+)$/.exec(path);
  if (apiMatch) {
    const message = store.get(decodeId(apiMatch[1]));
    if (!isRead) return notAllowed("GET");
    return message ? json(200, toSummary(message)) : json(404, { error: "NOT_FOUND", message: "no such message" });
  }

  const match = /^\/messages\/([^/]+)(\/html|\/raw)?$/.exec(path);
  if (!match) return page(404, notFoundPage());
  if (!isRead) return notAllowed("GET");
  const message = store.get(decodeId(match[1]));
  if (!message) return page(404, notFoundPage());
  switch (match[2]) {
    case "/raw":
      return { status: 200, type: "text/plain; charset=utf-8", body: message.raw };
    case "/html":
      return { status: 200, type: "text/html; charset=utf-8", body: mailHtml(message), headers: { "Content-Security-Policy": MAIL_CSP } };
    default:
      return page(200, messagePage(message));
  }
}

function decodeId(segment: string | undefined): string {
  try {
    return decodeURIComponent(segment ?? "");
  } catch {
    return ""; // a malformed escape names no message
  }
}

function page(status: number, body: string): Reply {
  return { status, type: "text/html; charset=utf-8", body, headers: { "Content-Security-Policy": PAGE_CSP } };
}

function json(status: number, value: unknown): Reply {
  return { status, type: "application/json; charset=utf-8", body: JSON.stringify(value) };
}

function notAllowed(allow: string): Reply {
  return { status: 405, type: "text/plain; charset=utf-8", body: "Method Not Allowed\n", headers: { Allow: allow } };
}

function send(res: ServerResponse, reply: Reply): void {
  res.writeHead(reply.status, { ...COMMON_HEADERS, ...reply.headers, "Content-Type": reply.type });
  res.end(res.req.method === "HEAD" || reply.status === 204 ? undefined : reply.body);
}

/** The `to` parameters, each of which may hold several addresses (the inbox's one search field). */
const recipients = (params: URLSearchParams): string[] =>
  params.getAll("to").flatMap((v) => v.split(/[\s,]+/)).filter(Boolean);

/**
 * `?to=a@x&to=b@y`: only the messages with one of these addresses among the envelope recipients or
 * the To header, compared case-insensitively. A client waiting for its own mail polls this, so it
 * should not have to download (and the sink serialise) every other message on each poll.
 */
function addressedTo(messages: StoredMessage[], to: string[]): StoredMessage[] {
  if (to.length === 0) return messages;
  const wanted = new Set(to.map((a) => a.toLowerCase()));
  const hit = (a: string) => wanted.has(a.toLowerCase());
  return messages.filter((m) => m.envelope.rcptTo.some(hit) || m.to.some(hit));
}
