import type { Workflow } from "@mailroom/contracts";
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
