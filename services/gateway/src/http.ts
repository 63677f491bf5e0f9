import Fastify, { type FastifyInstance, type onSendHookHandler } from "fastify";
import { randomUUID } from "node:crypto";
import { BODY_LIMITS, accountRoutes, bodyLimitOf, type RouteDef } from "@mailroom/contracts";
import { isBusUnavailable, isConnectionError, type Logger, type Metrics } from "@mailroom/kit";
import type { TrustProxy } from "./config.js";
import { forwardHandler, type ForwardDeps } from "./handlers/forward.js";
import { streamedHandler } from "./handlers/streamed.js";
import { uploadHandler, type UploadDeps } from "./handlers/upload.js";
import { keyGate, keylessGate, type GateDeps } from "./handlers/gates.js";
import { clientErrorHandler, fromFastifyError, sendError } from "./handlers/errors.js";
import { buildOpenApi } from "./openapi.js";
import { registerAccounts, type AccountDeps } from "./handlers/accounts.js";
import { registerOidc, type OidcSettings } from "./handlers/oidc.js";
import { DOCS_POLICY, docsAssets } from "./docs-page.js";
import { registerDashboard } from "./dashboard.js";

const CORS_HEADERS = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "GET, POST, OPTIONS",
  "access-control-allow-headers": "Authorization, Content-Type, Idempotency-Key",
  "access-control-expose-headers": "RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, Retry-After, Idempotent-Replayed",
  "access-control-max-age": "86400",
};

export interface HttpDeps extends ForwardDeps, UploadDeps, GateDeps, AccountDeps {
  metrics: Metrics;
  log: Logger;
  publicUrl: string;
  /** TRUST_PROXY: whose X-Forwarded-For names the client (its address is what gets limited). */
  trustProxy: TrustProxy;
  /** HTTP_REQUEST_TIMEOUT_MS: bound on receiving a request (headers and body). */
  requestTimeoutMs: number;
  /** OpenID Connect sign-in, when configured. */
  oidc: OidcSettings | null;
  /** The dashboard's build, served under /app/ (null: not installed, /app/ answers 503). */
  dashboardDir: string | null;
}

