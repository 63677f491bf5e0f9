import {
  AppError,
  type ContactPageRpcReply,
  type ContactPageRpcRequest,
  type FilterExpression,
  type Segment,
  type SegmentContactList,
  type ValidateFilterRpcReply,
  type ValidateFilterRpcRequest,
} from "@mailroom/contracts";
import { isId, type Sql } from "@mailroom/kit";
import { compileFilter, type TopicDefaults } from "@mailroom/filters";
import { audienceRepo } from "../db/audience-repo.js";
import type { ContactRow } from "../db/contacts-repo.js";
import { toContact } from "../db/rows.js";
import { membersRepo } from "../db/members-repo.js";
import { segmentsRepo, toSegment, toSegmentDef, type SegmentRow } from "../db/segments-repo.js";
import { topicsRepo } from "../db/topics-repo.js";
import type { CursorCodec } from "../domain/cursor.js";
import { assertNoProblems, conditionProblems, segmentReferenceProblems } from "../domain/filter-check.js";
import { SegmentGraph, type SegmentDef } from "../domain/segment-graph.js";

/** Counts run a few at a time when a list needs many: each may read a large part of a project. */
const COUNT_PARALLEL = 4;

/**
 * Segment reads and audiences. `memberCount` is always exact and live: a tracked segment counts its
 * recorded members (an index-only scan of the membership key), an untracked one runs its compiled
 * filter over the project's contacts. Nothing is served from a cached count.
 */
