import { createHash, type KeyObject, sign } from "node:crypto";
import { domainToASCII } from "node:url";

/**
 * DKIM signatures (RFC 6376): rsa-sha256, relaxed/relaxed, the one algorithm our domains' keys
 * support (domains.ts makes 2048-bit RSA pairs and publishes `k=rsa`).
 *
 * Why our own: the RSA operation is about a quarter of the CPU of a delivery, and nodemailer's
 * signer makes it on the event loop that also drives the SMTP connections. `crypto.sign` with a
 * callback makes it on libuv's thread pool instead. nodemailer then only carries finished bytes.
 *
 * Compatibility: the DKIM-Signature field is the one nodemailer's signer writes for the same message
 * and key, byte for byte (tag order, folding, one signed instance per field name), so switching
 * signers changed no message; dkim.test.ts compares the two.
 */

/** A domain's signing key: `privateKey` parsed once (compose.ts keyObject), never a PEM per message. */
export interface DkimKey {
  domain: string;
  selector: string;
  privateKey: KeyObject;
}

/**
 * Header fields the signature covers (decisions.md §5): nodemailer's RFC 6376 list, which has
 * List-Unsubscribe, plus List-Unsubscribe-Post, so a relay cannot strip one-click unsubscription.
 * Each is signed once, its last instance, as nodemailer signs.
 */
export const DKIM_HEADERS =
  "From:Sender:Reply-To:Subject:Date:Message-ID:To:Cc:MIME-Version:Content-Type:Content-Transfer-Encoding:" +
  "Content-ID:Content-Description:In-Reply-To:References:List-Id:List-Help:List-Unsubscribe:" +
  "List-Unsubscribe-Post:List-Subscribe:List-Post:List-Owner:List-Archive";
const SIGNED_FIELDS = [...new Set(DKIM_HEADERS.toLowerCase().split(":"))];

