import { generateKeyPair } from "node:crypto";
import { promisify } from "node:util";
import type { DnsRecord } from "@mailroom/contracts";

const generate = promisify(generateKeyPair);

export interface DkimKey {
  /** PKCS#8 PEM, what dkim.ts signs with (parsed once, compose.ts keyObject). */
  privateKey: string;
  /** Base64 of the DER SubjectPublicKeyInfo: the `p=` of the DKIM record. */
  publicKey: string;
}

/** A 2048-bit RSA pair (decisions.md §5). Takes tens of milliseconds, so it runs off the event loop. */
export async function generateDkimKey(): Promise<DkimKey> {
  const { privateKey, publicKey } = await generate("rsa", {
    modulusLength: 2048,
    publicKeyEncoding: { type: "spki", format: "der" },
    privateKeyEncoding: { type: "pkcs8", format: "pem" },
  });
  return { privateKey, publicKey: publicKey.toString("base64") };
}

/** Dated selectors let a key be rotated later by publishing a second record beside the first. */
export function newSelector(now = new Date()): string {
  return `mr${now.toISOString().slice(0, 10).replace(/-/g, "")}`;
}

export const dkimName = (selector: string, domain: string) => `${selector}._domainkey.${domain}`;

/** What the owner publishes: the DKIM key (required) and SPF/DMARC recommendations. */
export function domainRecords(domain: string, selector: string, publicKey: string, returnPathDomain: string): DnsRecord[] {
  return [
    { type: "TXT", name: dkimName(selector, domain), value: `v=DKIM1; k=rsa; p=${publicKey}`, purpose: "dkim" },
    { type: "TXT", name: domain, value: `v=spf1 include:${returnPathDomain} ~all`, purpose: "spf" },
    { type: "TXT", name: `_dmarc.${domain}`, value: "v=DMARC1; p=none;", purpose: "dmarc" },
  ];
}

/** Tag-value list of a DKIM record (RFC 6376 §3.2): whitespace is not significant, `p` may be folded. */
function dkimKey(txt: string): string | null {
  for (const part of txt.split(";")) {
    const [tag, ...rest] = part.split("=");
    if (tag?.trim() === "p") return rest.join("=").replace(/\s+/g, "");
  }
  return null;
}

const matches: Record<DnsRecord["purpose"], (published: string, expected: string) => boolean> = {
  dkim: (published, expected) => dkimKey(published) !== null && dkimKey(published) === dkimKey(expected),
  spf: (published) => /^v=spf1(\s|$)/i.test(published.trim()),
  dmarc: (published) => /^v=DMARC1\s*;/i.test(published.trim()),
};

/** Marks each record found or not from the TXT strings looked up per name; verified when DKIM matches. */
export function evaluateRecords(records: DnsRecord[], txt: Map<string, string[]>): { records: DnsRecord[]; dkimOk: boolean } {
  const out = records.map((r) => ({ ...r, found: (txt.get(r.name) ?? []).some((p) => matches[r.purpose](p, r.value)) }));
  return { records: out, dkimOk: out.some((r) => r.purpose === "dkim" && r.found) };
}

/** The part after the last @, lower case: what a sender domain is matched on. */
export function domainOf(address: string): string {
  return address.slice(address.lastIndexOf("@") + 1).toLowerCase();
}
