import type { WireNames } from "@mailroom/contracts";
import { eventMessage, type OutboxRelay } from "@mailroom/kit";
import { feedbackRepo, type Applied, type Engagement } from "../db/feedback-repo.js";
import { suppressionsRepo } from "../db/suppressions-repo.js";
import { emailEvent } from "../domain/events.js";

/** Feedback about an email whose relay transaction is not recorded yet: the sender should retry. */
export class NotYetSent extends Error {}
class Missing extends Error {}

export interface FeedbackTarget {
  emailId: string;
  /** Known for link tokens (the project is signed into them); null for bounces and SES. */
  projectId: string | null;
}

export interface FeedbackOptions {
  /** Id of the report that carried it (DSN Message-ID, SNS MessageId): applied once. */
  receiptKey?: string;
  /** The clicked URL when it comes from outside (SES), not from a stored link index. */
  link?: string;
}

export type FeedbackResult = { kind: "applied"; applied: Applied } | { kind: "duplicate" } | { kind: "unknown" };

function eventOf(e: Engagement, r: Applied, link: string | undefined): [string, Record<string, unknown>] | null {
  const at = e.at.toISOString();
  switch (e.kind) {
    case "delivered":
      return r.first ? ["email.delivery", { deliveredAt: at }] : null;
    case "bounced": {
      const diagnostic = e.diagnostic ? { diagnostic: e.diagnostic } : {};
      if (!e.permanent) return ["email.bounce", { bounceType: "Transient", transientBounce: true, ...diagnostic }];
      return r.first ? ["email.bounce", { bounceType: "Permanent", bouncedAt: at, transientBounce: false, ...diagnostic }] : null;
    }
    case "complained":
      return r.first ? ["email.complaint", { complainedAt: at }] : null;
    case "opened":
      // the event is about the first open (several may be recorded together): the count then was 1
      return r.first ? ["email.open", { openedAt: r.openedAt ?? at, opens: 1, isFirstOpen: true }] : null;
    case "clicked":
      return r.first ? ["email.click", { link: r.link ?? link ?? "", clickedAt: r.clickedAt ?? at, clicks: 1, isFirstClick: true }] : null;
  }
}

/** Feedback about sent emails: delivery reports, bounces and complaints (inbound mail, SES). */
export class Feedback {
  constructor(
    private readonly outbox: OutboxRelay,
    private readonly names: WireNames,
  ) {}

  /**
   * Records one piece of feedback on its email record and, the first time of its kind, emits its
   * email event through the outbox in the same transaction (later opens and clicks are only counted).
   * A permanent bounce or a complaint also suppresses the address; the contacts service unsubscribes
   * the contact from the event itself. An unknown email (or one of another project) changes nothing.
   */
  async record(target: FeedbackTarget, e: Engagement, opts: FeedbackOptions = {}): Promise<FeedbackResult> {
    let result: FeedbackResult;
    try {
      result = (await this.outbox.transaction(async (tx, emit) => {
        if (opts.receiptKey && !(await feedbackRepo.receipt(tx, opts.receiptKey))) return { kind: "duplicate" } as const;
        const r = await feedbackRepo.apply(tx, target.emailId, target.projectId, e);
        if ("missing" in r) throw new Missing();
        if ("queued" in r) throw new NotYetSent(`email ${target.emailId} is not recorded as sent yet`);
        const event = eventOf(e, r, opts.link);
        if (event) await emit([eventMessage(this.names, emailEvent(r.email, event[0], event[1], e.at))]);
        const suppress = e.kind === "complained" ? "complaint" : e.kind === "bounced" && e.permanent ? "bounce" : null;
        if (suppress) await suppressionsRepo.add(tx, r.email.projectId, r.email.to, suppress, r.email.id, e.at);
        return { kind: "applied", applied: r } as const;
      })) as FeedbackResult;
    } catch (err) {
      if (err instanceof Missing) return { kind: "unknown" };
      throw err;
    }
    return result;
  }
}
