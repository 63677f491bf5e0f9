import { Batcher, ExpiringMap, TURN_LOOKUPS, type Sql } from "@mailroom/kit";

export interface SendingSettings {
  tracking: boolean;
}

export const DEFAULT_SETTINGS: SendingSettings = { tracking: true };

/** Per-project sending settings; a project that never changed them has the defaults (no row). */
export class SettingsRepo {
  /** The reads of one event-loop turn (the /v1/sends of one coalesced message) share one query. */
  private readonly reads = new Batcher((ids: string[]) => this.getMany(ids), TURN_LOOKUPS);
  /**
   * Answers reused for a second: a steady sender's read costs no query. A change made here replaces
   * the answer at once; one made through another replica is seen within the second.
   */
  private readonly recent = new ExpiringMap<string, SendingSettings>(10_000, 1000);

  constructor(private readonly sql: Sql) {}

  async get(projectId: string): Promise<SendingSettings> {
    const hit = this.recent.get(projectId);
    if (hit) return hit;
    const settings = await this.reads.add(projectId);
    this.recent.set(projectId, settings);
    return settings;
  }

  private async getMany(ids: string[]): Promise<SendingSettings[]> {
    const rows = await this.sql<(SendingSettings & { projectId: string })[]>`
      select project_id as "projectId", tracking from project_settings where project_id = any(${ids}::uuid[])`;
    const found = new Map(rows.map(({ projectId, ...settings }) => [projectId, settings]));
    return ids.map((id) => found.get(id) ?? DEFAULT_SETTINGS);
  }

  async update(projectId: string, patch: Partial<SendingSettings>): Promise<SendingSettings> {
    const next = { ...(await this.reads.add(projectId)), ...patch };
    const [row] = await this.sql<SendingSettings[]>`
      insert into project_settings (project_id, tracking) values (${projectId}, ${next.tracking})
      on conflict (project_id) do update set tracking = excluded.tracking, updated_at = now()
      returning tracking`;
    this.recent.set(projectId, row!);
    return row!;
  }
}
