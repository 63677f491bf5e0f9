import { readFileSync } from "node:fs";

/** Fetches SNS signing certificates (and follows subscription confirmations). */
export interface SnsClient {
  certificate(url: string): Promise<string>;
  confirm(subscribeUrl: string): Promise<void>;
}

const MAX_CERT_BYTES = 16 * 1024;
const TIMEOUT_MS = 5_000;

async function get(url: string): Promise<string> {
  const res = await fetch(url, { redirect: "error", signal: AbortSignal.timeout(TIMEOUT_MS) });
  if (!res.ok) throw new Error(`GET ${url}: ${res.status}`);
  const text = await res.text();
  if (text.length > MAX_CERT_BYTES) throw new Error(`GET ${url}: answer too large`);
  return text;
}

/**
 * Over https, certificates cached by URL (SNS rotates them by publishing a new URL). With
 * SNS_CERTIFICATES_FILE (tests: no AWS in a sandbox) certificates come from that JSON file
 * `{ "<SigningCertURL>": "<PEM>" }` and confirmations are only logged.
 */
export function createSnsClient(certificatesFile: string | undefined, onConfirm: (url: string) => void): SnsClient {
  if (certificatesFile) {
    return {
      async certificate(url) {
        const pem = (JSON.parse(readFileSync(certificatesFile, "utf8")) as Record<string, string>)[url];
        if (!pem) throw new Error(`no certificate for ${url} in SNS_CERTIFICATES_FILE`);
        return pem;
      },
      async confirm(url) {
        onConfirm(url);
      },
    };
  }
  const cache = new Map<string, Promise<string>>();
  return {
    certificate(url) {
      let pem = cache.get(url);
      if (!pem) {
        pem = get(url);
        pem.catch(() => cache.delete(url));
        if (cache.size > 50) cache.clear();
        cache.set(url, pem);
      }
      return pem;
    },
    async confirm(url) {
      await get(url);
      onConfirm(url);
    },
  };
}
