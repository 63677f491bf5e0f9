import type { CompiledFilter } from "@mailroom/filters";
import { iso, traced, type Q } from "@mailroom/kit";

/**
 * Contact ids as one uuid[] parameter, sent as its text form (`{…}`): ids are checked uuids. The
 * parameter is typed uuid[] itself (`$3::uuid[]`), not text cast to uuid[] in the statement: a cast
 * in the statement is a stable expression the planner cannot fold, so a plan that filters a scan
 * with it (the planner's choice while the project is small) parsed the whole array again for every
 * row it looked at (seconds a batch), and could not hash it.
 */
const idArray = (ids: readonly string[]) => `{${ids.join(",")}}`;

/**
 * Membership of tracked segments for many contacts at once (a CSV import batch): the set-based twin
 * of the tracker's per-contact evaluation. The statements compare the contacts' stored state with
 * the recorded membership and change only what differs, returning those contacts: their entry and
 * exit events. Filters are compiled with `paramOffset` 4 for entries and 3 for exits and due times.
 */
export const batchMembersRepo = traced("BatchMembersRepo", {
  async enter(q: Q, segmentId: string, projectId: string, ids: readonly string[], compiled: CompiledFilter, at: Date): Promise<string[]> {
    const rows = await q.unsafe<{ contact_id: string }[]>(
      `insert into segment_members (segment_id, contact_id, project_id, entered_at)
       select $1::uuid, c.id, c.project_id, $4::timestamptz from contacts c
       where c.project_id = $2::uuid and c.id = any($3::uuid[]) and ${compiled.text}
       on conflict do nothing returning contact_id`,
      [segmentId, projectId, idArray(ids), iso(at), ...compiled.values],
    );
    return rows.map((r) => r.contact_id);
  },

  async exit(q: Q, segmentId: string, projectId: string, ids: readonly string[], compiled: CompiledFilter): Promise<string[]> {
    const rows = await q.unsafe<{ contact_id: string }[]>(
      `delete from segment_members m using contacts c
       where m.segment_id = $1::uuid and m.contact_id = c.id and c.project_id = $2::uuid
         and c.id = any($3::uuid[]) and not (${compiled.text})
       returning m.contact_id`,
      [segmentId, projectId, idArray(ids), ...compiled.values],
    );
    return rows.map((r) => r.contact_id);
  },

  /**
   * A due time of now for the contacts whose answer can change with time alone (as `dueRepo.seed`
   * does for a whole segment): the scheduler evaluates each and keeps its real next boundary.
   */
  async seedDue(q: Q, segmentId: string, projectId: string, ids: readonly string[], parts: { near: CompiledFilter; ifTrue?: CompiledFilter; ifFalse?: CompiledFilter }): Promise<void> {
    const { near, ifTrue, ifFalse } = parts;
    const flips = ifTrue && ifFalse ? `and ${ifTrue.text} and not ${ifFalse.text}` : "";
    await q.unsafe(
      `insert into segment_due (segment_id, contact_id, project_id, due_at)
       select $1::uuid, c.id, c.project_id, now() from contacts c
       where c.project_id = $2::uuid and c.id = any($3::uuid[]) and ${near.text} ${flips}
       on conflict (segment_id, contact_id) do update set due_at = excluded.due_at`,
      [segmentId, projectId, idArray(ids), ...near.values, ...(ifTrue?.values ?? []), ...(ifFalse?.values ?? [])],
    );
  },
});
