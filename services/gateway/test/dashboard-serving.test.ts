import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ErrorBody } from "@mailroom/contracts";
import { Platform } from "@mailroom/testkit";

// A build of our own, so the test knows its file names, and a secret beside it that no path may reach.
const root = mkdtempSync(join(tmpdir(), "mailroom-dashboard-"));
const dist = join(root, "dist");
const SECRET = "secret-beside-the-build";
const SCRIPT = "console.log('mailroom dashboard');";
mkdirSync(join(dist, "assets"), { recursive: true });
writeFileSync(join(root, "secret.txt"), SECRET);
writeFileSync(join(root, "package.json"), JSON.stringify({ name: SECRET }));
writeFileSync(join(dist, "assets", "index-AbC123.js"), SCRIPT);
writeFileSync(join(dist, "favicon.svg"), "<svg xmlns='http://www.w3.org/2000/svg'/>");
writeFileSync(
  join(dist, "index.html"),
  `<!doctype html><html><head><meta property="csp-nonce" nonce="__MAILROOM_CSP_NONCE__">` +
    `<script type="module" src="/app/assets/index-AbC123.js" nonce="__MAILROOM_CSP_NONCE__"></script></head><body><div id="root"></div></body></html>`,
);

const built = new Platform({ services: ["gateway"], env: { DASHBOARD_DIR: dist } });
const unbuilt = new Platform({ services: ["gateway"], env: { DASHBOARD_DIR: join(root, "missing") } });

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** node:http sends the path exactly as given (fetch would resolve `..` before sending it). */
function get(base: string, path: string, method = "GET"): Promise<Answer> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: hostname, port, path, method }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (d) => (body += d));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

function directives(csp: unknown): Map<string, string> {
  return new Map(
    String(csp)
      .split(";")
      .map((d) => d.trim().split(/\s+/))
      .map(([name, ...values]) => [name!, values.join(" ")]),
  );
}

beforeAll(async () => {
  await Promise.all([built.start(), unbuilt.start()]);
});
afterAll(async () => {
  await Promise.all([built.destroy(), unbuilt.destroy()]);
  rmSync(root, { recursive: true, force: true });
});

