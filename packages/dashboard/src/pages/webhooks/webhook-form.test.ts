import { describe, expect, it } from "vitest";
import { initialValues, toBody, validate } from "./webhook-form";

const values = (over: Partial<ReturnType<typeof initialValues>>) => ({ ...initialValues(null), url: "https://example.com/hook", ...over });

describe("the webhook form", () => {
  it("sends the picked patterns once each, and an empty description as none", () => {
    expect(toBody(values({ events: ["email.sent", "email.*"], description: "  " }))).toEqual({
      url: "https://example.com/hook",
      events: ["email.*"],
      description: null,
      enabled: true,
    });
  });

  it("checks with the contract's schema, naming a bad pattern on the picker", () => {
    expect(validate(values({ events: ["email.*"] }))).toEqual({});
    expect(validate(values({ events: [] }))).toEqual({ events: "Choose at least one event" });
    const errors = validate(values({ url: "", events: ["email.*", "emial.sent"] }));
    expect(Object.keys(errors).sort()).toEqual(["events", "url"]);
    expect(errors.url).toBe("Enter the endpoint's URL");
    expect(errors.events).toMatch(/^emial\.sent: matches no system event/);
  });
});
