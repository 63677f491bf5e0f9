import { X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
import { BoundedMap } from "@mailroom/kit";

/** Fetches SNS signing certificates (and follows subscription confirmations). */
export interface SnsClient {
  certificate(url: string): Promise<X509Certificate>;
  confirm(subscribeUrl: string): Promise<void>;
}

const MAX_CERT_BYTES = 16 * 1024;
const TIMEOUT_MS = 5_000;
/** SNS publishes a handful of certificates per region; more distinct URLs than this are not SNS's. */
const CACHED_CERTIFICATES = 32;
/** Fetches under way at once: a burst of messages naming fresh URLs must not become a burst of requests. */
const MAX_FETCHES = 4;

async function get(url: string): Promise<string> {
  const res = await fetch(url, { redirect: "error", signal: AbortSignal.timeout(TIMEOUT_MS) });
  if (!res.ok) throw new Error(`GET ${url}: ${res.status}`);
  const text = await res.text();
  if (text.length > MAX_CERT_BYTES) throw new Error(`GET ${url}: answer too large`);
  return text;
}

/**
 * Over https, certificates parsed once and cached by URL (SNS rotates them by publishing a new URL),
 * at most CACHED_CERTIFICATES of them and MAX_FETCHES fetches at a time. The caller checks the URL
 * (domain/sns.ts) before asking. With SNS_CERTIFICATES_FILE (tests: no AWS in a sandbox)
 * certificates come from that JSON file `{ "<SigningCertURL>": "<PEM>" }` and confirmations are only
 * logged.
 */
export function createSnsClient(certificatesFile: string | undefined, onConfirm: (url: string) => void): SnsClient {
  if (certificatesFile) {
    return {
      async certificate(url) {
        const pem = (JSON.parse(readFileSync(certificatesFile, "utf8")) as Record<string, string>)[url];
        if (!pem) throw new Error(`no certificate for ${url} in SNS_CERTIFICATES_FILE`);
        return new X509Certificate(pem);
      },
      async confirm(url) {
        onConfirm(url);
      },
    };
  }
  const cache = new BoundedMap<string, Promise<X509Certificate>>(CACHED_CERTIFICATES);
  let fetching = 0;
  return {
    certificate(url) {
      let cert = cache.get(url);
      if (!cert) {
        if (fetching >= MAX_FETCHES) return Promise.reject(new Error("too many SNS certificate fetches under way"));
        fetching++;
        cert = get(url)
          .then((pem) => new X509Certificate(pem))
          .finally(() => fetching--);
        // a failure is not kept: the next message tries again
        cert.catch(() => cache.delete(url));
        cache.set(url, cert);
      }
      return cert;
    },
    async confirm(url) {
      await get(url);
      onConfirm(url);
    },
  };
}
