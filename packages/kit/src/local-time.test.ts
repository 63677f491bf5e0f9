import { describe, expect, it } from "vitest";
import { contactZone, nextLocalTime, quietUntil, validZone, zonedInstant } from "./local-time.js";

const at = (iso: string) => new Date(iso);

describe("nextLocalTime", () => {
  it("is today's time when it has not passed, tomorrow's once it has", () => {
    // 08:59:57 in Tokyo (UTC+9)
    expect(nextLocalTime(at("2026-03-07T23:59:57Z"), "09:00", "Asia/Tokyo").toISOString()).toBe("2026-03-08T00:00:00.000Z");
    // 09:00:01 in Tokyo: tomorrow
    expect(nextLocalTime(at("2026-03-08T00:00:01Z"), "09:00", "Asia/Tokyo").toISOString()).toBe("2026-03-09T00:00:00.000Z");
    // exactly 09:00 is due now
    expect(nextLocalTime(at("2026-03-08T00:00:00Z"), "09:00", "Asia/Tokyo").toISOString()).toBe("2026-03-08T00:00:00.000Z");
  });

  it("follows New York across its spring-forward day (EST before, EDT after)", () => {
    // 2026-03-08 02:00 EST becomes 03:00 EDT; at 01:00 EST the day's 09:00 is already EDT (13:00Z)
    expect(nextLocalTime(at("2026-03-08T06:00:00Z"), "09:00", "America/New_York").toISOString()).toBe("2026-03-08T13:00:00.000Z");
    // the evening before, still EST: the next 09:00 is the spring day's, EDT
    expect(nextLocalTime(at("2026-03-07T23:00:00Z"), "09:00", "America/New_York").toISOString()).toBe("2026-03-08T13:00:00.000Z");
    // the day before, at 08:00 EST: 14:00Z
    expect(nextLocalTime(at("2026-03-07T13:00:00Z"), "09:00", "America/New_York").toISOString()).toBe("2026-03-07T14:00:00.000Z");
  });

  it("takes a time the spring-forward skips as after the gap, and a repeated fall-back time once (the first)", () => {
    expect(zonedInstant(2026, 3, 8, "02:30", "America/New_York").toISOString()).toBe("2026-03-08T07:30:00.000Z"); // 03:30 EDT
    expect(zonedInstant(2026, 11, 1, "01:30", "America/New_York").toISOString()).toBe("2026-11-01T05:30:00.000Z"); // 01:30 EDT
    expect(zonedInstant(2026, 11, 1, "09:00", "America/New_York").toISOString()).toBe("2026-11-01T14:00:00.000Z"); // EST
  });

  it("rolls over months and years", () => {
    expect(nextLocalTime(at("2026-12-31T12:00:00Z"), "09:00", "UTC").toISOString()).toBe("2027-01-01T09:00:00.000Z");
    expect(nextLocalTime(at("2026-12-31T05:00:00Z"), "09:00", "Asia/Kolkata").toISOString()).toBe("2027-01-01T03:30:00.000Z");
  });
});

describe("quietUntil", () => {
  const night = { from: "21:00", to: "08:00" };

  it("holds a send inside a window that wraps midnight until its end, either side of midnight", () => {
    // 22:00 in Paris (UTC+1 in winter): until 08:00 the next day
    expect(quietUntil(at("2026-01-10T21:00:00Z"), night, "Europe/Paris")?.toISOString()).toBe("2026-01-11T07:00:00.000Z");
    // 03:00 in Paris: until 08:00 the same day
    expect(quietUntil(at("2026-01-11T02:00:00Z"), night, "Europe/Paris")?.toISOString()).toBe("2026-01-11T07:00:00.000Z");
  });

  it("lets a send outside the window go, `from` inclusive and `to` exclusive", () => {
    expect(quietUntil(at("2026-01-11T11:00:00Z"), night, "Europe/Paris")).toBeNull();
    expect(quietUntil(at("2026-01-11T07:00:00Z"), night, "Europe/Paris")).toBeNull(); // 08:00 sharp
    expect(quietUntil(at("2026-01-11T20:00:00Z"), night, "Europe/Paris")?.toISOString()).toBe("2026-01-12T07:00:00.000Z"); // 21:00 sharp
  });

  it("handles a window within one day", () => {
    const lunch = { from: "12:00", to: "14:00" };
    expect(quietUntil(at("2026-06-01T12:30:00Z"), lunch, "UTC")?.toISOString()).toBe("2026-06-01T14:00:00.000Z");
    expect(quietUntil(at("2026-06-01T11:59:00Z"), lunch, "UTC")).toBeNull();
  });

  it("ends a night that spans New York's spring-forward at the EDT morning", () => {
    // 23:00 EST on 2026-03-07: the night ends at 08:00 EDT (12:00Z), an hour shorter than usual
    expect(quietUntil(at("2026-03-08T04:00:00Z"), night, "America/New_York")?.toISOString()).toBe("2026-03-08T12:00:00.000Z");
  });
});

describe("contactZone", () => {
  it("uses data.timezone when it is an IANA zone, the fallback otherwise", () => {
    expect(contactZone({ timezone: "Asia/Tokyo" }, "UTC")).toBe("Asia/Tokyo");
    expect(contactZone({ timezone: "Mars/Olympus" }, "Europe/London")).toBe("Europe/London");
    expect(contactZone({ timezone: 9 }, "UTC")).toBe("UTC");
    expect(contactZone({}, "UTC")).toBe("UTC");
    expect(validZone("")).toBe(false);
  });
});
