import type { SendingSettings } from "@mailroom/contracts";
import { traced, type Q, type Row } from "@mailroom/kit";
import type { projectSettings } from "./schema.js";

export const DEFAULT_SETTINGS: SendingSettings = { tracking: true, doubleOptIn: { enabled: false, templateId: null }, frequencyCap: null };

type SettingsRow = Pick<
  Row<typeof projectSettings>,
  "project_id" | "tracking" | "double_opt_in" | "double_opt_in_template_id" | "frequency_cap_max" | "frequency_cap_days"
>;

const toSettings = (r: Omit<SettingsRow, "project_id">): SendingSettings => ({
  tracking: r.tracking,
  doubleOptIn: { enabled: r.double_opt_in, templateId: r.double_opt_in_template_id },
  frequencyCap: r.frequency_cap_max !== null && r.frequency_cap_days !== null ? { max: r.frequency_cap_max, days: r.frequency_cap_days } : null,
});

/** Per-project sending settings; a project that never changed them has the defaults (no row). */
export const settingsRepo = traced("SettingsRepo", {
  /** The settings of each project of `ids`, in that order. */
  async getMany(q: Q, ids: string[]): Promise<SendingSettings[]> {
    const rows = await q<SettingsRow[]>`
      select project_id, tracking, double_opt_in, double_opt_in_template_id, frequency_cap_max, frequency_cap_days
      from project_settings where project_id = any(${ids}::uuid[])`;
    const found = new Map(rows.map((r): [string, SendingSettings] => [r.project_id, toSettings(r)]));
    return ids.map((id) => found.get(id) ?? DEFAULT_SETTINGS);
  },

  async save(q: Q, projectId: string, s: SendingSettings): Promise<SendingSettings> {
    const [row] = await q<Omit<SettingsRow, "project_id">[]>`
      insert into project_settings (project_id, tracking, double_opt_in, double_opt_in_template_id, frequency_cap_max, frequency_cap_days)
      values (${projectId}, ${s.tracking}, ${s.doubleOptIn.enabled}, ${s.doubleOptIn.templateId}, ${s.frequencyCap?.max ?? null}, ${s.frequencyCap?.days ?? null})
      on conflict (project_id) do update set tracking = excluded.tracking, double_opt_in = excluded.double_opt_in,
        double_opt_in_template_id = excluded.double_opt_in_template_id, frequency_cap_max = excluded.frequency_cap_max,
        frequency_cap_days = excluded.frequency_cap_days, updated_at = now()
      returning tracking, double_opt_in, double_opt_in_template_id, frequency_cap_max, frequency_cap_days`;
    return toSettings(row!);
  },
});
