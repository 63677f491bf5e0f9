import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

/**
 * The reference's policy, like the dashboard's (decisions.md §15): scripts and styles only from the
 * gateway (the page has no inline script), requests ("Try it out") to the gateway only, no framing.
 * Swagger UI sets its inline styles through the DOM, which the policy does not govern; its icons are
 * inline SVG and data: images.
 */
export const DOCS_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "object-src 'none'",
].join("; ");

/** The interactive reference at /docs: swagger-ui served from the package, no CDN (works offline). */
export function docsAssets(): { html: string; files: Record<string, { type: string; body: Buffer }> } {
  const dir = dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"));
  const read = (f: string) => readFileSync(join(dir, f));
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Mailroom API reference</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="/docs/static/swagger-ui.css"></head>
<body><div id="app"></div>
<script src="/docs/static/swagger-ui-bundle.js"></script>
<script src="/docs/static/init.js"></script></body></html>`;
  const init = `window.ui = SwaggerUIBundle({ url: "/openapi.json", dom_id: "#app", deepLinking: true, persistAuthorization: false });`;
  return {
    html,
    files: {
      "swagger-ui.css": { type: "text/css; charset=utf-8", body: read("swagger-ui.css") },
      "swagger-ui-bundle.js": { type: "application/javascript; charset=utf-8", body: read("swagger-ui-bundle.js") },
      "init.js": { type: "application/javascript; charset=utf-8", body: Buffer.from(init) },
    },
  };
}
