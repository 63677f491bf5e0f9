import type { EventEnvelope, WireNames } from "@mailroom/contracts";
import { BoundedMap, eventMessage, type Logger, type OutboxRelay, type Sql } from "@mailroom/kit";
import { feedbackRepo } from "../db/feedback-repo.js";
import { linkClicksRepo, type LinkClicksDelta } from "../db/link-clicks-repo.js";
import { emailEvent } from "../domain/events.js";

interface Pending {
  projectId: string;
  opens: number;
  firstOpenAt: Date | null;
  clicks: number;
  firstClickAt: Date | null;
  firstLinkIndex: number;
  /** Clicks per link index, for the campaign's clicks per link. */
  links: Map<number, number>;
}

/** Emails whose links are remembered; links never change once an email is queued. */
const LINK_CACHE_SIZE = 20_000;
/** A flush starts when this many emails have pending opens or clicks, or after FLUSH_MS. */
const FLUSH_AT = 500;
const FLUSH_MS = 50;

/**
 * Opens and clicks on the hot path of a redirect. The token is checked (HMAC) and the link looked up
 * (cached: stored links are immutable), the redirect answers at once, and the counts are written
 * behind in batches every 50 ms, one statement per batch — so a burst of clicks on one campaign
 * neither waits for nor fights over its row locks. The first open/click event is emitted by the
 * flush, in the transaction that records it. A SIGTERM flushes what is pending; a crash loses at
 * most the last 50 ms of counts (README: Tracking).
 */
export class EngagementRecorder {
  private readonly links = new BoundedMap<string, string[]>(LINK_CACHE_SIZE);
  /** Lookups under way: the clicks that miss the cache together share one query (a burst on a fresh email). */
  private readonly lookups = new Map<string, Promise<string[] | null>>();
  private pending = new Map<string, Pending>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly sql: Sql,
    private readonly outbox: OutboxRelay,
    private readonly names: WireNames,
    private readonly log: Logger,
  ) {}

  /** The stored links of an email of this project, or null when there is no such email. */
  async linksOf(emailId: string, projectId: string): Promise<string[] | null> {
    const key = `${projectId}:${emailId}`;
    const cached = this.links.get(key);
    if (cached) return cached;
    let lookup = this.lookups.get(key);
    if (!lookup) {
      lookup = feedbackRepo.linksOf(this.sql, emailId, projectId).then((links) => {
        if (links) this.links.set(key, links);
        return links;
      });
      this.lookups.set(key, lookup);
      lookup.finally(() => this.lookups.delete(key)).catch(() => undefined);
    }
    return lookup;
  }

  open(emailId: string, projectId: string, at = new Date()): void {
    const p = this.entry(emailId, projectId);
    p.opens++;
    p.firstOpenAt ??= at;
    this.schedule();
  }

  click(emailId: string, projectId: string, linkIndex: number, at = new Date()): void {
    const p = this.entry(emailId, projectId);
    if (p.clicks++ === 0) {
      p.firstClickAt = at;
      p.firstLinkIndex = linkIndex;
    }
    p.links.set(linkIndex, (p.links.get(linkIndex) ?? 0) + 1);
    this.schedule();
  }

  /** Writes everything pending (waits for a flush already running first). */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.flushing = this.flushing.then(() => this.write());
    return this.flushing;
  }

  private entry(emailId: string, projectId: string): Pending {
    let p = this.pending.get(emailId);
    if (!p) {
      p = { projectId, opens: 0, firstOpenAt: null, clicks: 0, firstClickAt: null, firstLinkIndex: 0, links: new Map() };
      this.pending.set(emailId, p);
    }
    return p;
  }

  private schedule(): void {
    if (this.pending.size >= FLUSH_AT) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), FLUSH_MS);
  }

  /** One transaction for the whole batch: the counts, and the first-open/click events through the outbox. */
  private async write(): Promise<void> {
    const batch = [...this.pending].map(([emailId, p]) => ({ emailId, ...p }));
    this.pending = new Map();
    if (!batch.length) return;
    try {
      await this.outbox.transaction(async (tx, emit) => {
        const events: EventEnvelope[] = [];
        for (const r of await feedbackRepo.applyCounts(tx, batch)) {
          // each event is about the first open/click: the count then was 1
          if (r.firstOpen) events.push(emailEvent(r.email, "email.open", { openedAt: r.openedAt, opens: 1, isFirstOpen: true }, new Date(r.openedAt!)));
          if (r.firstClick) {
            events.push(emailEvent(r.email, "email.click", { link: r.link ?? "", clickedAt: r.clickedAt, clicks: 1, isFirstClick: true }, new Date(r.clickedAt!)));
          }
        }
        await linkClicksRepo.add(tx, linkDeltas(batch));
        await emit(events.map((e) => eventMessage(this.names, e)));
      });
    } catch (err) {
      // the counts stay pending for a later flush rather than being lost to a passing database error
      this.log.warn({ err: String(err), emails: batch.length }, "could not record opens/clicks; retrying");
      for (const p of batch) {
        const again = this.entry(p.emailId, p.projectId);
        again.opens += p.opens;
        again.firstOpenAt ??= p.firstOpenAt;
        if (p.clicks && !again.firstClickAt) {
          again.firstClickAt = p.firstClickAt;
          again.firstLinkIndex = p.firstLinkIndex;
        }
        again.clicks += p.clicks;
        for (const [index, n] of p.links) again.links.set(index, (again.links.get(index) ?? 0) + n);
      }
      this.timer ??= setTimeout(() => void this.flush(), 1000);
    }
  }
}

const linkDeltas = (batch: Array<Pending & { emailId: string }>): LinkClicksDelta[] =>
  batch.flatMap((p) => [...p.links].map(([linkIndex, clicks]) => ({ emailId: p.emailId, projectId: p.projectId, linkIndex, clicks })));
