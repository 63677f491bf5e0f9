import { describe, expect, it, onTestFinished } from "vitest";
import { freePort } from "@mailroom/testkit";
import { connectRedis, createRedis, REDIS_WARNING_INTERVAL_MS, redisUnavailableWarning } from "../src/redis.js";
import type { Logger } from "../src/logger.js";
import { warnEvery } from "../src/warn-every.js";

type Line = { obj: { err: string; suppressed?: number }; msg: string; at: number };

/** A logger that records its warnings with the (fake) time they were written. */
function recorder(clock: { now: number }) {
  const lines: Line[] = [];
  const warn = (obj: Line["obj"], msg: string) => void lines.push({ obj, msg, at: clock.now });
  return { lines, log: { warn } as unknown as Pick<Logger, "warn"> };
}

describe("the Redis unavailable warning", () => {
  it("repeats every 10 s for as long as Redis stays down, not once per outage", async () => {
    // A real client pointed at a port nothing listens on: its commands fail as in an outage.
    const redis = createRedis(`redis://127.0.0.1:${await freePort()}`);
    await connectRedis(redis);
    onTestFinished(() => redis.disconnect());
    const clock = { now: 1_000_000 };
    const { lines, log } = recorder(clock);
    const warn = redisUnavailableWarning(log, "rate limits not enforced", () => clock.now);

    // A minute of failing commands, one a second: the gateway under steady traffic with Redis down.
    for (let s = 0; s < 60; s++) {
      const err = await redis.ping().then(
        () => null,
        (e: unknown) => e,
      );
      expect(err, "Redis on a closed port must fail").toBeInstanceOf(Error);
      warn(err);
      clock.now += 1000;
    }

    expect(REDIS_WARNING_INTERVAL_MS).toBe(10_000);
    expect(lines.map((l) => l.at - 1_000_000)).toEqual([0, 10_000, 20_000, 30_000, 40_000, 50_000]);
    expect(lines.every((l) => l.msg === "redis unavailable: rate limits not enforced")).toBe(true);
    expect(lines[0]!.obj.suppressed).toBeUndefined();
    // The nine failures between two lines are counted on the next one, not lost.
    expect(lines.slice(1).map((l) => l.obj.suppressed)).toEqual([9, 9, 9, 9, 9]);
    expect(lines[0]!.obj.err).toMatch(/\w/);
  });
});

describe("warnEvery", () => {
  it("writes at once, then at most once per interval, however the failures are spaced", () => {
    const clock = { now: 0 };
    const { lines, log } = recorder(clock);
    const warn = warnEvery(log, 10_000, "down", () => clock.now);
    for (const t of [0, 9_999, 10_000, 10_001, 25_000, 25_500, 60_000]) {
      clock.now = t;
      warn(new Error("x"));
    }
    expect(lines.map((l) => [l.at, l.obj.suppressed])).toEqual([
      [0, undefined],
      [10_000, 1],
      [25_000, 1],
      [60_000, 1],
    ]);
  });
});
