import { randomBytes } from "node:crypto";
import { expect } from "vitest";
import { sinkMessages, verifyDomain, waitFor, type ApiClient } from "@mailroom/testkit";

/** A recipient address no other test uses (the sink is shared by the whole run). */
export const uniqueAddress = (tag = "r") => `${tag}-${randomBytes(5).toString("hex")}@example.com`;
export const uniqueDomain = () => `c-${randomBytes(5).toString("hex")}.mailroom.test`;

/** The Error object of decisions §2, with the status it must carry. */
export function expectError(res: { status: number; body: any }, status: number, error: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body).toMatchObject({ code: status, error, message: expect.any(String), time: expect.any(Number) });
}

/** A sender on a domain verified in the project (the operator override: no DNS needed). */
export async function verifiedSender(projectId: string, env: Record<string, string>): Promise<string> {
  const domain = uniqueDomain();
  await verifyDomain(env, projectId, domain);
  return `news@${domain}`;
}

export function campaignBody(from: string, extra: Record<string, unknown> = {}) {
  return {
    name: "Spring news",
    subject: "Hello {{ firstName ?? \"friend\" }}",
    body: "<p>Hi {{ firstName ?? \"friend\" }}, plan {{ plan }}.</p>",
    from,
    audienceType: "ALL",
    ...extra,
  };
}

export async function createContacts(api: ApiClient, contacts: Array<{ email: string; subscribed: boolean; data?: Record<string, unknown> }>) {
  for (const c of contacts) {
    const res = await api.post("/contacts", c);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  }
}

export async function waitForStatus(api: ApiClient, id: string, status: string, timeoutMs = 20_000) {
  return waitFor(
    async () => {
      const res = await api.get(`/campaigns/${id}`);
      return res.body.status === status ? res.body : null;
    },
    { timeoutMs, intervalMs: 100, what: `campaign ${id} to be ${status}` },
  );
}

export interface SinkMessage {
  id: string;
  /** When the sink took it (ISO 8601, the test machine's clock). */
  receivedAt: string;
  to: string[];
  subject: string;
  messageId: string | null;
  headers: Array<{ name: string; value: string }>;
  html: string | null;
  envelope: { rcptTo: string[] };
}

/** Every message of the sink (JSON API of the development mailbox) addressed to one of `addresses`. */
export async function sinkMessagesTo(mailboxUrl: string, addresses: Iterable<string>): Promise<SinkMessage[]> {
  const wanted = new Set([...addresses].map((a) => a.toLowerCase()));
  const all = (await sinkMessages(mailboxUrl, wanted)) as SinkMessage[];
  return all.filter((m) => m.envelope.rcptTo.some((r) => wanted.has(r.toLowerCase())));
}

export const header = (m: SinkMessage, name: string) => m.headers.find((h) => h.name === name.toLowerCase())?.value;

/** The open pixel and tracked links of a message's HTML, as paths for the gateway. */
export const pixelOf = (m: SinkMessage) => new URL(/src="([^"]+\/t\/o\/[^"]+)"/.exec(m.html ?? "")![1]!).pathname;
export const trackedLinksOf = (m: SinkMessage) => [...(m.html ?? "").matchAll(/href="([^"]+\/t\/c\/[^"]+)"/g)].map((x) => new URL(x[1]!).pathname);

/** How many messages went to each address, by the envelope. */
export function countPerRecipient(msgs: SinkMessage[]): Map<string, number> {
  const n = new Map<string, number>();
  for (const m of msgs) for (const to of m.envelope.rcptTo) n.set(to.toLowerCase(), (n.get(to.toLowerCase()) ?? 0) + 1);
  return n;
}
