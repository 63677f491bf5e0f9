import { connect, type NatsConnection } from "@nats-io/transport-node";
import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager, type JsMsg } from "@nats-io/jetstream";
import { eventsOf } from "@mailroom/kit";
import { wireNames, type ContactChange, type EventEnvelope, type WireNames } from "@mailroom/contracts";
import { sharedPlatform, waitFor } from "@mailroom/testkit/shared";
import { randomUUID } from "node:crypto";
import postgres from "postgres";
import { expect } from "vitest";

export const uniqueEmail = (tag = "c") => `${tag}-${randomUUID().slice(0, 8)}@example.com`;

/** The Error object of decisions §2, with the status it must carry. */
export function expectError(res: { status: number; body: any }, status: number, error: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body).toMatchObject({ code: status, error, message: expect.any(String), time: expect.any(Number) });
}

/** A NATS connection to the shared platform, for reading its streams and calling its RPCs. */
export class Bus {
  private constructor(
    readonly nc: NatsConnection,
    readonly names: WireNames,
  ) {}

  static async open(): Promise<Bus> {
    const p = sharedPlatform();
    return new Bus(await connect({ servers: p.env.NATS_URL }), wireNames(p.prefix));
  }

  close(): Promise<void> {
    return this.nc.close();
  }

  /** Every message now on `stream` under `subject`, oldest first (an ephemeral consumer from the start). */
  async read<T>(stream: string, subject: string, decode: (m: JsMsg) => T[] = (m) => [m.json<T>()]): Promise<T[]> {
    const jsm = await jetstreamManager(this.nc);
    const info = await jsm.consumers.add(stream, {
      ack_policy: AckPolicy.None,
      deliver_policy: DeliverPolicy.All,
      filter_subject: subject,
      inactive_threshold: 30 * 1e9,
    });
    const consumer = await jetstream(this.nc).consumers.get(stream, info.name);
    const out: T[] = [];
    let pending = info.num_pending;
    while (pending > 0) {
      const batch = await consumer.fetch({ max_messages: Math.min(pending, 500), expires: 2000 });
      let got = 0;
      for await (const m of batch) {
        out.push(...decode(m));
        got++;
      }
      if (got === 0) break;
      pending -= got;
    }
    await jsm.consumers.delete(stream, info.name).catch(() => undefined);
    return out;
  }

  events(projectId: string, family: "contact" | "custom" | "email" | "segment"): Promise<EventEnvelope[]> {
    return this.read(this.names.streams.events.name, this.names.subjects.event(family, projectId), eventsOf);
  }

  changes(projectId: string): Promise<ContactChange[]> {
    return this.read(this.names.streams.contactChanges.name, this.names.subjects.contactChange(projectId));
  }

  /** Waits until `read` yields at least `n` items matching `pred`, and returns those. */
  async waitFor<T>(read: () => Promise<T[]>, pred: (t: T) => boolean, n = 1): Promise<T[]> {
    return waitFor(async () => {
      const hits = (await read()).filter(pred);
      return hits.length >= n ? hits : null;
    }, { what: `${n} matching messages`, timeoutMs: 10_000, intervalMs: 100 });
  }

  /** A raw request on `<prefix>.rpc.<operation>`, answering the RpcReply envelope. */
  async rpc(operation: string, payload: unknown): Promise<{ ok: boolean; result?: any; error?: any }> {
    const msg = await this.nc.request(this.names.rpc(operation), JSON.stringify(payload), { timeout: 5000 });
    return msg.json();
  }

  /** Publishes an email event the way the sending service's outbox does. */
  async publishEmailEvent(envelope: EventEnvelope): Promise<void> {
    await jetstream(this.nc).publish(this.names.subjects.event("email", envelope.projectId), JSON.stringify(envelope), { msgID: envelope.id });
  }
}

/** An email event as the sending service emits it, for the contacts service's email-activity consumer. */
export function emailEvent(
  projectId: string,
  contactId: string,
  name: string,
  data: Record<string, unknown> = {},
  occurredAt = new Date(),
): EventEnvelope {
  return {
    id: randomUUID(),
    projectId,
    name,
    family: "email",
    contactId,
    email: null,
    data: { emailId: randomUUID(), subject: "Hi", from: "a@b.co", fromName: "", messageId: "m", templateId: null, campaignId: null, sourceType: "TRANSACTIONAL", ...data },
    occurredAt: occurredAt.toISOString(),
  };
}

/** The contacts service's own database on the shared platform, for asserting on its tables. */
export function contactsDb(): postgres.Sql {
  const { env, prefix } = sharedPlatform();
  const url = new URL(env.DATABASE_URL!);
  url.pathname = `/${prefix}_contacts`;
  return postgres(url.toString(), { max: 1, onnotice: () => undefined });
}
