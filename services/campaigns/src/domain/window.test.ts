import { describe, expect, it } from "vitest";
import { RateMeter, sendWindow } from "./window.js";

const settings = { seconds: 10, min: 1000, max: 50_000 };

describe("sendWindow", () => {
  it("gives a campaign alone the lane's rate times the seconds", () => {
    expect(sendWindow(settings, { totalRate: 800, projects: 1, projectCampaigns: 1 })).toBe(8000);
  });

  it("splits the queue evenly between projects, then between one project's campaigns", () => {
    expect(sendWindow(settings, { totalRate: 800, projects: 2, projectCampaigns: 1 })).toBe(4000);
    // project A's two campaigns hold what project B's one holds
    expect(sendWindow(settings, { totalRate: 800, projects: 2, projectCampaigns: 2 })).toBe(2000);
  });

  it("keeps the floor while there is no rate yet, and the ceiling however fast the lane goes", () => {
    expect(sendWindow(settings, { totalRate: 0, projects: 1, projectCampaigns: 1 })).toBe(1000);
    expect(sendWindow(settings, { totalRate: 800, projects: 20, projectCampaigns: 1 })).toBe(1000);
    expect(sendWindow(settings, { totalRate: 1e6, projects: 1, projectCampaigns: 1 })).toBe(50_000);
  });

  it("treats an empty lane (a campaign whose own lease the query missed) as one project, one campaign", () => {
    expect(sendWindow(settings, { totalRate: 300, projects: 0, projectCampaigns: 0 })).toBe(3000);
  });
});

describe("RateMeter", () => {
  it("keeps the starting rate until a second of samples exists", () => {
    const meter = new RateMeter(300);
    expect(meter.add(0, 0)).toBe(300);
    expect(meter.add(500, 400)).toBe(300);
    expect(meter.add(1000, 500)).toBe(500);
  });

  it("measures over the last span only, so a campaign that slows down is seen slowing", () => {
    const meter = new RateMeter(0, 5000);
    for (let s = 0; s <= 10; s++) meter.add(s * 1000, s * 1000); // 1000/s for 10 s
    expect(meter.current()).toBe(1000);
    for (let s = 11; s <= 16; s++) meter.add(s * 1000, 10_000 + (s - 10) * 100); // then 100/s
    expect(meter.current()).toBe(100);
  });

  it("never answers a negative rate", () => {
    const meter = new RateMeter(0);
    meter.add(0, 100);
    expect(meter.add(2000, 50)).toBe(0);
  });
});
