import { randomBytes } from "node:crypto";
import { expect } from "vitest";
import { simpleParser, type ParsedMail } from "mailparser";
import { addZones, sharedPlatform, sinkMessages, waitFor, type ApiClient } from "@mailroom/testkit/shared";

/** A domain name no other test uses (the DNS zones file is shared by the whole run). */
export const uniqueDomain = (tag = "d") => `${tag}-${randomBytes(5).toString("hex")}.mailroom.test`;

/**
 * Adds a sending domain, publishes its DKIM record on the test DNS server (and an SPF one, so the
 * `found` flags can be checked), verifies it, and returns it.
 */
export async function verifiedDomain(api: ApiClient, zonesFile = sharedPlatform().zonesFile, domain = uniqueDomain()) {
  const created = await api.post("/domains", { domain });
  expect(created.status).toBe(201);
  const dkim = created.body.records.find((r: { purpose: string }) => r.purpose === "dkim");
  addZones(zonesFile, { [dkim.name]: { TXT: [dkim.value] } });
  const verified = await api.post(`/domains/${created.body.id}/verify`);
  expect(verified.status).toBe(200);
  expect(verified.body.status).toBe("VERIFIED");
  return { ...verified.body, dkim } as { id: string; domain: string; dkim: { name: string; value: string } };
}

/** Messages of the sink whose To header holds `to`, once there are `count` of them. */
export async function messagesTo(to: string, count = 1, mailboxUrl = sharedPlatform().mailboxUrl, timeoutMs = 15_000) {
  return waitFor(
    async () => {
      const all = await sinkMessages(mailboxUrl, [to]);
      const mine = all.filter((m) => (m.to as string[]).includes(to) || (m.envelope.rcptTo as string[]).includes(to));
      return mine.length >= count ? mine : null;
    },
    { timeoutMs, intervalMs: 100, what: `${count} message(s) to ${to}` },
  );
}

export async function rawMessage(id: string, mailboxUrl = sharedPlatform().mailboxUrl): Promise<Buffer> {
  const res = await fetch(new URL(`/messages/${id}/raw`, mailboxUrl));
  return Buffer.from(await res.arrayBuffer());
}

/** `cid:` references stay as they are (mailparser would inline them as data: URLs). */
export async function parsedMessage(id: string, mailboxUrl?: string): Promise<ParsedMail> {
  return simpleParser(await rawMessage(id, mailboxUrl), { skipImageLinks: true });
}

/** A recipient address no other test uses. */
export const uniqueAddress = (tag = "r") => `${tag}-${randomBytes(5).toString("hex")}@example.com`;

/** The `h=` tag of a stored message's DKIM-Signature: the header fields the signature covers. */
export function signedHeaders(msg: Record<string, any>): string[] {
  const sig = (msg.headers as Array<{ name: string; value: string }>).find((h) => h.name === "dkim-signature")!.value;
  const h = /(?:^|;)\s*h=([^;]+)/.exec(sig)![1]!;
  return h.replace(/\s+/g, "").toLowerCase().split(":");
}
