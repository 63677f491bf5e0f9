import type { TriggerType, UpdateWorkflowRequest, Workflow } from "@mailroom/contracts";
import cronstrue from "cronstrue";

/** A cron expression as words ("At 09:00 AM, only on Monday"), or null when it does not parse. */
export function cronText(cron: string): string | null {
  try {
    return cronstrue.toString(cron.trim(), { use24HourTimeFormat: true, verbose: false });
  } catch {
    return null;
  }
}

/** One line for the list and the page header: what starts an execution. */
export function triggerText(w: Pick<Workflow, "triggerType" | "triggerConfig">): string {
  const c = w.triggerConfig as { eventName?: string; cron?: string; timezone?: string; segmentId?: string };
  switch (w.triggerType) {
    case "EVENT":
      return `Event “${c.eventName}”`;
    case "MANUAL":
      return "Manual";
    case "SCHEDULE": {
      const when = (c.cron && cronText(c.cron)) ?? c.cron ?? "";
      return `Schedule: ${when}${c.timezone ? ` (${c.timezone})` : ""}`;
    }
  }
}

/** The settings form's values (SettingsPanel). */
export type SettingsValues = {
  name: string;
  description: string;
  allowReentry: boolean;
  triggerType: TriggerType;
  triggerConfig: { eventName: string; cron: string; timezone: string; segmentId: string };
};

/** The PATCH body for the form: the trigger only when it changed (changing it is a structural edit, locked while executions run). */
export function settingsBody(w: Workflow, v: SettingsValues): UpdateWorkflowRequest {
  const c = v.triggerConfig;
  const triggerConfig =
    v.triggerType === "EVENT"
      ? { eventName: c.eventName.trim() }
      : v.triggerType === "SCHEDULE"
        ? { cron: c.cron.trim(), ...(c.timezone ? { timezone: c.timezone } : {}), ...(c.segmentId ? { segmentId: c.segmentId } : {}) }
        : {};
  // key order is not meaning: sending an unchanged trigger would be refused while executions run
  const sorted = (o: object) => JSON.stringify(Object.entries(o).sort(([a], [b]) => a.localeCompare(b)));
  const triggerChanged = v.triggerType !== w.triggerType || sorted(triggerConfig) !== sorted(w.triggerConfig);
  return {
    name: v.name,
    description: v.description.trim() ? v.description : null,
    allowReentry: v.allowReentry,
    ...(triggerChanged ? { triggerType: v.triggerType, triggerConfig } : {}),
  };
}

