import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import { RESERVED_WEBHOOK_HEADERS } from "@mailroom/contracts";
import { hostPort, ipLiteral, parseWebhookUrl, refusal } from "@mailroom/kit";
import type { Resolve } from "./resolver.js";

export interface WebhookCall {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string | undefined;
}

export interface WebhookPolicy {
  resolve: Resolve;
  /** `host:port` entries exempt from the address rule (WEBHOOK_ALLOWED_HOSTS; local testing only). */
  allowedHosts: ReadonlySet<string>;
  timeoutMs: number;
  maxRedirects: number;
}

/** Why a webhook request was not made or did not succeed; the message becomes the step run's error. */
export class WebhookError extends Error {}

/** The caller's interrupt signal cut the call short before its answer came. */
export class WebhookInterrupted extends Error {}

/**
 * Bytes of an answer's body read at most. The body is only read so the connection can serve the next
 * call; past this the socket is dropped instead, so a tenant's endpoint cannot make us read without end.
 */
export const MAX_ANSWER_BYTES = 64 * 1024;

/** CORS-safelisted request headers: the only ones that follow a redirect to another origin. */
const SAFELISTED = new Set(["accept", "accept-language", "content-language", "content-type"]);

/**
 * Checks a URL against the address rule and returns the one address to connect to. Every address
 * the name resolves to must be public: a name with one public and one private address is refused,
 * since the attacker could steer which one a retry or another client picks.
 */
export async function vetUrl(raw: string, policy: WebhookPolicy, signal: AbortSignal): Promise<{ url: URL; address: string }> {
  const url = parseWebhookUrl(raw);
  if (typeof url === "string") throw new WebhookError(`${url}: ${raw}`);
  const literal = ipLiteral(url.hostname);
  const addresses = literal ? [literal] : await policy.resolve(url.hostname, signal).catch((err: Error) => {
    throw new WebhookError(err.message);
  });
  if (!policy.allowedHosts.has(hostPort(url))) {
    const refused = refusal(url.hostname, literal, addresses);
    if (refused) throw new WebhookError(refused);
  }
  const address = addresses.find((a) => !a.includes(":")) ?? addresses[0]!;
  return { url, address };
}

/** Pins the connection to the vetted address, so the socket never does a lookup of its own. */
const pinned = (address: string): LookupFunction => (_host, options, callback) => {
  const family = address.includes(":") ? 6 : 4;
  if ((options as { all?: boolean }).all) (callback as (e: null, a: Array<{ address: string; family: number }>) => void)(null, [{ address, family }]);
  else callback(null, address, family);
};

/**
 * Keep-alive pools: a fresh TCP (and TLS) connection per call cost more than the call itself. A pooled
 * socket is keyed by host and port and was connected to an address vetted when it was opened, so
 * reuse never reaches an address the rule refuses. Idle sockets close after a second, well before
 * the keep-alive timeouts servers commonly use (5 s and up), so we rarely write to one being closed.
 * No cap per host: callers bound their calls (per endpoint, per replica), and a call queued in the
 * pool for a socket of a host that other endpoints keep busy would spend its own timeout waiting
 * (64 sockets per host once held ten endpoints on one host to 64 calls where they had 80 slots).
 */
const agentOptions = { keepAlive: true, timeout: 1000, scheduling: "lifo" as const };
const agents = { http: new http.Agent(agentOptions), https: new https.Agent(agentOptions) };

/** A pooled socket the server closed while idle fails before any answer: the request never arrived. */
const staleSocket = (req: http.ClientRequest, err: NodeJS.ErrnoException) =>
  req.reusedSocket && (err.code === "ECONNRESET" || err.code === "EPIPE");

function send(url: URL, address: string, call: WebhookCall, signal: AbortSignal, retried = false): Promise<http.IncomingMessage> {
  const tls = url.protocol === "https:";
  const host = url.hostname.replace(/^\[|\]$/g, "");
  return new Promise((resolve, reject) => {
    const req = (tls ? https : http).request(
      {
        host,
        port: url.port || (tls ? 443 : 80),
        path: `${url.pathname}${url.search}`,
        method: call.method,
        headers: {
          ...call.headers,
          host: url.host,
          ...(call.body === undefined ? {} : { "content-length": String(Buffer.byteLength(call.body)) }),
        },
        lookup: pinned(address),
        agent: tls ? agents.https : agents.http,
        signal,
      },
      resolve,
    );
    // once, on a fresh connection, as every keep-alive client does (Node's http docs, `reusedSocket`)
    req.on("error", (err: NodeJS.ErrnoException) => (!retried && staleSocket(req, err) ? resolve(send(url, address, call, signal, true)) : reject(err)));
    req.end(call.body);
  });
}

