import { beforeAll } from "vitest";
import { verifyDomain } from "@mailroom/testkit";
import { type DemoData, demoData } from "@mailroom/testkit/browser";
import { type BrowserFixture, browserAndOwner } from "./fixture.js";

/**
 * An owner whose project holds a bit of everything (`demoData`), for the tours that visit every
 * dashboard page: read `data()` inside tests.
 */
export function ownerWithDemoData(): BrowserFixture & { data(): DemoData } {
  const fx = browserAndOwner();
  let data: DemoData | undefined;
  beforeAll(async () => {
    // the operator's override: the test DNS server publishes no records for this project's domain
    await verifyDomain(fx.platform.env, fx.owner.projectId, "example.com");
    data = await demoData(fx.platform.url, fx.owner.secretKey, { from: "hello@example.com" });
  }, 60_000);
  return Object.assign(fx, {
    data: () => {
      if (!data) throw new Error("the demo data is made in beforeAll");
      return data;
    },
  });
}
