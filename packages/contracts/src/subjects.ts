/**
 * Every NATS wire name of Mailroom: subjects, streams, durable consumers, buckets.
 *
 * WARNING: these names are persisted by the NATS server (streams, durable consumers, KV and object
 * buckets) and by in-flight messages. Never rename one without a migration that moves the old
 * stream/consumer, or running installations will silently stop receiving messages.
 *
 * Every name is derived from NATS_PREFIX so that two installations (or two test runs) share one
 * NATS server without cross-talk.
 */
import type { ServiceName } from "./services.js";

/** Event families. A family is a subject token; the event's own name travels in the body. */
export const EVENT_FAMILIES = ["email", "contact", "segment", "custom"] as const;
export type EventFamily = (typeof EVENT_FAMILIES)[number];

const PREFIX_RE = /^[A-Za-z0-9_-]{1,32}$/;

export function assertPrefix(prefix: string): string {
  if (!PREFIX_RE.test(prefix)) {
    throw new Error(`NATS_PREFIX must match ${PREFIX_RE} (it names streams and subjects), got "${prefix}"`);
  }
  return prefix;
}

/** Maps a system or custom event name to its family. Custom names are arbitrary strings, so they
 * never become subject tokens (a `.` or `*` in a name would change the subject's meaning). */
export function eventFamily(name: string): EventFamily {
  if (name.startsWith("email.")) return "email";
  if (name === "contact.subscribed" || name === "contact.unsubscribed") return "contact";
  if (name === "contact.topic.subscribed" || name === "contact.topic.unsubscribed") return "contact";
  if (/^segment\..+\.(entry|exit)$/.test(name)) return "segment";
  return "custom";
}

export function wireNames(prefixInput: string) {
  const p = assertPrefix(prefixInput);
  const up = p.toUpperCase().replace(/-/g, "_");
  return {
    prefix: p,
    /** Request-reply subject of an operation such as "contacts.list". */
    rpc: (operation: string) => `${p}.rpc.${operation}`,
    /** Several requests of an operation in one message (RpcBatchRequest); replies are RpcBatchReply. */
    rpcBatch: (operation: string) => `${p}.rpcb.${operation}`,
    /** Queue group shared by all replicas of a service, so each request goes to one of them. */
    queueGroup: (service: ServiceName) => `${p}-${service}`,
    /** Broadcast (not queue) subjects: every replica hears them. */
    broadcast: {
      keyRevoked: `${p}.bcast.gateway.key-revoked`,
    },
    streams: {
      /** System and custom events: `<p>.events.<family>.<projectId>`. Limits retention. */
      events: { name: `${up}_EVENTS`, subjects: [`${p}.events.>`] },
      /**
       * Bulk delivery jobs (campaign recipients) for the sending service: work-queue retention (one
       * consumer takes each). Releases before the transactional lane queued every job here, so its
       * consumer also drains whatever such a release left behind: no migration on upgrade.
       */
      sendJobs: { name: `${up}_SEND_JOBS`, subjects: [`${p}.jobs.send.>`] },
      /**
       * Delivery jobs someone waits for (/v1/send, workflow SEND_EMAIL, campaign test copies): a
       * stream of their own, so they never queue behind a campaign. nats-server 2.9 has no priority
       * groups, and a work-queue stream takes no second consumer beside SEND_JOBS' unfiltered one.
       */
      transactionalJobs: { name: `${up}_TRANSACTIONAL_JOBS`, subjects: [`${p}.jobs.transactional.>`] },
      /** Contact state changes (data, subscription, deletion) for the segment tracker. */
      contactChanges: { name: `${up}_CONTACT_CHANGES`, subjects: [`${p}.changes.contacts.>`] },
      /**
       * Messages a durable consumer gave up on (decisions.md §12), one DeadLetter each:
       * `<p>.deadletter.<consumer>`. Limits retention, bounded in size and age; kept for inspection
       * and replay, consumed by nobody.
       */
      deadLetters: { name: `${up}_DEAD_LETTERS`, subjects: [`${p}.deadletter.>`] },
    },
    subjects: {
      event: (family: EventFamily, projectId: string) => `${p}.events.${family}.${projectId}`,
      eventsOfFamily: (family: EventFamily) => `${p}.events.${family}.>`,
      /** A bulk (campaign) delivery job: SEND_JOBS. */
      sendJob: (projectId: string) => `${p}.jobs.send.${projectId}`,
      /** A transactional delivery job: TRANSACTIONAL_JOBS. */
      transactionalJob: (projectId: string) => `${p}.jobs.transactional.${projectId}`,
      contactChange: (projectId: string) => `${p}.changes.contacts.${projectId}`,
      /** Where the durable consumer `consumer` puts the messages it gave up on. */
      deadLetter: (consumer: string) => `${p}.deadletter.${consumer}`,
    },
    /** Durable consumer names. */
    consumers: {
      /** Delivery of SEND_JOBS (the bulk lane, and every job queued before the transactional lane). */
      sendingDelivery: "sending-delivery",
      /** Delivery of TRANSACTIONAL_JOBS, with handler slots of its own. */
      sendingTransactional: "sending-transactional",
      /** contact.subscribed events that lift the sending service's bounce/complaint suppressions. */
      sendingSuppression: "sending-suppression",
      /** Email events (and unsubscribes naming an email) into the timeline and hourly counters of /stats. */
      sendingEmailEvents: "sending-email-events",
      contactsEmailActivity: "contacts-email-activity",
      segmentsEvents: "segments-events",
      segmentsChanges: "segments-changes",
      campaignsStats: "campaigns-stats",
      workflowsTriggers: "workflows-triggers",
      /** System events into outbound webhook deliveries (decisions.md §16). */
      workflowsWebhooks: "workflows-webhooks",
    },
    buckets: {
      /** Object store for request bodies larger than the server's max_payload (claim check). */
      blobs: `${p}-blobs`,
      /** KV bucket for leader election / once-per-tick locks. */
      locks: `${p}-locks`,
    },
  };
}
export type WireNames = ReturnType<typeof wireNames>;
