/**
 * The nonce the gateway put in this answer's CSP and its `csp-nonce` meta tag (vite.config.ts): what
 * injects <style> elements (Mantine, CodeMirror) puts it on them, as the strict style-src requires.
 */
export function cspNonce(): string {
  return document.querySelector<HTMLMetaElement>('meta[property="csp-nonce"]')?.nonce ?? "";
}
