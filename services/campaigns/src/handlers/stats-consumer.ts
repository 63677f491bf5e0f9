import type { JsMsg } from "@nats-io/jetstream";
import type { WireNames } from "@mailroom/contracts";
import type { BatchConsumerSpec } from "@mailroom/kit";
import { statHit, type StatHit } from "../domain/stats.js";
import type { CampaignStats } from "../usecases/stats.js";

/** Families whose events can move campaign stats; the rest are skipped before parsing. */
const FAMILIES = new Set(["email", "contact"]);

/**
 * `campaigns-stats`: counts email events (and unsubscribes through a campaign email) into the
 * campaign's stats and marks the campaign SENT when its last recipient's job has ended.
 * nats-server 2.9 allows one filter subject, so it reads the whole EVENTS stream and skips custom
 * and segment events by their subject token.
 */
export function statsConsumer(names: WireNames, stats: CampaignStats): BatchConsumerSpec<StatHit> {
  return {
    stream: names.streams.events.name,
    durable: names.consumers.campaignsStats,
    filterSubject: `${names.prefix}.events.>`,
    batch: 500,
    waitMs: 1000,
    // A dropped stat could leave a campaign in SENDING, so a failing one is retried for about two
    // hours (a database outage) before it goes to the dead-letter subject, from where it can be replayed.
    maxDeliver: 30,
    retryDelayMs: (attempt) => Math.min(300_000, 1000 * 2 ** (attempt - 1)),
    decode: hitOf,
    handle: (hits) => stats.apply(hits),
  };
}

/** Anything that is not a well-formed campaign email event is skipped: it can never count. */
function hitOf(msg: JsMsg): StatHit | null {
  // `<prefix>.events.<family>.<projectId>`: the prefix has no dots.
  if (!FAMILIES.has(msg.subject.split(".")[2] ?? "")) return null;
  try {
    const event = msg.json<{ projectId: string; contactId?: string | null; name: string; data: Record<string, unknown> }>();
    if (typeof event?.name !== "string" || typeof event.data !== "object" || event.data === null) return null;
    return statHit(event);
  } catch {
    return null;
  }
}
