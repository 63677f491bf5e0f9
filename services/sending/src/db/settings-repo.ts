import type { SendingSettings } from "@mailroom/contracts";
import { traced, type Q, type Row } from "@mailroom/kit";
import type { projectSettings } from "./schema.js";

export const DEFAULT_SETTINGS: SendingSettings = { tracking: true };

type SettingsRow = Pick<Row<typeof projectSettings>, "project_id" | "tracking">;

/** Per-project sending settings; a project that never changed them has the defaults (no row). */
export const settingsRepo = traced("SettingsRepo", {
  /** The settings of each project of `ids`, in that order. */
  async getMany(q: Q, ids: string[]): Promise<SendingSettings[]> {
    const rows = await q<SettingsRow[]>`select project_id, tracking from project_settings where project_id = any(${ids}::uuid[])`;
    const found = new Map(rows.map((r): [string, SendingSettings] => [r.project_id, { tracking: r.tracking }]));
    return ids.map((id) => found.get(id) ?? DEFAULT_SETTINGS);
  },

  async save(q: Q, projectId: string, settings: SendingSettings): Promise<SendingSettings> {
    const [row] = await q<Pick<SettingsRow, "tracking">[]>`
      insert into project_settings (project_id, tracking) values (${projectId}, ${settings.tracking})
      on conflict (project_id) do update set tracking = excluded.tracking, updated_at = now()
      returning tracking`;
    return { tracking: row!.tracking };
  },
});
