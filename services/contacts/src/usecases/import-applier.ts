import { AppError, type ContactDataInput, type ImportRowError, type WireNames } from "@mailroom/contracts";
import { json, type Logger, outboxCopy, type Q, type Sql } from "@mailroom/kit";
import { compileFilter } from "@mailroom/filters";
import { batchMembersRepo } from "../db/batch-members-repo.js";
import { confirmationsRepo } from "../db/confirmations-repo.js";
import { contactsRepo, type ContactRow } from "../db/contacts-repo.js";
import { importsRepo } from "../db/imports-repo.js";
import { locks } from "../db/members-repo.js";
import { retryTransient } from "../db/retry.js";
import { segmentsRepo, toSegmentDef, type SegmentRow } from "../db/segments-repo.js";
import { SegmentGraph, timeSensitivity } from "../domain/segment-graph.js";
import { asksToSubscribe } from "../domain/subscription.js";
import type { TopicCatalog } from "../domain/topics.js";
import { confirmationKey } from "./confirmation-mailer.js";
import { Outgoing } from "./outgoing.js";
import { compileSensitivity } from "./segments-service.js";
import type { TopicsService } from "./topics-service.js";
import { contactChanges, freshContact } from "./write-contact.js";

export interface BatchResult {
  created: number;
  updated: number;
  failed: ImportRowError[];
  /** Contacts mailed a confirmation link instead of being subscribed (double opt-in). */
  awaitingConfirmation: number;
}

/** What of an import its batches apply besides the rows: its `?topics=` and the double opt-in rule. */
export interface ImportJob {
  id: string;
  project_id: string;
  topics: string[];
  double_opt_in: boolean;
}

/** The import's own choices for every row, with the project's topics to apply them by. */
interface RowRules {
  topics: Record<string, boolean> | undefined;
  catalog: TopicCatalog | undefined;
  doubleOptIn: boolean;
}

/** A contact the batch writes: the row as it will be, and whether it is new. */
interface Written {
  row: ContactRow;
  isNew: boolean;
}

/** A staged row as a batch applies it. */
export interface StagedRow {
  row: number;
  email: string;
  subscribed: boolean | undefined;
  data: ContactDataInput;
}

/**
 * A concurrent write created one of the batch's addresses first (the insert's unique_violation):
 * thrown as a serialization failure, so the batch runs again and finds that contact.
 */
function racedOnDuplicate(err: unknown): never {
  if ((err as { code?: string })?.code !== "23505") throw err;
  throw Object.assign(new Error("a contact of the batch was created concurrently"), { code: "40001", cause: err });
}

/**
 * Applies one batch of staged rows in one transaction, set-based: the existing contacts of the batch
 * are read (and locked) in one statement, the data and subscription rules of POST /contacts applied
 * to each in memory (the same functions, so the rules cannot drift), then the new contacts are
 * inserted and the changed ones updated in one statement each, tracked segments settled for the
 * batch in two statements a segment, and every message (subscription events, segment entries and
 * exits) enqueued in the outbox in one COPY. No ContactChange is written: its one reader is the
 * segment tracker, and the batch has already done for tracked segments what the tracker would (a
 * million-row import used to enqueue a million messages that the relay published and the tracker
 * dropped; packages/contracts contacts/changes.ts). The import's progress is written
 * in the same transaction: a crash loses a whole batch or nothing, and the import resumes after the
 * last batch committed. Two batches are in flight at a time (see `apply`): one writes its contacts
 * while the other settles and commits, which keeps both the database and this process busy.
 *
 * The outbox rows are left to the relay's poll rather than published from memory, so the import's
 * memory stays flat however fast batches commit; they go out within a couple of seconds.
 */
