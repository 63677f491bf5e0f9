import type { Segment } from "@mailroom/contracts";
import { columns, iso, json, type RowOf, traced, type Q, type Row } from "@mailroom/kit";
import type { SegmentDef } from "../domain/segment-graph.js";
import type { segments } from "./schema.js";

// member_count is not selected: the API answers the exact live count (segment-queries.ts), never a cache.
const COLUMNS = columns<Row<typeof segments>>()(["id", "project_id", "name", "slug", "filters", "track_membership", "created_at", "updated_at"]);
/** A segment as read here: every column but `member_count`. */
export type SegmentRow = RowOf<typeof COLUMNS>;

export const toSegmentDef = (r: SegmentRow): SegmentDef => ({
  id: r.id,
  name: r.name,
  slug: r.slug,
  filters: r.filters,
  trackMembership: r.track_membership,
});

export function toSegment(r: SegmentRow, memberCount: number): Segment {
  return {
    id: r.id,
    name: r.name,
    slug: r.slug,
    filters: r.filters,
    trackMembership: r.track_membership,
    memberCount,
    createdAt: iso(r.created_at),
    updatedAt: iso(r.updated_at),
  };
}

/** Every query is scoped by project: another project's segment id is simply not found. */
export const segmentsRepo = traced("SegmentsRepo", {
  /** All of a project's segments, oldest first (UUIDv7 ids). Projects have tens, not millions. */
  async all(q: Q, projectId: string): Promise<SegmentRow[]> {
    return q.unsafe<SegmentRow[]>(`select ${COLUMNS.sql} from segments where project_id = $1 order by id`, [projectId]);
  },

  async byId(q: Q, projectId: string, id: string): Promise<SegmentRow | null> {
    const rows = await q.unsafe<SegmentRow[]>(`select ${COLUMNS.sql} from segments where project_id = $1 and id = $2`, [projectId, id]);
    return rows[0] ?? null;
  },

  async insert(q: Q, r: SegmentRow): Promise<void> {
    await q`
      insert into segments (id, project_id, name, slug, filters, track_membership, created_at, updated_at)
      values (${r.id}, ${r.project_id}, ${r.name}, ${r.slug}, ${json(r.filters)}::jsonb, ${r.track_membership},
        ${iso(r.created_at)}, ${iso(r.updated_at)})`;
  },

  async update(q: Q, r: SegmentRow): Promise<void> {
    await q`
      update segments set name = ${r.name}, slug = ${r.slug}, filters = ${json(r.filters)}::jsonb,
        track_membership = ${r.track_membership}, updated_at = ${iso(r.updated_at)}
      where project_id = ${r.project_id} and id = ${r.id}`;
  },

  /** Members and due times go with it (foreign keys, on delete cascade). */
  async delete(q: Q, projectId: string, id: string): Promise<boolean> {
    const rows = await q`delete from segments where project_id = ${projectId} and id = ${id} returning id`;
    return rows.length > 0;
  },
});
