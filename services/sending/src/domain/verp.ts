import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * Signed VERP envelope senders (decisions.md §12): `bounces+<emailId>.<tag>@<returnPathDomain>`.
 * The email id alone is no secret (it is in every Message-ID and link token), so a bounce or a
 * complaint counts only when its address carries the tag: the first 8 bytes of HMAC-SHA256 over the
 * email id with MAILROOM_SECRET, as 16 lower-case hex characters. Hex survives MTAs that change the
 * case of local parts, and the whole local part stays under RFC 5321's 64 octets (61 here).
 *
 * Compatibility: every message in flight carries this form in its envelope, so its DSNs come back
 * to it for days. Never change the layout or the MAC input; add a new prefix instead.
 */
const MAC_DOMAIN = "mailroom-verp\n";
const TAG_CHARS = 16;
const UUID = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}";
const VERP = new RegExp(`^bounces\\+(${UUID})(?:\\.([^@]*))?@(.+)$`, "i");

/** What an address says about an email: a genuine tag, no tag, or a tag that does not verify. */
export type VerpReading =
  | { kind: "signed"; emailId: string }
  | { kind: "unsigned"; emailId: string }
  | { kind: "forged"; emailId: string }
  /** Not a VERP address of our return-path domain at all. */
  | { kind: "none" };

export class VerpSigner {
  constructor(
    private readonly secret: string,
    readonly domain: string,
  ) {}

  tag(emailId: string): string {
    return createHmac("sha256", this.secret).update(MAC_DOMAIN).update(emailId.toLowerCase()).digest("hex").slice(0, TAG_CHARS);
  }

  /** The envelope sender of one email. */
  address(emailId: string): string {
    return `bounces+${emailId}.${this.tag(emailId)}@${this.domain}`;
  }

  read(address: string | null): VerpReading {
    const m = address ? VERP.exec(address.trim().replace(/^<|>$/g, "")) : null;
    if (!m || m[3]!.toLowerCase() !== this.domain.toLowerCase()) return { kind: "none" };
    const emailId = m[1]!.toLowerCase();
    if (m[2] === undefined) return { kind: "unsigned", emailId };
    const given = Buffer.from(m[2].toLowerCase());
    const expected = Buffer.from(this.tag(emailId));
    // constant time: the comparison must not tell a forger how many characters were right
    const ok = given.length === expected.length && timingSafeEqual(given, expected);
    return { kind: ok ? "signed" : "forged", emailId };
  }
}
