import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

/**
 * The gateway serves `dist/` under /app/ (services/gateway/src/dashboard.ts). It replaces the nonce
 * placeholder in index.html with a fresh nonce per answer and names the same nonce in the page's
 * Content-Security-Policy: Mantine reads it from the `csp-nonce` meta tag for the <style> elements
 * it injects (CSS variables), so style-src needs no 'unsafe-inline'.
 */
export const CSP_NONCE_PLACEHOLDER = "__MAILROOM_CSP_NONCE__";

export default defineConfig({
  base: "/app/",
  plugins: [react()],
  html: { cspNonce: CSP_NONCE_PLACEHOLDER },
  build: {
    outDir: "dist",
    assetsDir: "assets",
    // Vite's default of inlining small assets as data: URLs is harmless (img-src allows data:), but a
    // font or script inlined that way would fall outside the CSP: keep every asset a file.
    assetsInlineLimit: 0,
    sourcemap: false,
    // Read by scripts/check-size.mjs (the initial-JavaScript budget); dot folders are never served.
    manifest: true,
    reportCompressedSize: true,
    // The whole app chunk is over 500 KB unzipped; what matters is the gzip budget check-size.mjs enforces.
    chunkSizeWarningLimit: 800,
  },
  server: {
    // `npx vite` during development: the API calls, and the template preview's frame (its own
    // security policy is the gateway's), go to a local gateway.
    proxy: Object.fromEntries(
      ["/auth", "/projects", "/v1", "/contacts", "/templates", "/emails", "/domains", "/stats", "/campaigns", "/segments", "/workflows", "/app/preview-frame"].map(
        (p) => [p, "http://localhost:8080"],
      ),
    ),
  },
});
