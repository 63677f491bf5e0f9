import { randomBytes } from "node:crypto";
import { hash, verify, type Algorithm } from "@node-rs/argon2";

/**
 * argon2id with OWASP's first recommended setting (19 MiB, 2 passes, 1 lane). @node-rs/argon2 runs
 * each hash on libuv's thread pool, so a sign-in never holds the event loop for its ~20 ms.
 */
const OPTIONS = { algorithm: 2 as Algorithm, memoryCost: 19_456, timeCost: 2, parallelism: 1 };

export function hashPassword(password: string): Promise<string> {
  return hash(password, OPTIONS);
}

let dummy: Promise<string> | undefined;

/**
 * Whether `password` matches `stored`. With no stored hash (no such user, or one who signs in only
 * through OpenID Connect) a dummy hash is checked all the same, so the answer takes as long and an
 * attacker cannot tell from the time which addresses have accounts.
 */
export async function verifyPassword(stored: string | null, password: string): Promise<boolean> {
  dummy ??= hashPassword(randomBytes(16).toString("hex"));
  const ok = await verify(stored ?? (await dummy), password).catch(() => false);
  return stored !== null && ok;
}

/** 24 characters of base64url: 144 random bits, for `mailroom users create` without --password. */
export function generatePassword(): string {
  return randomBytes(18).toString("base64url");
}
