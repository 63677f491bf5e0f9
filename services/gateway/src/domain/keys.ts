import * as crypto from "node:crypto";
import { createHash, randomBytes } from "node:crypto";

const hash = (crypto as { hash?: (algorithm: string, data: string, encoding: "hex") => string }).hash;

export type KeyKind = "secret" | "public";

const KEY_RE = /^(sk|pk)_[A-Za-z0-9_-]{43}$/;

/** A new key: `sk_` or `pk_` + 32 random bytes (base64url). Shown once, stored only as its hash. */
export function generateKey(kind: KeyKind): string {
  return `${kind === "secret" ? "sk" : "pk"}_${randomBytes(32).toString("base64url")}`;
}

export function hashKey(key: string): string {
  // the one-shot digest (Node ≥ 20.12) skips the Hash object: this runs on every request
  return hash ? hash("sha256", key, "hex") : createHash("sha256").update(key).digest("hex");
}

/** The displayable start of a key, enough to tell keys apart, useless to an attacker. */
export function keyPrefix(key: string): string {
  return `${key.slice(0, 10)}…`;
}

/** Extracts the key from `Authorization: Bearer <key>`; anything malformed is null (→ 401). */
export function parseBearer(header: string | undefined): string | null {
  if (!header) return null;
  const m = /^Bearer ([^\s]+)$/.exec(header.trim());
  if (!m?.[1] || !KEY_RE.test(m[1])) return null;
  return m[1];
}

export function kindOf(key: string): KeyKind {
  return key.startsWith("sk_") ? "secret" : "public";
}
