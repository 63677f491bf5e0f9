import type { Workflow } from "@mailroom/contracts";
import { describe, expect, it } from "vitest";
import { cronText, type SettingsValues, settingsBody, triggerText } from "./trigger";

const workflow = (triggerType: Workflow["triggerType"], triggerConfig: Workflow["triggerConfig"]) => ({ triggerType, triggerConfig }) as Workflow;
const values = (over: Partial<SettingsValues> = {}, config: Partial<SettingsValues["triggerConfig"]> = {}): SettingsValues => ({
  name: "W",
  description: "",
  allowReentry: false,
  triggerType: "SCHEDULE",
  ...over,
  triggerConfig: { eventName: "", cron: "0 9 * * 1", timezone: "Europe/Paris", segmentId: "", ...config },
});

describe("the trigger in words and in the PATCH body", () => {
  it("reads a cron expression, and says when it cannot", () => {
    expect(cronText("0 9 * * 1")).toBe("At 09:00, only on Monday");
    expect(cronText("not cron")).toBeNull();
    expect(triggerText(workflow("SCHEDULE", { cron: "0 9 * * 1", timezone: "Europe/Paris" }))).toBe("Schedule: At 09:00, only on Monday (Europe/Paris)");
    expect(triggerText(workflow("EVENT", { eventName: "signup" }))).toBe("Event “signup”");
    expect(triggerText(workflow("MANUAL", {}))).toBe("Manual");
  });

  it("sends the trigger only when it changed, whatever the key order", () => {
    const stored = workflow("SCHEDULE", { timezone: "Europe/Paris", cron: "0 9 * * 1" });
    expect(settingsBody(stored, values())).toEqual({ name: "W", description: null, allowReentry: false });
    expect(settingsBody(stored, values({}, { cron: "0 10 * * 1" }))).toMatchObject({ triggerType: "SCHEDULE", triggerConfig: { cron: "0 10 * * 1", timezone: "Europe/Paris" } });
    expect(settingsBody(stored, values({ triggerType: "MANUAL" }))).toMatchObject({ triggerType: "MANUAL", triggerConfig: {} });
    expect(settingsBody(stored, values({ triggerType: "EVENT" }, { eventName: " paid " }))).toMatchObject({ triggerConfig: { eventName: "paid" } });
  });
});