/**
 * The headers a step's config may send: names lower-cased (a later one wins, so the config overrides
 * our `content-type`), and those the HTTP client owns (framing, hop-by-hop, Host) dropped even when a
 * step saved before they were refused still has them.
 */
export function sendableHeaders(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (!RESERVED_WEBHOOK_HEADERS.has(lower)) out[lower] = value;
  }
  return out;
}

const safelisted = (headers: Record<string, string>) => Object.fromEntries(Object.entries(headers).filter(([name]) => SAFELISTED.has(name)));

/**
 * Reads an answer's body so its socket can go back to the pool, keeping its first `keep` bytes; a
 * body over MAX_ANSWER_BYTES, or one still coming when the call's time is up, is cut off with its
 * socket.
 */
function drain(res: http.IncomingMessage, keep: number): Promise<Buffer> {
  return new Promise((resolve) => {
    let bytes = 0;
    const kept: Buffer[] = [];
    const done = () => resolve(Buffer.concat(kept).subarray(0, keep));
    res.on("data", (chunk: Buffer) => {
      if (bytes < keep) kept.push(chunk.subarray(0, keep - bytes));
      bytes += chunk.length;
      if (bytes > MAX_ANSWER_BYTES) {
        res.destroy();
        done();
      }
    });
    res.once("end", done);
    res.once("close", done);
    res.once("error", done);
  });
}

/** A failed request in words that never name the address it was connecting to. */
function requestFailure(err: NodeJS.ErrnoException): WebhookError {
  return new WebhookError(err.code ? `request failed (${err.code})` : "request failed");
}

/** A call's final answer: its status and the first `keepBytes` of its body (as UTF-8, cut where it was cut). */
export interface WebhookAnswer {
  status: number;
  body: string;
}

/**
 * One webhook delivery: at most `maxRedirects` redirects, each target vetted like the first, all
 * within one `timeoutMs`; no retries. Headers other than the safelisted ones do not follow a redirect
 * to another origin (scheme, host and port), so a tenant's credentials never reach a host they did
 * not name. Resolves with the final status (the caller judges 2xx) once it has come, even if its body
 * is then cut off, and the first `keepBytes` of that body. `interrupt` (a shutdown) cuts the call
 * short with WebhookInterrupted.
 */
export async function callWebhook(call: WebhookCall, policy: WebhookPolicy, interrupt?: AbortSignal, keepBytes = 0): Promise<WebhookAnswer> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), policy.timeoutMs);
  const onInterrupt = () => controller.abort();
  if (interrupt?.aborted) controller.abort();
  interrupt?.addEventListener("abort", onInterrupt, { once: true });
  let current: WebhookCall = { ...call, headers: sendableHeaders(call.headers) };
  let origin: string | undefined;
  try {
    for (let hop = 0; ; hop++) {
      const { url, address } = await vetUrl(current.url, policy, controller.signal);
      origin ??= url.origin;
      // once the call has left the first origin, the stripped headers stay stripped
      if (url.origin !== origin) current = { ...current, headers: safelisted(current.headers) };
      const res = await send(url, address, current, controller.signal);
      const kept = await drain(res, keepBytes);
      const status = res.statusCode ?? 0;
      const location = res.headers.location;
      if (status < 300 || status >= 400 || !location) return { status, body: kept.toString("utf8") };
      if (hop >= policy.maxRedirects) throw new WebhookError(`more than ${policy.maxRedirects} redirects`);
      const keepsMethod = status === 307 || status === 308 || current.method === "GET" || current.method === "HEAD";
      current = {
        url: new URL(location, url).toString(),
        method: keepsMethod ? current.method : "GET",
        headers: current.headers,
        body: keepsMethod ? current.body : undefined,
      };
    }
  } catch (err) {
    if (interrupt?.aborted) throw new WebhookInterrupted("the service is shutting down");
    if (controller.signal.aborted) throw new WebhookError(`no answer within ${policy.timeoutMs / 1000} s`);
    if (err instanceof WebhookError) throw err;
    throw requestFailure(err as NodeJS.ErrnoException);
  } finally {
    clearTimeout(timer);
    interrupt?.removeEventListener("abort", onInterrupt);
  }
}
