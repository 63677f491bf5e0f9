import type { ContactChange } from "@mailroom/contracts";
import { Batcher, isId, type Logger, type Q } from "@mailroom/kit";
import { evaluateFilter, nextBoundary, type TopicDefaults } from "@mailroom/filters";
import { audienceRepo } from "../db/audience-repo.js";
import { contactsRepo } from "../db/contacts-repo.js";
import { dueRepo, locks, membersRepo } from "../db/members-repo.js";
import { segmentsRepo, toSegmentDef } from "../db/segments-repo.js";
import { topicsRepo } from "../db/topics-repo.js";
import { SegmentGraph, type SegmentDef } from "../domain/segment-graph.js";
import type { Outgoing } from "./outgoing.js";
import type { Writer } from "./writer.js";

/**
 * Keeps `segment_members` of tracked segments current for one contact at a time, and emits
 * `segment.<slug>.entry` / `.exit` in the transaction that changes the row. Every evaluation reads
 * the contact's current state (not what a message says happened), so it is idempotent: a
 * redelivered or reordered change finds the membership already right and emits nothing.
 * No state lives in memory, so any number of replicas can run it (see the locks in members-repo).
 */
export class MembershipTracker {
  private readonly probe: TrackingProbe;

  constructor(
    sql: Q,
    private readonly writer: Writer,
    private readonly log: Logger,
    private readonly clock: () => Date = () => new Date(),
  ) {
    this.probe = new TrackingProbe(sql);
  }

  /** A ContactChange: the segments it can affect. A deletion's exits were emitted by the delete. */
  async onChange(change: ContactChange): Promise<void> {
    // written by an older replica's CSV import, which settled membership set-based in the batch (an
    // import now writes no ContactChange)
    if (change.kind === "deleted" || change.segmentsSettled) return;
    // Any write bumps updatedAt, so a filter on it is affected by every update.
    const changed = change.kind === "created" ? "all" : change.kind === "updated" ? [...change.changed, "updatedAt"] : change.changed;
    await this.reevaluate(change.projectId, change.contactId, (g) => g.affected(changed));
  }

  /** Due times reached: these segments (and the tracked ones built on them) for this contact. */
  async onDue(projectId: string, contactId: string, segmentIds: string[]): Promise<void> {
    await this.reevaluate(projectId, contactId, (g) => g.withDependents(segmentIds));
  }

  private async reevaluate(projectId: string, contactId: string, pick: (g: SegmentGraph) => SegmentDef[]): Promise<void> {
    // Most changes belong to projects that track nothing: one round trip settles those, instead of
    // a transaction of three, and changes handled in the same turn share it.
    if (!(await this.probe.tracks(projectId))) return;
    await this.writer.run(async (tx, out) => {
      // Pipelined on the transaction's connection: the read runs after the locks are held (so it
      // sees every segment write committed before them) without a round trip of its own.
      const [, rows, topics] = await Promise.all([locks.evaluation(tx, projectId, contactId), segmentsRepo.all(tx, projectId), topicsRepo.defaults(tx, projectId)]);
      if (!rows.some((r) => r.track_membership)) return;
      const graph = new SegmentGraph(rows.map(toSegmentDef), (s, err) =>
        this.log.error({ segmentId: s.id, err: String(err) }, "stored segment definition no longer checks; not tracked"),
      );
      const targets = pick(graph);
      if (targets.length > 0) await this.apply(tx, out, graph, targets, projectId, contactId, topics);
    });
  }

  private async apply(tx: Q, out: Outgoing, graph: SegmentGraph, targets: SegmentDef[], projectId: string, contactId: string, topics: TopicDefaults) {
    const contact = await contactsRepo.byId(tx, projectId, contactId);
    if (!contact) return; // deleted: its exits went out with the deletion
    const events = new Set<string>();
    const emailKinds = new Set<string>();
    for (const s of targets) {
      const reads = graph.reads(s.id)!;
      for (const e of reads.events) events.add(e);
      for (const k of reads.emailKinds) emailKinds.add(k);
    }
    const [facts, segments, dueNow] = await Promise.all([
      audienceRepo.facts(tx, contact, { events: [...events], emailKinds: [...emailKinds] }),
      membersRepo.ofContact(tx, contactId),
      dueRepo.ofContact(tx, contactId),
    ]);
    const now = this.clock();
    const due = new Map<string, Date | null>();
    // In dependency order, updating the membership set as we go, so a segment defined by another
    // one's membership sees the new answer in the same transaction.
    for (const s of targets) {
      const ctx = { segments: graph.map, topics, segmentId: s.id };
      const member = evaluateFilter(s.filters, { ...facts, segments }, { ...ctx, now });
      if (member && !segments.has(s.id)) {
        segments.add(s.id);
        if (await membersRepo.add(tx, s.id, contactId, projectId, now)) out.segment(contact, s, "entry", now);
      } else if (!member && segments.has(s.id)) {
        segments.delete(s.id);
        if (await membersRepo.remove(tx, s.id, contactId)) out.segment(contact, s, "exit", now);
      }
      const next = graph.reads(s.id)!.timeRelative ? nextBoundary(s.filters, { ...facts, segments }, now, ctx) : null;
      if ((next?.getTime() ?? null) !== (dueNow.get(s.id) ?? null)) due.set(s.id, next);
    }
    await dueRepo.set(tx, projectId, contactId, due);
  }
}

/**
 * `locks.projectsTracking` for every change handled in one turn of the event loop, in one round trip
 * (a campaign's email events arrive a batch at a time). A query starts after every question in it
 * was asked, so the answer is as fresh as asking alone: a segment write committed before the change
 * was seen is read, one under way is waited for.
 */
class TrackingProbe {
  private readonly batcher: Batcher<string, boolean>;

  constructor(sql: Q) {
    this.batcher = new Batcher(async (ids: string[]) => {
      const tracking = await locks.projectsTracking(sql, ids);
      return ids.map((id) => tracking.has(id));
    }, { maxBatch: 256, startNextTurn: true });
  }

  tracks(projectId: string): Promise<boolean> {
    // checked here so that one bad id fails its own change, not the batch it would have joined
    if (!isId(projectId)) return Promise.reject(new Error(`not an id: ${projectId}`));
    return this.batcher.add(projectId);
  }
}