export class SegmentQueries {
  constructor(
    private readonly sql: Sql,
    private readonly cursors: CursorCodec,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /** The project's segments, and its topics' defaults: what every filter of the project compiles against. */
  private async graph(projectId: string): Promise<{ rows: SegmentRow[]; graph: SegmentGraph; topics: TopicDefaults }> {
    const [rows, topics] = await Promise.all([segmentsRepo.all(this.sql, projectId), topicsRepo.defaults(this.sql, projectId)]);
    return { rows, graph: new SegmentGraph(rows.map(toSegmentDef)), topics };
  }

  private memberCount(graph: SegmentGraph, row: SegmentRow, topics: TopicDefaults): Promise<number> {
    if (row.track_membership) return membersRepo.count(this.sql, row.id);
    const compiled = compileFilter(row.filters, { segments: graph.map, topics, segmentId: row.id, now: this.clock(), paramOffset: 1 });
    return audienceRepo.count(this.sql, row.project_id, compiled);
  }

  async list(projectId: string): Promise<Segment[]> {
    const { rows, graph, topics } = await this.graph(projectId);
    const out: Segment[] = new Array(rows.length);
    let next = 0;
    const worker = async () => {
      for (let i = next++; i < rows.length; i = next++) out[i] = toSegment(rows[i]!, await this.memberCount(graph, rows[i]!, topics));
    };
    await Promise.all(Array.from({ length: Math.min(COUNT_PARALLEL, rows.length) }, worker));
    return out;
  }

  async get(projectId: string, id: string): Promise<Segment | null> {
    if (!isId(id)) return null;
    const { rows, graph, topics } = await this.graph(projectId);
    const row = rows.find((r) => r.id === id);
    return row ? toSegment(row, await this.memberCount(graph, row, topics)) : null;
  }

  /** How many of the project's contacts `filters` matches now (a builder's live count); nothing is saved. */
  async count(projectId: string, filters: FilterExpression): Promise<number> {
    const { graph, topics } = await this.graph(projectId);
    assertNoProblems(segmentReferenceProblems(filters, graph.map, "filters", undefined, topics));
    return audienceRepo.count(this.sql, projectId, compileFilter(filters, { segments: graph.map, topics, now: this.clock(), paramOffset: 1 }));
  }

  /** Members by id, keyset: the recorded members of a tracked segment, the live matches otherwise. */
  async members(projectId: string, id: string, q: { limit: number; cursor?: string }): Promise<SegmentContactList | null> {
    if (!isId(id)) return null;
    const { rows, graph, topics } = await this.graph(projectId);
    const row = rows.find((r) => r.id === id);
    if (!row) return null;
    const scope = `segment:${projectId}:${id}`;
    const afterId = q.cursor ? this.cursors.decode(scope, q.cursor) : undefined;
    const page = { afterId, limit: q.limit + 1 };
    const found = row.track_membership
      ? await audienceRepo.members(this.sql, id, null, page)
      : await audienceRepo.page(this.sql, projectId, this.compile(row.filters, graph, topics, id), page);
    const hasMore = found.length > q.limit;
    const data = found.slice(0, q.limit);
    const last = data.at(-1);
    return { data: data.map(toContact), cursor: hasMore && last ? this.cursors.encode(scope, last.id) : null, hasMore };
  }

  /** contacts.page: the whole project, a segment's members and/or the contacts matching a filter. */
  async page(req: ContactPageRpcRequest): Promise<ContactPageRpcReply> {
    if (req.afterId !== undefined && !isId(req.afterId)) throw AppError.validation("afterId must be a contact id");
    const { graph, topics } = await this.graph(req.projectId);
    if (req.filter) assertNoProblems(segmentReferenceProblems(req.filter, graph.map, "filter", undefined, topics));
    const segment = req.segmentId === undefined ? undefined : graph.get(req.segmentId);
    if (req.segmentId !== undefined && !segment) throw AppError.notFound("Segment");
    if (req.topicId !== undefined && !topics.has(req.topicId)) throw AppError.notFound("Topic");
    const rows = await this.audience(req, graph, segment, topics);
    const page = rows.slice(0, req.limit);
    return {
      contacts: page.map((r) => ({ id: r.id, email: r.email, subscribed: r.subscribed, data: r.data })),
      nextAfterId: rows.length > req.limit ? (page.at(-1)?.id ?? null) : null,
    };
  }

  private audience(req: ContactPageRpcRequest, graph: SegmentGraph, segment: SegmentDef | undefined, topics: TopicDefaults): Promise<ContactRow[]> {
    const opts = { afterId: req.afterId, limit: req.limit + 1, subscribedOnly: req.subscribedOnly };
    // A topic audience is the filter `topic.<id> equals true`, so it means exactly what a segment's does.
    const topic: FilterExpression[] =
      req.topicId === undefined ? [] : [{ logic: "AND", groups: [{ filters: [{ field: `topic.${req.topicId}`, operator: "equals", value: true }] }] }];
    const and = (parts: FilterExpression[]): FilterExpression | null =>
      parts.length === 0 ? null : { logic: "AND", groups: parts.map((conditions) => ({ filters: [], conditions })) };
    if (segment?.trackMembership) {
      const expr = and([...(req.filter ? [req.filter] : []), ...topic]);
      return audienceRepo.members(this.sql, segment.id, expr && this.compile(expr, graph, topics), opts);
    }
    // An untracked segment is its filter: inlined, ANDed with the request's own filter.
    const expr = and([...(segment ? [segment.filters] : []), ...(req.filter ? [req.filter] : []), ...topic]);
    return audienceRepo.page(this.sql, req.projectId, expr && this.compile(expr, graph, topics), opts);
  }

    /**
   * A page of the export's rows after `afterId`: the project's contacts or, with `segmentId`, the
   * segment's members (NOT_FOUND when it is not the project's).
   */
  async exportPage(projectId: string, segmentId: string | undefined, afterId: string | undefined, limit: number) {
    const { graph, topics } = await this.graph(projectId);
    const segment = segmentId === undefined ? undefined : graph.get(segmentId);
    if (segmentId !== undefined && !segment) throw AppError.notFound("Segment");
    const page = { afterId, limit };
    if (segment?.trackMembership) return audienceRepo.members(this.sql, segment.id, null, page);
    const compiled = segment ? this.compile(segment.filters, graph, topics, segment.id) : null;
    return audienceRepo.page(this.sql, projectId, compiled, page);
  }

  async validate(req: ValidateFilterRpcRequest): Promise<ValidateFilterRpcReply> {
    const { graph, topics } = await this.graph(req.projectId);
    const details = [
      ...(req.segmentId !== undefined && !graph.get(req.segmentId) ? [{ path: "segmentId", message: "not a segment of this project" }] : []),
      ...(req.topicId !== undefined && !topics.has(req.topicId) ? [{ path: "topicId", message: "not a topic of this project" }] : []),
      ...(req.filter ? segmentReferenceProblems(req.filter, graph.map, "filter", undefined, topics) : []),
      ...(req.condition ? conditionProblems(req.condition, graph.map, "condition") : []),
    ];
    return { valid: details.length === 0, details };
  }

  private compile(expr: FilterExpression, graph: SegmentGraph, topics: TopicDefaults, segmentId?: string) {
    return compileFilter(expr, { segments: graph.map, topics, segmentId, now: this.clock(), paramOffset: 2 });
  }
}
