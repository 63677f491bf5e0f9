import { describe, expect, it } from "vitest";
import { DEFAULT_EDITING, shortFormToExpression, toConfig, toEditing } from "./step-config";

describe("a step's config in the side panel", () => {
  it("round-trips each type's config through the form", () => {
    const configs = {
      SEND_EMAIL: { templateId: "tpl_1", from: "a@example.com" },
      DELAY: { amount: 2, unit: "days" },
      WAIT_FOR_EVENT: { eventName: "reply", timeout: 3600 },
      CONDITION: { field: "event.plan", operator: "equals", value: "pro" },
      WEBHOOK: { url: "https://example.com/hook", method: "PUT", headers: { "X-Key": "1" }, body: { a: [1, 2] } },
      UPDATE_CONTACT: { data: { plan: "pro", seats: 3 } },
      EXIT: { reason: "done" },
    } as const;
    for (const [type, config] of Object.entries(configs)) {
      expect(toConfig(type as keyof typeof configs, toEditing(type as keyof typeof configs, config))).toEqual({ config });
    }
  });

  it("edits SEND_EMAIL's quiet hours as two times, and puts a missing end on its field", () => {
    const config = { templateId: "tpl_1", quietHours: { from: "21:00", to: "08:00" } };
    expect(toEditing("SEND_EMAIL", config)).toMatchObject({ quietFrom: "21:00", quietTo: "08:00" });
    expect(toConfig("SEND_EMAIL", toEditing("SEND_EMAIL", config))).toEqual({ config });
    expect(toConfig("SEND_EMAIL", { ...DEFAULT_EDITING.SEND_EMAIL, templateId: "tpl_1", quietFrom: "21:00" })).toEqual({
      errors: { "config.quietTo": expect.any(String) },
    });
  });

  it("keeps a full filter expression for the filter builder, and time operators with their unit", () => {
    const expression = { logic: "OR", groups: [{ filters: [{ field: "contact.subscribed", operator: "equals", value: true }] }] };
    expect(toEditing("CONDITION", expression)).toEqual({ expression, expressionValid: true });
    expect(toConfig("CONDITION", toEditing("CONDITION", expression))).toEqual({ config: expression });
    // the builder's own verdict stands: text it cannot read yet is not sent
    expect(toConfig("CONDITION", { expression, expressionValid: false })).toEqual({ errors: { "config.expression": "Fix the filter's marked inputs" } });
    expect(toConfig("CONDITION", { field: "email.opened", operator: "triggeredWithin", value: "7", unit: "days" })).toEqual({
      config: { field: "email.opened", operator: "triggeredWithin", value: 7, unit: "days" },
    });
    expect(toConfig("CONDITION", { field: "data.plan", operator: "exists", value: "x", unit: "days" })).toEqual({ config: { field: "data.plan", operator: "exists" } });
  });

  it("turns the one-filter short form into the expression the builder edits, as typed so far", () => {
    expect(shortFormToExpression({ field: "event.plan", operator: "equals", value: "pro", unit: "days" })).toEqual({
      logic: "AND",
      groups: [{ filters: [{ field: "event.plan", operator: "equals", value: "pro" }] }],
    });
    expect(shortFormToExpression(DEFAULT_EDITING.CONDITION)).toEqual({ logic: "AND", groups: [{ filters: [{ field: "", operator: "equals" }] }] });
  });

  it("puts the step schema's errors at their fields", () => {
    expect(toConfig("WEBHOOK", { ...DEFAULT_EDITING.WEBHOOK, url: "ftp://x" })).toEqual({ errors: { "config.url": "must be an http:// or https:// URL" } });
    expect(toConfig("WEBHOOK", { ...DEFAULT_EDITING.WEBHOOK, url: "https://x.test", headers: "{ nope" })).toEqual({ errors: { "config.headers": "Not valid JSON" } });
    expect(toConfig("WEBHOOK", { ...DEFAULT_EDITING.WEBHOOK, url: "https://x.test", headers: '{"Host": "evil"}' })).toEqual({
      errors: { "config.headers": "Host: Host is set by the HTTP client and cannot be configured" },
    });
    const wait = toConfig("WAIT_FOR_EVENT", { eventName: "", timeout: -1 });
    expect(Object.keys("errors" in wait ? wait.errors : {}).sort()).toEqual(["config.eventName", "config.timeout"]);
    expect(toConfig("CONDITION", { field: "event.plan", operator: "greaterThan", value: "", unit: "days" })).toMatchObject({ errors: { "config.value": expect.any(String) } });
    expect(toConfig("SEND_EMAIL", DEFAULT_EDITING.SEND_EMAIL)).toMatchObject({ errors: { "config.templateId": expect.any(String) } });
  });
});
