import type { Sql } from "@mailroom/kit";

export interface SendingSettings {
  tracking: boolean;
}

export const DEFAULT_SETTINGS: SendingSettings = { tracking: true };

/** Per-project sending settings; a project that never changed them has the defaults (no row). */
export class SettingsRepo {
  constructor(private readonly sql: Sql) {}

  async get(projectId: string): Promise<SendingSettings> {
    const [row] = await this.sql<SendingSettings[]>`select tracking from project_settings where project_id = ${projectId}`;
    return row ?? DEFAULT_SETTINGS;
  }

  async update(projectId: string, patch: Partial<SendingSettings>): Promise<SendingSettings> {
    const next = { ...(await this.get(projectId)), ...patch };
    const [row] = await this.sql<SendingSettings[]>`
      insert into project_settings (project_id, tracking) values (${projectId}, ${next.tracking})
      on conflict (project_id) do update set tracking = excluded.tracking, updated_at = now()
      returning tracking`;
    return row!;
  }
}
