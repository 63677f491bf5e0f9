import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectRedis, createLogger, createRedis, type Redis } from "@mailroom/kit";
import { REDIS_URL } from "@mailroom/testkit";
import { ProjectThrottle } from "../src/delivery/throttle.js";

const RATE = 20;
/** Bulk jobs still waiting once the burst is spent. */
const BEHIND = 60;

/**
 * With SEND_RATE_PER_PROJECT set, a project's campaign jobs queue for its bucket's tokens; its
 * transactional mail must not take its turn behind all of them.
 */
describe("the per-project rate with both lanes waiting", () => {
  let redis: Redis;
  let throttle: ProjectThrottle;

  beforeAll(async () => {
    redis = createRedis(REDIS_URL);
    await connectRedis(redis);
    throttle = new ProjectThrottle(redis, `mrt_lanes_${randomBytes(4).toString("hex")}`, RATE, createLogger("sending", "silent"));
  });
  afterAll(() => redis?.disconnect());

  it("grants a transactional job the next token while the project's bulk jobs wait for theirs", async () => {
    const project = "0190a3c2-0000-7000-8000-00000000a11e";
    const order: string[] = [];
    const wait = (name: string, lane: "bulk" | "transactional") => throttle.wait(project, lane, () => undefined).then(() => order.push(name));
    // One second of burst goes to the first bulk jobs; the others wait for refills (RATE a second).
    const bulk = Array.from({ length: RATE + BEHIND }, (_, i) => wait(`bulk${i}`, "bulk"));
    while (order.length < RATE) await new Promise((r) => setTimeout(r, 10));
    const transactional = wait("reset", "transactional");
    await transactional;
    // Racing the waiting bulk jobs for each refill it would come anywhere among them; first in
    // line, it gets one of the next few tokens (a bulk job already asking Redis may take one).
    expect(order.indexOf("reset")).toBeLessThanOrEqual(RATE + 3);
    await Promise.all(bulk);
    expect(order).toHaveLength(RATE + BEHIND + 1);
  }, 30_000);
});