export class ImportApplier {
  constructor(
    private readonly sql: Sql,
    private readonly names: WireNames,
    private readonly topics: TopicsService,
    private readonly log: Logger,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /**
   * The staged rows of `(after, upto]` the last row of their address (the file's last row wins).
   * Read outside the batch's transaction (the staging table is the import's own), so the runner
   * reads the next batch while this one is written.
   */
  async read(importId: string, after: number, upto: number): Promise<StagedRow[]> {
    const rows = await importsRepo.batch(this.sql, importId, after, upto);
    return rows.map((r) => ({ row: r.row_no, email: r.email, subscribed: r.subscribed ?? undefined, data: JSON.parse(r.data) as ContactDataInput }));
  }

  /**
   * Applies `staged` and records the import's progress up to `upto`, all in one transaction.
   * `before` is the previous batch's outcome (its row errors so far): this batch writes its contacts
   * while that one is still running, then waits for it to commit before it settles segments and
   * records progress, so batches commit in order and `applied_row` never passes an uncommitted
   * batch. Answers the row errors so far, for the next batch. Commits only while `token` (the
   * runner's lease) holds the import: otherwise LeaseLost, and nothing of the batch is written.
   */
  apply(job: ImportJob, token: string, upto: number, staged: StagedRow[], before: Promise<ImportRowError[]>): Promise<{ result: BatchResult; errors: ImportRowError[] }> {
    return retryTransient(async () => {
      const done = await this.sql.begin((tx) => this.batch(tx, job, token, upto, staged, before));
      return done as { result: BatchResult; errors: ImportRowError[] };
    }, 5);
  }

  private async batch(tx: Q, job: ImportJob, token: string, upto: number, staged: StagedRow[], before: Promise<ImportRowError[]>) {
    const { project_id: projectId, id: importId } = job;
    const result: BatchResult = { created: 0, updated: 0, failed: [], awaitingConfirmation: 0 };
    const now = this.clock();
    const out = new Outgoing(this.names);
    const rules: RowRules = {
      topics: job.topics.length > 0 ? Object.fromEntries(job.topics.map((id) => [id, true])) : undefined,
      // a topic deleted since the import was made is skipped
      catalog: job.topics.length > 0 ? await this.topics.catalog(projectId) : undefined,
      doubleOptIn: job.double_opt_in,
    };
    // The batch's addresses are its own (the last row of each address is in exactly one batch), so
    // two batches write contacts side by side without meeting.
    const written = staged.length > 0 ? await this.write(tx, job, rules, staged, now, out, result) : new Map<string, Written>();
    const errorsSoFar = await before;
    // Then the project's segment lock, exclusively: a per-contact evaluation that read a contact
    // before this batch wrote it has finished and is corrected below from the batch's own state; one
    // that starts now waits for this commit. No segment is redefined under it.
    const [, segmentRows] = await Promise.all([locks.projectExclusive(tx, projectId), segmentsRepo.all(tx, projectId)]);
    await this.settleSegments(tx, projectId, segmentRows, written, now, out);
    await outboxCopy(tx, out.messages);
    const errors = [...errorsSoFar, ...result.failed].slice(0, 100);
    const progress = { appliedRow: upto, created: result.created, updated: result.updated, failed: result.failed.length, errors };
    await importsRepo.applied(tx, importId, token, { ...progress, awaitingConfirmation: result.awaitingConfirmation });
    return { result, errors };
  }

  /** The contacts of the batch: read, ruled on, written. Answers those that changed, by id. */
  private async write(tx: Q, job: ImportJob, rules: RowRules, staged: StagedRow[], now: Date, out: Outgoing, result: BatchResult): Promise<Map<string, Written>> {
    const projectId = job.project_id;
    const keys = staged.map((r) => r.email.toLowerCase());
    // One probe of the address index per address (LATERAL keeps it so): as a plain join or an
    // `any(…)` filter it was planned as a scan of the project's contacts, which grows with the import.
    // The project id comes through a materialized CTE, so the planner sizes the project as an average
    // one: given the value, it sized a project the statistics do not know yet (any new project) at one
    // row, and chose (project_id, id) with the address as a filter, a scan of the project's contacts
    // per address (20,000 rows into a new project took 20 s instead of 1).
    const existing = await tx<ContactRow[]>`
      with p as materialized (select ${projectId}::uuid as id)
      select c.* from p cross join unnest(${keys}::text[]) as k(key)
      cross join lateral (select * from contacts c where c.project_id = p.id and lower(c.email) = k.key for update) c`;
    const byKey = new Map(existing.map((c) => [c.email.toLowerCase(), c]));
    const fresh: ContactRow[] = [];
    const changed: ContactRow[] = [];
    const written = new Map<string, Written>();
    // double opt-in: contacts whose row asks to subscribe them get a link instead (decisions.md §14)
    const confirm: ContactRow[] = [];
    for (const r of staged) {
      // with double opt-in the import subscribes nobody itself: as a public key, it may only unsubscribe
      const input = { subscribed: r.subscribed, data: r.data, topics: rules.topics, catalog: rules.catalog, caller: rules.doubleOptIn ? ("public" as const) : undefined };
      const current = byKey.get(r.email.toLowerCase());
      try {
        if (!current) {
          const confirmFirst = rules.doubleOptIn && asksToSubscribe(undefined, r.subscribed, "api");
          const created = freshContact(projectId, { email: r.email, ...input, confirmFirst }, "api", now);
          if (confirmFirst) confirm.push(created.row);
          fresh.push(created.row);
          written.set(created.row.id, { row: created.row, isNew: true });
          result.created++;
          continue;
        }
        result.updated++;
        const { outcome, sub, topics, changed: fields } = contactChanges(current, input, "api");
        if (rules.doubleOptIn && asksToSubscribe(current.subscribed, r.subscribed, "api")) confirm.push(current);
        if (fields.length === 0) continue;
        const row: ContactRow = { ...current, subscribed: sub.subscribed, data: outcome.stored, topics: topics.stored, updated_at: now };
        changed.push(row);
        written.set(row.id, { row, isNew: false });
        if (sub.event) out.subscription(row, sub.event, now);
        for (const flip of topics.flips) out.topic(row, flip, flip.subscribed, now);
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        result.failed.push({ row: r.row, message: err.message });
      }
    }
    await contactsRepo.insertNew(tx, projectId, now, fresh).catch(racedOnDuplicate);
    if (changed.length > 0) {
      const rows = changed.map((c) => ({ id: c.id, subscribed: c.subscribed, data: c.data, topics: c.topics, updated_at: c.updated_at }));
      await tx`
        update contacts c set subscribed = v.subscribed, data = v.data, topics = v.topics, updated_at = v.updated_at
        from jsonb_to_recordset(${json(rows)}::jsonb) as v(id uuid, subscribed boolean, data jsonb, topics jsonb, updated_at timestamptz)
        where c.id = v.id`;
    }
    // in the batch's transaction: a committed batch always gets its confirmation emails
    await confirmationsRepo.add(tx, confirm.map((c) => ({ key: confirmationKey(c.id, job.id), projectId, contactId: c.id, email: c.email })));
    result.awaitingConfirmation = confirm.length;
    return written;
  }

  /**
   * Tracked segments for the contacts written, in dependency order (a segment built on another's
   * membership reads its fresh rows): entries and exits set-based, with their events, and a due
   * time of now where the answer can change with time alone (the scheduler takes those over).
   */
  private async settleSegments(tx: Q, projectId: string, rows: SegmentRow[], written: Map<string, Written>, now: Date, out: Outgoing) {
    if (written.size === 0 || !rows.some((r) => r.track_membership)) return;
    const graph = new SegmentGraph(rows.map(toSegmentDef), (s, err) =>
      this.log.error({ segmentId: s.id, err: String(err) }, "stored segment definition no longer checks; not tracked"),
    );
    const ids = [...written.keys()];
    // only a contact that existed can be a member already
    const existing = [...written.values()].filter((w) => !w.isNew).map((w) => w.row.id);
    for (const s of graph.tracked()) {
      const ctx = { segments: graph.map, segmentId: s.id, now };
      const entered = await batchMembersRepo.enter(tx, s.id, projectId, ids, compileFilter(s.filters, { ...ctx, paramOffset: 4 }), now);
      const exited = existing.length === 0 ? [] : await batchMembersRepo.exit(tx, s.id, projectId, existing, compileFilter(s.filters, { ...ctx, paramOffset: 3 }));
      for (const id of entered) out.segment(written.get(id)!.row, s, "entry", now);
      for (const id of exited) out.segment(written.get(id)!.row, s, "exit", now);
      if (graph.reads(s.id)?.timeRelative) {
        const parts = compileSensitivity(timeSensitivity(s.filters, graph.map), { ...ctx, paramOffset: 3 });
        if (parts) await batchMembersRepo.seedDue(tx, s.id, projectId, ids, parts);
      }
    }
  }
}