/** RFC 6376 §3.1: a selector is a sub-domain, so it can be looked up as `<selector>._domainkey.<domain>`. */
const SELECTOR = /^[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*$/;

/**
 * `message` (a header block, an empty line, a body) with its DKIM-Signature field in front.
 * The bytes are read one character per byte (latin1), so a header carrying raw UTF-8 is signed as
 * the bytes a receiver canonicalizes, not as decoded text.
 */
export async function signMessage(message: Buffer, key: DkimKey): Promise<Buffer> {
  const field = await dkimSignature(message, key);
  return Buffer.concat([Buffer.from(`${field}\r\n`, "latin1"), message]);
}

/** The DKIM-Signature field of `message`, folded, without its final CRLF. */
export async function dkimSignature(message: Buffer, key: DkimKey): Promise<string> {
  const { type, asymmetricKeyType } = key.privateKey;
  if (type !== "private" || asymmetricKeyType !== "rsa") {
    throw new Error(`DKIM signing needs an RSA private key, got ${type === "private" ? asymmetricKeyType : `a ${type} key`}`);
  }
  const domain = domainToASCII(key.domain);
  if (!domain) throw new Error(`DKIM signing domain is not a domain name: ${JSON.stringify(key.domain)}`);
  if (!SELECTOR.test(key.selector)) throw new Error(`DKIM selector is not a DNS label sequence: ${JSON.stringify(key.selector)}`);

  const bodyStart = headerEnd(message);
  const signed = signedHeaders(message.toString("latin1", 0, bodyStart));
  if (!signed.names.includes("from")) throw new Error("DKIM signing needs a From header (RFC 6376 §5.4)");
  const bh = await relaxedBodyHash(message.subarray(bodyStart));
  const tags = `v=1; a=rsa-sha256; c=relaxed/relaxed; d=${domain}; q=dns/txt; s=${key.selector}; bh=${bh}; h=${signed.names.join(":")}`;
  // The signature covers its own field with b= empty, as the last header (§3.7).
  const unsigned = `${fold(`DKIM-Signature: ${tags}`)};\r\n b=`;
  const data = `${signed.canonical}dkim-signature:${relaxedValue(unsigned.slice("DKIM-Signature:".length))}`;
  const b = await new Promise<Buffer>((resolve, reject) =>
    sign("sha256", Buffer.from(data, "latin1"), key.privateKey, (err, sig) => (err ? reject(err) : resolve(sig))),
  );
  return unsigned + foldBase64(b.toString("base64"));
}

/**
 * Where the body starts: after the first empty line. A message without one is all header (RFC 5322
 * §3.5). Only the header is scanned, however large the attachments after it.
 */
function headerEnd(message: Buffer): number {
  for (let lf = message.indexOf(0x0a); lf !== -1; lf = message.indexOf(0x0a, lf + 1)) {
    if (message[lf + 1] === 0x0a) return lf + 2;
    if (message[lf + 1] === 0x0d && message[lf + 2] === 0x0a) return lf + 3;
  }
  return message.length;
}

/**
 * The relaxed canonical form of the signed fields (§3.4.2), in DKIM_HEADERS order, and their names
 * for h=. A name that occurs more than once is signed once, its last instance: the one a verifier
 * takes first when it reads h= from the bottom up (§5.4.2).
 */
function signedHeaders(head: string): { canonical: string; names: string[] } {
  const last = new Map<string, string>();
  for (const field of unfold(head)) {
    const colon = field.indexOf(":");
    if (colon <= 0) continue; // not a header field (nodemailer writes none): nothing to sign
    last.set(field.slice(0, colon).replace(/^[ \t]+|[ \t]+$/g, "").toLowerCase(), field.slice(colon + 1));
  }
  const names = SIGNED_FIELDS.filter((name) => last.has(name));
  return { canonical: names.map((name) => `${name}:${relaxedValue(last.get(name)!)}\r\n`).join(""), names };
}

/** Header fields, continuation lines (starting with SP or HTAB) joined to the field they continue. */
function unfold(head: string): string[] {
  const fields: string[] = [];
  for (const line of head.split(/\r?\n/)) {
    if (/^[ \t]/.test(line) && fields.length > 0) fields[fields.length - 1] += line;
    else if (line !== "") fields.push(line);
  }
  return fields;
}

/**
 * Relaxed field value (§3.4.2): unfolded, runs of SP and HTAB one SP, none at either end. Only SP
 * and HTAB: a non-breaking space's bytes in a UTF-8 header stay, as a verifier keeps them.
 */
function relaxedValue(value: string): string {
  return value.replace(/\r?\n/g, "").replace(/[ \t]+/g, " ").replace(/^ | $/g, "");
}

/**
 * bh=: SHA-256 of the relaxed body (§3.4.4): whitespace at line ends goes, other runs of SP and
 * HTAB become one SP, empty lines at the end go, and a non-empty body ends with CRLF. A bare LF ends
 * a line too: the SMTP client sends it as CRLF, so that is what a receiver hashes.
 *
 * In blocks of whole lines read from the bytes: a body with a 10 MB attachment is never copied whole
 * onto a 256 MB heap, each expression is linear (none can backtrack through a run of spaces), and
 * the event loop gets a turn every megabyte (10 MB take about 50 ms here).
 */
export async function relaxedBodyHash(body: Buffer): Promise<string> {
  const hash = createHash("sha256");
  let held = 0; // empty lines not hashed yet: they count only if a line with content follows
  for (let start = 0, blocks = 0; start < body.length; blocks++) {
    if (blocks % 16 === 15) await new Promise(setImmediate);
    let lf = body.lastIndexOf(0x0a, start + BLOCK);
    if (lf < start) lf = body.indexOf(0x0a, start + BLOCK);
    const end = lf === -1 ? body.length : lf + 1;
    let canonical = body
      .toString("latin1", start, end)
      .replace(/[ \t]+/g, " ")
      .replace(/ ?\r?\n/g, "\r\n")
      .replace(/ $/, ""); // the body's last line may end without a line break
    start = end;
    if (canonical !== "" && !canonical.endsWith("\r\n")) canonical += "\r\n";
    // Trailing empty lines: a CRLF that ends the block and starts a line.
    let kept = canonical.length;
    while (kept >= 2 && canonical.endsWith("\r\n", kept) && (kept === 2 || canonical[kept - 3] === "\n")) kept -= 2;
    if (kept > 0) {
      hash.update("\r\n".repeat(held) + canonical.slice(0, kept), "latin1");
      held = 0;
    }
    held += (canonical.length - kept) / 2;
  }
  return hash.digest("base64");
}
const BLOCK = 65_536;

/**
 * Folds a header line before whitespace so lines stay within `width` where a word allows, the way
 * nodemailer's foldLines does: a word longer than the rest of the line (h= is one word) runs over.
 */
function fold(line: string, width = 76): string {
  const lines: string[] = [];
  let pos = 0;
  while (line.length - pos >= width) {
    let end = line.slice(pos, pos + width).search(/[ \t]+[^ \t]*$/);
    if (end <= 0) {
      const next = line.slice(pos + width).search(/[ \t]/);
      end = next === -1 ? line.length - pos : width + next;
    }
    lines.push(line.slice(pos, pos + end));
    pos += end;
  }
  if (pos < line.length) lines.push(line.slice(pos));
  return lines.join("\r\n");
}

/** b= folded as nodemailer folds it: 73 characters after " b=", then lines of a space and 75. */
function foldBase64(b64: string): string {
  const lines = [b64.slice(0, 73)];
  for (let i = 73; i < b64.length; i += 75) lines.push(b64.slice(i, i + 75));
  return lines.join("\r\n ");
}
