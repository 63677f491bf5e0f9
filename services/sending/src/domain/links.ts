import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * Signed tokens of the links in a message: o(pen pixel), c(lick), u(nsubscribe), s(ubscribe), m(anage),
 * and k, the double opt-in confirmation (served at `/c/`: the path was free, the letter was not).
 *
 * Version 1 (current): base64url of `1 | kind | emailId (16 bytes) | projectId (16) | link index (u16)`
 * followed by the first 16 bytes of HMAC-SHA256 over that payload with MAILROOM_SECRET. The project
 * is inside the MAC, so a token only ever names an email of its own project; a click token names a
 * stored link by index, never a URL (no open redirect).
 *
 * Version 0 (mail queued before the feedback loop existed): `<emailId>.<mac>` for u/s/m only, the
 * MAC over `<kind>:<emailId>`. Still verified, so links in mail already sent keep working.
 *
 * Compatibility: tokens live in mail for years. Never change a version's layout; add a version.
 */
export type LinkKind = "o" | "c" | "u" | "s" | "m" | "k";

export interface LinkToken {
  kind: LinkKind;
  emailId: string;
  /** Null for version-0 tokens (the email record then decides the project). */
  projectId: string | null;
  index: number;
}

const VERSION = 1;
const MAC_BYTES = 16;
const PAYLOAD_BYTES = 2 + 16 + 16 + 2;
const DOMAIN = "mailroom-link\n";
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const uuidBytes = (id: string) => Buffer.from(id.replace(/-/g, ""), "hex");
const uuidText = (b: Buffer) => {
  const h = b.toString("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
};
const mac = (secret: string, payload: Buffer) => createHmac("sha256", secret).update(DOMAIN).update(payload).digest().subarray(0, MAC_BYTES);

export function signToken(secret: string, t: Omit<LinkToken, "projectId"> & { projectId: string }): string {
  if (!UUID_RE.test(t.emailId) || !UUID_RE.test(t.projectId)) throw new Error("link tokens carry UUIDs");
  if (!Number.isInteger(t.index) || t.index < 0 || t.index > 0xffff) throw new Error("link index out of range");
  const payload = Buffer.alloc(PAYLOAD_BYTES);
  payload[0] = VERSION;
  payload[1] = t.kind.charCodeAt(0);
  uuidBytes(t.emailId).copy(payload, 2);
  uuidBytes(t.projectId).copy(payload, 18);
  payload.writeUInt16BE(t.index, 34);
  return Buffer.concat([payload, mac(secret, payload)]).toString("base64url");
}

/** The token's contents when it is genuine and of `kind`; null for anything tampered or foreign. */
export function verifyToken(secret: string, kind: LinkKind, token: string): LinkToken | null {
  if (token.includes(".")) return kind === "u" || kind === "s" || kind === "m" ? verifyV0(secret, kind, token) : null;
  if (!/^[A-Za-z0-9_-]+$/.test(token)) return null;
  const raw = Buffer.from(token, "base64url");
  if (raw.length !== PAYLOAD_BYTES + MAC_BYTES) return null;
  // The last character carries 4 unused bits that decoding ignores: only the one spelling we issue counts.
  if (raw.toString("base64url") !== token) return null;
  const payload = raw.subarray(0, PAYLOAD_BYTES);
  if (!timingSafeEqual(raw.subarray(PAYLOAD_BYTES), mac(secret, payload))) return null;
  if (payload[0] !== VERSION || payload[1] !== kind.charCodeAt(0)) return null;
  return {
    kind,
    emailId: uuidText(payload.subarray(2, 18)),
    projectId: uuidText(payload.subarray(18, 34)),
    index: payload.readUInt16BE(34),
  };
}

function verifyV0(secret: string, kind: LinkKind, token: string): LinkToken | null {
  const dot = token.lastIndexOf(".");
  const emailId = token.slice(0, dot);
  if (!UUID_RE.test(emailId)) return null;
  const given = Buffer.from(token.slice(dot + 1));
  const expected = Buffer.from(createHmac("sha256", secret).update(`${kind}:${emailId}`).digest("base64url"));
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  return { kind, emailId, projectId: null, index: 0 };
}

export class LinkSigner {
  /** PUBLIC_URL normalised once, with a trailing slash, so links keep a path prefix (`https://x.com/mail/u/…`). */
  private readonly base: string;

  constructor(
    publicUrl: string,
    private readonly secret: string,
  ) {
    this.base = new URL(publicUrl.endsWith("/") ? publicUrl : `${publicUrl}/`).toString();
  }

  /**
   * The base is a normalised URL and a token is base64url, so joining them is the URL itself; a
   * campaign builds several links per email and parsing each with `new URL` showed in its profile.
   */
  url(kind: LinkKind, emailId: string, projectId: string, index = 0): string {
    const path = kind === "o" || kind === "c" ? `t/${kind}` : kind === "k" ? "c" : kind;
    return `${this.base}${path}/${signToken(this.secret, { kind, emailId, projectId, index })}`;
  }

  /**
   * `vars` with the three link variables of every template (decisions.md §4) added as getters, each
   * signed the first time the template reads it. Most templates use one of them or none, and a
   * campaign signed all three for every email. Liquid reads a variable as a property, so it cannot
   * tell the difference.
   */
  withSubscriptionUrls(vars: Record<string, unknown>, emailId: string, projectId: string): Record<string, unknown> {
    const out = { ...vars };
    for (const [name, kind] of [["unsubscribeUrl", "u"], ["subscribeUrl", "s"], ["manageUrl", "m"]] as const) {
      let value: string | undefined;
      Object.defineProperty(out, name, { enumerable: true, configurable: true, get: () => (value ??= this.url(kind, emailId, projectId)) });
    }
    return out;
  }

  /** Mailroom's own links (subscription pages, tracking): never rewritten into click links. */
  isOwn(url: string): boolean {
    return ["u/", "s/", "m/", "t/", "c/"].some((p) => url.startsWith(this.base + p));
  }

  verify(kind: LinkKind, token: string): LinkToken | null {
    return verifyToken(this.secret, kind, token);
  }
}
