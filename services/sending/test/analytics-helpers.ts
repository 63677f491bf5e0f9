import { randomUUID } from "node:crypto";
import { simpleParser } from "mailparser";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { jetstream } from "@nats-io/jetstream";
import { wireNames, type EventEnvelope } from "@mailroom/contracts";
import { Drain, type ApiClient } from "@mailroom/testkit";
import { sendAndWait, startFeedbackPlatform } from "./feedback-helpers.js";
import { verifiedDomain } from "./helpers.js";

export type Fixture = Awaited<ReturnType<typeof startFeedbackPlatform>>;
export type Counts = Record<"sent" | "delivered" | "opened" | "clicked" | "bounced" | "complained" | "unsubscribed" | "failed", number>;
export const ZERO: Counts = { sent: 0, delivered: 0, opened: 0, clicked: 0, bounced: 0, complained: 0, unsubscribed: 0, failed: 0 };

/** The sum of a /stats series, counter by counter. */
export function totals(series: Array<Counts & { at: string }>): Counts {
  const sum = { ...ZERO };
  for (const point of series) for (const k of Object.keys(sum) as Array<keyof Counts>) sum[k] += point[k];
  return sum;
}

/**
 * The feedback platform (gateway, contacts, sending; DSN-driven delivery so the test decides when an
 * email is delivered or bounced) with what the analytics tests need around it.
 */
export async function analyticsFixture() {
  const f = await startFeedbackPlatform();
  const drain = await Drain.open(f.platform.env);
  const nc: NatsConnection = await connect({ servers: process.env.NATS_URL ?? "nats://127.0.0.1:4222" });
  const names = wireNames(f.platform.prefix);
  return {
    f,
    names,
    /** Every event published so far is in the timelines and counters. */
    counted: () => drain.through(names.consumers.sendingEmailEvents),
    /** A project with a verified domain. */
    async project(name: string) {
      const p = await f.project(name);
      const domain = (await verifiedDomain(p.api, f.zonesFile)).domain;
      return { ...p, domain };
    },
    /** A sent email, its envelope sender (where its reports go) and its HTML as the recipient got it. */
    async send(api: ApiClient, from: string, to: string, body = "<p>Hello</p>") {
      const r = await sendAndWait(api, { from, to, body });
      const relayed = await f.relay.to(to);
      const html = (await simpleParser(relayed.raw)).html || "";
      return { ...r, to, verp: relayed.mailFrom, html };
    },
    /** Publishes an envelope on EVENTS as an emitter would, under its own (or a given) Nats-Msg-Id. */
    async publish(envelope: EventEnvelope | string, subjectProject: string, msgID: string = randomUUID()) {
      const payload = typeof envelope === "string" ? envelope : JSON.stringify(envelope);
      await jetstream(nc).publish(names.subjects.event("email", subjectProject), payload, { msgID });
    },
    rpc: async (op: string, body: unknown) =>
      JSON.parse(new TextDecoder().decode((await nc.request(names.rpc(op), JSON.stringify(body), { timeout: 5000 })).data)),
    async close() {
      await drain.close();
      await nc.close();
      await f.destroy();
    },
  };
}

/** An email event envelope as the sending service emits it (`data` adds to or overrides the base fields). */
export function envelope(o: { projectId: string; emailId: string; name: string; at: string; campaignId?: string | null; data?: Record<string, unknown> }): EventEnvelope {
  return {
    id: randomUUID(),
    projectId: o.projectId,
    name: o.name,
    family: "email",
    contactId: null,
    email: "someone@example.com",
    data: {
      subject: "S", from: "news@example.com", fromName: "", messageId: `<${o.emailId}@x>`, emailId: o.emailId,
      templateId: null, campaignId: o.campaignId ?? null, sourceType: o.campaignId ? "CAMPAIGN" : "TRANSACTIONAL", ...o.data,
    },
    occurredAt: o.at,
  };
}
