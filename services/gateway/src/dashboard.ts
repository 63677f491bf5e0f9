import fastifyStatic from "@fastify/static";
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler } from "fastify";
import { createHash, randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { sendError } from "./handlers/errors.js";

/** What the dashboard's build writes where each answer's nonce goes (packages/dashboard/vite.config.ts). */
const NONCE_PLACEHOLDER = "__MAILROOM_CSP_NONCE__";

/**
 * The app's policy. Scripts only from the gateway (Vite's build has no inline script). Mantine
 * injects <style> elements for its CSS variables: they carry this answer's nonce (Mantine's
 * getStyleNonce), so style-src needs no 'unsafe-inline'. frame-src 'self' is for the template
 * preview's sandboxed frame (`/app/preview-frame`, with its own policy).
 */
function contentSecurityPolicy(nonce: string): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    `style-src 'self' 'nonce-${nonce}'`,
    "img-src 'self' data: https:",
    "frame-src 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "object-src 'none'",
  ].join("; ");
}

/**
 * The template preview's frame, `/app/preview-frame`: an empty page whose one script shows the
 * HTML the editor posts to it. A srcdoc frame would inherit the app's policy, which refuses the
 * inline styles every email is written with; this page has its own. It allows the email's `style`
 * attributes and `<style>` blocks, https images and fonts, and no script but its own (by hash), so
 * neither the email's `<script>` nor its `on…` attributes run. The editor frames it with
 * `sandbox="allow-scripts"`: an opaque origin that cannot reach the dashboard or its session.
 * The parsed document is imported, so its scripts are inert even before the policy is asked; its
 * links are not followed and its refresh pragmas are dropped, so the frame never leaves this page
 * (the editor posts to it on each load without naming an origin, which an opaque one has not).
 */
const PREVIEW_SCRIPT =
  // a link in the email stays where it is; the frame is only ever this page
  'addEventListener("click",function(e){if(e.target.closest&&e.target.closest("a"))e.preventDefault()},true);' +
  'addEventListener("message",function(e){if(e.source!==parent||!e.data||typeof e.data.html!=="string")return;' +
  'var d=new DOMParser().parseFromString(e.data.html,"text/html");' +
  // a refresh pragma would take effect on insertion and navigate the frame
  'd.querySelectorAll("meta[http-equiv]").forEach(function(m){m.remove()});' +
  "document.replaceChild(document.importNode(d.documentElement,true),document.documentElement)});";
export const PREVIEW_FRAME_PAGE = `<!doctype html><html><head><meta charset="utf-8"><script>${PREVIEW_SCRIPT}</script></head><body></body></html>`;
export const PREVIEW_FRAME_POLICY = [
  "default-src 'none'",
  `script-src 'sha256-${createHash("sha256").update(PREVIEW_SCRIPT).digest("base64")}'`,
  "style-src 'unsafe-inline' https:",
  "img-src https: data:",
  "font-src https: data:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'self'",
].join("; ");

/** DASHBOARD_DIR, else the build of the @mailroom/dashboard workspace; null when neither exists. */
export function dashboardDir(configured: string | undefined): string | null {
  if (configured) return resolve(configured);
  try {
    return join(dirname(createRequire(import.meta.url).resolve("@mailroom/dashboard/package.json")), "dist");
  } catch {
    return null;
  }
}

/**
 * A path that tries to leave the build folder, however it is encoded (`..`, `%2e%2e`, `%252e%252e`,
 * backslashes, NUL): refused before any file is looked up.
 */
export function isHostilePath(url: string): boolean {
  let path = url.split("?")[0] ?? "";
  for (let i = 0; i < 3; i++) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(path);
    } catch {
      return true;
    }
    if (decoded.includes("\\") || decoded.includes("\0") || decoded.split("/").some((s) => s === ".." || s === ".")) return true;
    if (decoded === path) return false;
    path = decoded;
  }
  return true;
}

/**
 * The dashboard under /app/: hashed assets cached for good, every other /app/ path the app's
 * index.html (the client routes it) with a fresh CSP nonce and no caching, and `/` sends there.
 * The build is read per answer, so a rebuild needs no restart and a missing one is a clear 503.
 */
export function registerDashboard(app: FastifyInstance, dir: string | null, gate: onRequestHookHandler): void {
  app.get("/", { onRequest: gate }, async (_req, reply) => reply.redirect("/app/", 302));

  app.register(
    async (scope) => {
      scope.addHook("onRequest", gate);
      scope.addHook("onRequest", (req, reply, done) => {
        if (!isHostilePath(req.url)) return done();
        sendError(reply, { error: "NOT_FOUND", message: "Not found" });
      });
      scope.addHook("onSend", (_req, reply, payload, done) => {
        reply.header("x-content-type-options", "nosniff").header("referrer-policy", "same-origin");
        done(null, payload);
      });

      const html = async (req: FastifyRequest, reply: FastifyReply) => {
        // An asset that is not there is a 404, not the app's HTML under a script's name; and the app
        // is only ever fetched, never posted to.
        const readable = req.method === "GET" || req.method === "HEAD";
        if (!readable || req.url.startsWith("/app/assets/")) return sendError(reply, { error: "NOT_FOUND", message: `Route ${req.method} ${req.url.split("?")[0]} not found` });
        const page = dir ? await readFile(join(dir, "index.html"), "utf8").catch(() => null) : null;
        if (page === null) {
          return sendError(reply, {
            error: "SERVICE_UNAVAILABLE",
            message: "The dashboard is not built: run `npm run build` (or `npx turbo run build --filter=@mailroom/dashboard`), then reload",
          });
        }
        const nonce = randomBytes(16).toString("base64");
        return reply
          .type("text/html; charset=utf-8")
          .header("cache-control", "no-cache")
          .header("content-security-policy", contentSecurityPolicy(nonce))
          .send(page.replaceAll(NONCE_PLACEHOLDER, nonce));
      };
      scope.get("/", html);
      scope.get("/preview-frame", async (_req, reply) =>
        reply.type("text/html; charset=utf-8").header("cache-control", "no-cache").header("content-security-policy", PREVIEW_FRAME_POLICY).send(PREVIEW_FRAME_PAGE),
      );
      scope.setNotFoundHandler(html);

      if (!dir) return;
      await scope.register(fastifyStatic, {
        root: dir,
        prefix: "/",
        decorateReply: false,
        index: false,
        // index.html only through `html` above (it needs its nonce); a folder is no file to serve.
        allowedPath: (pathname) => pathname !== "/index.html" && !pathname.endsWith("/"),
        cacheControl: false,
        setHeaders: (res, path) => {
          // Vite names every file under assets/ by its content hash: a new build means new names.
          const hashed = path.startsWith(join(dir, "assets") + "/");
          res.setHeader("cache-control", hashed ? "public, max-age=31536000, immutable" : "public, max-age=3600");
        },
      });
    },
    { prefix: "/app" },
  );
}
