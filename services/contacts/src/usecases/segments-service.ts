import { isDeepStrictEqual } from "node:util";
import { AppError, type CreateSegmentRequest, type FilterExpression, type UpdateSegmentRequest } from "@mailroom/contracts";
import { isId, newId, type Q, type Sql } from "@mailroom/kit";
import { type CompileContext, type CompiledFilter, type TopicDefaults, compileFilter } from "@mailroom/filters";
import { topicsRepo } from "../db/topics-repo.js";
import { dueRepo, locks, membersRepo } from "../db/members-repo.js";
import { retryTransient } from "../db/retry.js";
import { segmentsRepo, toSegmentDef, type SegmentRow } from "../db/segments-repo.js";
import { assertNoProblems, segmentReferenceProblems } from "../domain/filter-check.js";
import { SegmentGraph, timeSensitivity, type SegmentDef, type TimeSensitivity } from "../domain/segment-graph.js";
import { slugOf } from "../domain/slug.js";

/**
 * Segment writes. Each holds the project's segment lock exclusively, so it never interleaves with a
 * membership evaluation (which holds it shared) and every evaluation sees either the old definition
 * with its members or the new one with its members.
 */
export class SegmentsService {
  constructor(
    private readonly sql: Sql,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  create(projectId: string, body: CreateSegmentRequest): Promise<SegmentRow> {
    return this.write(projectId, async (tx, rows, now, topics) => {
      assertNoProblems(segmentReferenceProblems(body.filters, new SegmentGraph(rows.map(toSegmentDef)).map, "filters", undefined, topics));
      const row: SegmentRow = {
        id: newId(),
        project_id: projectId,
        name: body.name,
        slug: slugOf(body.name),
        filters: body.filters,
        track_membership: body.trackMembership,
        created_at: now,
        updated_at: now,
      };
      await segmentsRepo.insert(tx, row);
      if (row.track_membership) await record(tx, projectId, new SegmentGraph([...rows, row].map(toSegmentDef)), [toSegmentDef(row)], now, topics);
      return row;
    });
  }

  /**
   * PATCH: null when the segment is not the project's. Switching tracking on records the present
   * members without events; a new definition re-records (without events) this segment and every
   * tracked segment defined through it; switching tracking off forgets the members.
   */
  update(projectId: string, id: string, body: UpdateSegmentRequest): Promise<SegmentRow | null> {
    if (!isId(id)) return Promise.resolve(null);
    return this.write(projectId, async (tx, rows, now, topics) => {
      const current = rows.find((r) => r.id === id);
      if (!current) return null;
      const next: SegmentRow = {
        ...current,
        name: body.name ?? current.name,
        slug: slugOf(body.name ?? current.name),
        filters: body.filters ?? current.filters,
        track_membership: body.trackMembership ?? current.track_membership,
        updated_at: now,
      };
      const redefined = !isDeepStrictEqual(next.filters, current.filters);
      const graph = new SegmentGraph(rows.map((r) => toSegmentDef(r.id === id ? next : r)));
      if (redefined) assertNoProblems(segmentReferenceProblems(next.filters, graph.map, "filters", id, topics));
      await segmentsRepo.update(tx, next);
      if (current.track_membership && !next.track_membership) await membersRepo.clear(tx, id);
      if (redefined) await record(tx, projectId, graph, graph.definedThrough(id), now, topics);
      else if (!current.track_membership && next.track_membership) await record(tx, projectId, graph, [toSegmentDef(next)], now, topics);
      return next;
    });
  }

  /** False when not the project's; 409 while another segment's filters refer to it. */
  remove(projectId: string, id: string): Promise<boolean> {
    if (!isId(id)) return Promise.resolve(false);
    return this.write(projectId, async (tx, rows) => {
      if (!rows.some((r) => r.id === id)) return false;
      const users = new SegmentGraph(rows.map(toSegmentDef)).referrers(id);
      if (users.length > 0) {
        const names = users.map((u) => `"${u.name}"`).join(", ");
        throw new AppError("INVALID_STATE", `The segment is used by the filters of ${names}`, { reason: "segment_in_use" });
      }
      return segmentsRepo.delete(tx, projectId, id);
    });
  }

  private write<T>(projectId: string, work: (tx: Q, rows: SegmentRow[], now: Date, topics: TopicDefaults) => Promise<T>): Promise<T> {
    return retryTransient(async () => {
      const result = await this.sql.begin(async (tx) => {
        await locks.projectExclusive(tx, projectId);
        return work(tx, await segmentsRepo.all(tx, projectId), this.clock(), await topicsRepo.defaults(tx, projectId));
      });
      return result as T;
    });
  }
}

/**
 * Records tracked segments' present members without events, in dependency order (so a segment built
 * on another one's membership reads its fresh rows), and gives every contact near a time boundary a
 * due time of now: the scheduler then evaluates each and keeps its real next boundary.
 */
async function record(tx: Q, projectId: string, graph: SegmentGraph, segments: SegmentDef[], now: Date, topics: TopicDefaults): Promise<void> {
  for (const s of segments) {
    const ctx = { segments: graph.map, topics, segmentId: s.id, now, paramOffset: 2 };
    await membersRepo.record(tx, s.id, projectId, compileFilter(s.filters, ctx), now);
    await dueRepo.seed(tx, s.id, projectId, compileSensitivity(timeSensitivity(s.filters, graph.map), ctx));
  }
}

/** The parts of a TimeSensitivity compiled one after the other, so their parameters do not collide. */
export function compileSensitivity(t: TimeSensitivity | null, ctx: CompileContext) {
  if (!t) return null;
  let offset = ctx.paramOffset ?? 0;
  const next = (e: FilterExpression): CompiledFilter => {
    const compiled = compileFilter(e, { ...ctx, paramOffset: offset });
    offset += compiled.values.length;
    return compiled;
  };
  const near = next(t.near);
  return t.ifTrue && t.ifFalse ? { near, ifTrue: next(t.ifTrue), ifFalse: next(t.ifFalse) } : { near };
}
