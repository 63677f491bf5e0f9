import type { WireNames } from "@mailroom/contracts";
import type { JsMsg } from "@nats-io/jetstream";
import {
  Batcher,
  eventMessage,
  groupMessages,
  isId,
  type OutboxRelay,
  outboxRows,
  PoisonMessage,
  type Sql,
  writtenGroups,
  type GroupItem,
  type OutboxMessage,
} from "@mailroom/kit";
import { emailEvent } from "../domain/events.js";
import { emailsRepo, type NewEmail } from "../db/emails-repo.js";
import { suppressionsRepo, type Suppression } from "../db/suppressions-repo.js";
import { laneOf } from "../domain/lanes.js";

/**
 * The delivery job on SEND_JOBS or TRANSACTIONAL_JOBS (domain/lanes.ts): the emails of one queueing
 * write, of one project and lane, up to JOB_EMAILS; the records hold the rest. Compatibility:
 * releases before jobs of several emails queued `{emailId, projectId}`, which workers still read;
 * their workers cannot read `emailIds`, so every sending replica runs this release or a later one
 * before it queues (docs/architecture.md, "Upgrading").
 */
export interface SendJob {
  emailIds?: string[];
  /** A job of an earlier release: one email. */
  emailId?: string;
  projectId?: string;
}

/** Emails per delivery job: a campaign's enqueue call, whose records commit together. */
const JOB_EMAILS = 100;

/** The emails a job names, whichever release queued it; a job that names none is poison. */
export function jobEmailIds(msg: JsMsg): string[] {
  let job: SendJob;
  try {
    job = msg.json<SendJob>();
  } catch {
    throw new PoisonMessage("a delivery job that is not JSON");
  }
  const ids = Array.isArray(job?.emailIds) ? job.emailIds : typeof job?.emailId === "string" ? [job.emailId] : [];
  if (ids.length === 0 || !ids.every(isId)) throw new PoisonMessage("a delivery job that names no email");
  return ids;
}

/** A call with this many emails is a batch already (a campaign page): it runs alone. */
const JOINS_BELOW = 32;
/** Calls gathered into one statement: at most 64 × 31 records, a statement of bounded size. */
const MAX_CALLS = 64;

/**
 * Makes emails durable: every record with its job (or, suppressed, its terminal event), all or none.
 * Group commit: the small calls in flight together (the /v1/sends of one coalesced RPC message, say)
 * share one suppression lookup per project and one statement; a statement that fails runs again per
 * call, so one call's failure is its own.
 */
export class EmailQueue {
  private readonly joined: Batcher<NewEmail[], Set<string>>;

  constructor(
    private readonly sql: Sql,
    private readonly names: WireNames,
    private readonly outbox: OutboxRelay,
  ) {
    this.joined = new Batcher(
      async (calls: NewEmail[][]) => {
        const ids = await this.queueNow(calls.flat());
        return calls.map((emails) => new Set(emails.filter((e) => ids.has(e.id)).map((e) => e.id)));
      },
      { maxBatch: MAX_CALLS, maxInFlight: 2, startNextTurn: true, splitOnError: true },
    );
  }

  /** Returns the ids that were queued (the others' idempotency keys had a record already). */
  async queue(emails: NewEmail[]): Promise<Set<string>> {
    if (emails.length === 0) return new Set();
    return emails.length < JOINS_BELOW ? this.joined.add(emails) : this.queueNow(emails);
  }

  /**
   * One suppression lookup per project, then every record with its job in one statement: a job per
   * lane and project names up to JOB_EMAILS of the records (outbox-groups.ts), so a campaign's page
   * is a few messages on the bus, not one per recipient. A job leaves through the outbox with its own
   * msgID, so a second publish of it is dropped by JetStream.
   */
  private async queueNow(given: NewEmail[]): Promise<Set<string>> {
    const emails = await this.withSuppressions(given);
    const jobs: GroupItem[] = [];
    const events: OutboxMessage[] = [];
    const owners: string[] = [];
    for (const email of emails) {
      if (!email.failure) {
        jobs.push({ owner: email.id, subject: this.jobSubject(email), json: JSON.stringify(email.id) });
        continue;
      }
      // A suppressed email ends here: its terminal event goes out with the record.
      const at = new Date();
      events.push(eventMessage(this.names, emailEvent(email, "email.failed", { failedAt: at.toISOString(), reason: email.failure }, at)));
      owners.push(email.id);
    }
    const { json, stored } = outboxRows(events, owners);
    const grouped = groupMessages(jobs, { key: "emailIds", maxBytes: 64 * 1024, maxItems: JOB_EMAILS });
    const ids = await emailsRepo.insertQueuedMany(this.sql, emails, json, grouped.json);
    this.outbox.kickOwned(stored, owners, ids);
    this.outbox.kick(writtenGroups(grouped.groups, ids));
    return ids;
  }

  /** The lane's subject: a campaign recipient's job on SEND_JOBS, any other on TRANSACTIONAL_JOBS. */
  private jobSubject(email: NewEmail): string {
    const { subjects } = this.names;
    return laneOf(email) === "bulk" ? subjects.sendJob(email.projectId) : subjects.transactionalJob(email.projectId);
  }

  /**
   * A suppressed address gets a FAILED record with the reason instead of a delivery job (README:
   * Suppression), so the caller still sees an email id and the record says why nothing was sent.
   * Emails `screened` by their caller already carry the verdict; the others are looked up together.
   */
  private async withSuppressions(emails: NewEmail[]): Promise<NewEmail[]> {
    const groups = new Map<string, NewEmail[]>();
    for (const e of emails) {
      if (e.screened) continue;
      const key = `${e.projectId}:${e.marketing}`;
      const group = groups.get(key);
      if (group) group.push(e);
      else groups.set(key, [e]);
    }
    if (groups.size === 0) return emails;
    const asked = [...groups.values()];
    const found = await suppressionsRepo.blockingAll(this.sql, asked.map((g) => ({ projectId: g[0]!.projectId, emails: g.map((e) => e.to), marketing: g[0]!.marketing })));
    const failures = new Map<NewEmail, string>();
    asked.forEach((group, i) => {
      for (const e of group) {
        const block = found[i]!.get(e.to.toLowerCase());
        if (block) failures.set(e, suppressedBecause(block));
      }
    });
    return emails.map((email) => {
      const failure = failures.get(email);
      return failure ? { ...email, failure } : email;
    });
  }
}

/** The `failure` of an email to a suppressed address. */
export function suppressedBecause(block: Suppression): string {
  const what = block.reason === "bounce" ? "a permanent bounce" : "a complaint";
  return `suppressed: the address had ${what} on ${block.createdAt}`;
}