describe("the dashboard under /app/", () => {
  it("sends / to /app/", async () => {
    const res = await get(built.url, "/");
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe("/app/");
  });

  it("answers the app's HTML with a strict CSP whose nonce is the page's, fresh for every answer", async () => {
    const first = await get(built.url, "/app/");
    expect(first.status).toBe(200);
    expect(first.headers["content-type"]).toMatch(/^text\/html/);
    expect(first.headers["cache-control"]).toBe("no-cache");
    expect(first.headers["x-content-type-options"]).toBe("nosniff");
    expect(first.headers["referrer-policy"]).toBe("same-origin");
    const csp = directives(first.headers["content-security-policy"]);
    const nonce = /'nonce-([^']+)'/.exec(csp.get("style-src") ?? "")?.[1];
    expect(nonce).toMatch(/^[A-Za-z0-9+/]{22}==$/);
    expect(Object.fromEntries(csp)).toEqual({
      "default-src": "'self'",
      "script-src": "'self'",
      "style-src": `'self' 'nonce-${nonce}'`,
      "img-src": "'self' data: https:",
      "frame-src": "'self'",
      "frame-ancestors": "'none'",
      "base-uri": "'none'",
      "form-action": "'self'",
      "object-src": "'none'",
    });
    expect(first.body).not.toContain("__MAILROOM_CSP_NONCE__");
    expect(first.body).toContain(`<meta property="csp-nonce" nonce="${nonce}">`);

    const second = await get(built.url, "/app/");
    expect(second.headers["content-security-policy"]).not.toBe(first.headers["content-security-policy"]);
  });

  it("answers the template preview's frame with its own policy: inline styles yes, no script but its one", async () => {
    const res = await get(built.url, "/app/preview-frame");
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toMatch(/^text\/html/);
    const csp = directives(res.headers["content-security-policy"]);
    const script = /<script>([\s\S]*?)<\/script>/.exec(res.body)?.[1] ?? "";
    expect(script).toContain('addEventListener("message"');
    expect(Object.fromEntries(csp)).toEqual({
      "default-src": "'none'",
      // the page's own script, by the hash of its text: nothing else on the page can run
      "script-src": `'sha256-${createHash("sha256").update(script).digest("base64")}'`,
      "style-src": "'unsafe-inline' https:",
      "img-src": "https: data:",
      "font-src": "https: data:",
      "base-uri": "'none'",
      "form-action": "'none'",
      "frame-ancestors": "'self'",
    });
    // not the app: a page without the build works too
    expect((await get(unbuilt.url, "/app/preview-frame")).status).toBe(200);
  });

  it("answers the same HTML for any app path, so the client routes it (and never the raw index.html)", async () => {
    const home = await get(built.url, "/app/");
    for (const path of ["/app", "/app/contacts", "/app/contacts/abc?tab=events", "/app/sign-in?next=%2Fcontacts", "/app/index.html"]) {
      const res = await get(built.url, path);
      expect(res.status, path).toBe(200);
      expect(res.headers["cache-control"], path).toBe("no-cache");
      expect(res.headers["content-security-policy"], path).toContain("frame-ancestors 'none'");
      expect(res.body.replace(/nonce="[^"]+"/g, ""), path).toBe(home.body.replace(/nonce="[^"]+"/g, ""));
    }
  });

  it("serves hashed assets to be cached for good, other files briefly", async () => {
    const js = await get(built.url, "/app/assets/index-AbC123.js");
    expect(js.status).toBe(200);
    expect(js.body).toBe(SCRIPT);
    expect(js.headers["content-type"]).toMatch(/javascript/);
    expect(js.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
    expect(js.headers["x-content-type-options"]).toBe("nosniff");
    const icon = await get(built.url, "/app/favicon.svg");
    expect(icon.status).toBe(200);
    expect(icon.headers["cache-control"]).toBe("public, max-age=3600");
  });

  it("answers a missing asset with the 404 Error object, not the HTML", async () => {
    for (const path of ["/app/assets/index-Gone99.js", "/app/assets/", "/app/assets/nested/x.css"]) {
      const res = await get(built.url, path);
      expect(res.status, path).toBe(404);
      expect(ErrorBody.parse(JSON.parse(res.body)).error, path).toBe("NOT_FOUND");
    }
  });

  it("refuses paths that try to leave the build, however encoded", async () => {
    const attempts = [
      "/app/../package.json",
      "/app/../secret.txt",
      "/app/assets/../../secret.txt",
      "/app/%2e%2e/secret.txt",
      "/app/%2E%2E/package.json",
      "/app/assets/..%2f..%2fsecret.txt",
      "/app/assets/%2e%2e%2f%2e%2e%2fsecret.txt",
      "/app/%252e%252e/secret.txt",
      "/app/..%5csecret.txt",
      "/app/assets/..\\..\\secret.txt",
      "/app/assets/index-AbC123.js%00.html",
      "/app/%c0%ae%c0%ae/secret.txt",
      "/app/assets/./index-AbC123.js",
    ];
    for (const path of attempts) {
      const res = await get(built.url, path);
      expect([400, 404], path).toContain(res.status);
      expect(res.body, path).not.toContain(SECRET);
      expect(res.body, path).not.toContain("@mailroom/gateway");
      expect(ErrorBody.safeParse(JSON.parse(res.body)).success, path).toBe(true);
    }
  });

  it("answers other methods on app paths with the 404 Error object", async () => {
    const res = await get(built.url, "/app/contacts", "POST");
    expect(res.status).toBe(404);
    expect(ErrorBody.parse(JSON.parse(res.body)).error).toBe("NOT_FOUND");
  });

  it("leaves the API's own answers alone", async () => {
    const res = await get(built.url, "/no-such-route");
    expect(res.status).toBe(404);
    expect(res.headers["content-security-policy"]).toBeUndefined();
    expect(ErrorBody.parse(JSON.parse(res.body)).error).toBe("NOT_FOUND");
  });
});

describe("without a build", () => {
  it("starts anyway and says at /app/ how to build the dashboard", async () => {
    const res = await get(unbuilt.url, "/app/");
    expect(res.status).toBe(503);
    const body = ErrorBody.parse(JSON.parse(res.body));
    expect(body.error).toBe("SERVICE_UNAVAILABLE");
    expect(body.message).toMatch(/dashboard is not built.*npm run build/);
    expect((await get(unbuilt.url, "/app/members")).status).toBe(503);
    expect((await get(unbuilt.url, "/")).status).toBe(302);
    expect((await get(unbuilt.url, "/app/assets/index-AbC123.js")).status).toBe(404);
  });
});