export function buildHttp(deps: HttpDeps, routes: readonly RouteDef[]): FastifyInstance {
  const app = Fastify({
    logger: false,
    // Routes set their own limit (bodyLimitOf); this one bounds whatever no route claims (a 404).
    bodyLimit: BODY_LIMITS.keyless,
    trustProxy: deps.trustProxy,
    // fastify's default is no bound at all: a client that sent its headers and then trickled (or
    // never sent) its body held the connection for good. Node checks the bound every interval.
    requestTimeout: deps.requestTimeoutMs,
    http: {
      requestTimeout: deps.requestTimeoutMs,
      headersTimeout: Math.min(deps.requestTimeoutMs, 20_000),
      connectionsCheckingInterval: Math.min(5000, Math.max(100, Math.floor(deps.requestTimeoutMs / 4))),
    },
    genReqId: () => randomUUID(),
    // Fastify's own 503 while closing has a body of its own; ours (below) is the Error object.
    return503OnClosing: false,
    routerOptions: { ignoreTrailingSlash: true },
    // Errors raised before routing (an over-long path id, a bad URL, headers past the limit) would
    // otherwise get fastify's own body shape instead of the Error object.
    frameworkErrors: (err, _req, reply) => {
      if (err.code === "FST_ERR_MAX_PARAM_LENGTH") return sendError(reply, { error: "NOT_FOUND", message: "Not found" });
      return sendError(reply, fromFastifyError(err));
    },
    clientErrorHandler,
  });

  // Bodies that are not JSON (SNS posts text/plain, RFC 8058 one-click posts a form) reach the
  // route as a string; a JSON route given one fails its schema with a 400, never a 415 or a 500.
  app.addContentTypeParser("*", { parseAs: "string" }, (_req, body, done) => done(null, body));
  app.decorateRequest("principal", null);
  app.decorateRequest("session", null);

  // Requests that still arrive while the gateway drains (keep-alive sockets) get the Error object's
  // 503 and a closed connection, so clients retry elsewhere (packages/faults/test/sigterm.test.ts).
  let closing = false;
  app.addHook("preClose", async () => {
    closing = true;
  });
  // Hooks on every request are callback-style: an async hook costs a promise and a microtask per
  // request, which at thousands of requests a second shows in the gateway's profile.
  app.addHook("onRequest", (_req, reply, done) => {
    if (!closing) return done();
    reply.header("Connection", "close");
    sendError(reply, { error: "SERVICE_UNAVAILABLE", message: "The gateway is shutting down, try again" });
  });

  app.setErrorHandler((err, _req, reply) => {
    // Key lookups and idempotency rows live in PostgreSQL, uploads in the NATS blob store: while
    // either is away, 503 (retry), not 500.
    const wire = isConnectionError(err) || isBusUnavailable(err)
      ? { error: "SERVICE_UNAVAILABLE" as const, message: "A dependency is unavailable, try again" }
      : fromFastifyError(err as { code?: string; statusCode?: number; message?: string });
    if (wire.error === "INTERNAL_ERROR") deps.log.error({ err }, "unhandled gateway error");
    return sendError(reply, wire);
  });
  app.setNotFoundHandler((req, reply) =>
    sendError(reply, { error: "NOT_FOUND", message: `Route ${req.method} ${req.url.split("?")[0]} not found` }),
  );

  app.addHook("onResponse", (req, reply, done) => {
    const route = req.routeOptions.url ?? "unmatched";
    deps.metrics.httpRequests.inc({ route, method: req.method, status: String(reply.statusCode) });
    deps.metrics.httpDuration.observe({ route, method: req.method }, reply.elapsedTime / 1000);
    done();
  });

  // Only the routes browsers call cross-origin carry CORS headers, on every answer (errors too).
  const cors: onSendHookHandler = (_req, reply, payload, done) => {
    reply.headers(CORS_HEADERS);
    done(null, payload);
  };

  const keyless = keylessGate(deps);
  // a form's page and its post share a path: one preflight answer for both
  const preflights = new Set<string>();
  for (const route of routes) {
    if (route.upload) {
      const upload = route.upload;
      // Its own scope: the body reaches the handler as the request stream, which it stores as it
      // arrives (the app-wide parser would read it whole into a string first).
      app.register(async (scope) => {
        scope.removeAllContentTypeParsers();
        scope.addContentTypeParser("*", (_req, payload, done) => done(null, payload));
        scope.route({
          method: route.method,
          url: route.path,
          onRequest: keyGate(route, deps),
          handler: uploadHandler({ ...route, upload }, deps),
        });
      });
      continue;
    }
    app.route({
      method: route.method,
      url: route.path,
      // fastify refuses a body past the limit on its Content-Length, before reading it, and stops
      // reading a chunked one as soon as it passes the limit: 413 either way.
      bodyLimit: bodyLimitOf(route),
      onRequest: route.auth === "none" ? (route.clientLimitPerMinute ? keylessGate(deps, route) : keyless) : keyGate(route, deps),
      handler: route.streamed ? streamedHandler(route, deps) : forwardHandler(route, deps),
      ...(route.cors ? { onSend: cors } : {}),
    });
    if (route.cors && !preflights.has(route.path)) {
      preflights.add(route.path);
      app.options(route.path, { onRequest: keyless }, async (_req, reply) => reply.code(204).headers(CORS_HEADERS).send());
    }
  }

  registerAccounts(app, deps, keyless);
  if (deps.oidc) registerOidc(app, deps.oidc, deps, keyless);

  // Serialised once: the document is large, and anyone may ask for it.
  const openapi = JSON.stringify(buildOpenApi([...routes, ...accountRoutes], deps.publicUrl));
  app.get("/openapi.json", { onRequest: keyless }, async (_req, reply) => reply.type("application/json; charset=utf-8").send(openapi));
  const docs = docsAssets();
  app.get("/docs", { onRequest: keyless }, async (_req, reply) =>
    reply.type("text/html; charset=utf-8").header("content-security-policy", DOCS_POLICY).header("x-content-type-options", "nosniff").send(docs.html),
  );
  app.get<{ Params: { file: string } }>("/docs/static/:file", { onRequest: keyless }, async (req, reply) => {
    const f = docs.files[req.params.file];
    if (!f) return sendError(reply, { error: "NOT_FOUND", message: "Not found" });
    return reply.type(f.type).header("cache-control", "public, max-age=86400").send(f.body);
  });
  registerDashboard(app, deps.dashboardDir, keyless);
  return app;
}
