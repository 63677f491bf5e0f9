import { describe, expect, it } from "vitest";
import { Batcher } from "../src/batcher.js";

const tick = () => new Promise((r) => setTimeout(r, 5));

describe("Batcher (group commit)", () => {
  it("runs a lone call at once, and gathers the calls made meanwhile into the next batch", async () => {
    const batches: number[][] = [];
    const b = new Batcher<number, number>(async (items) => {
      batches.push(items);
      await tick();
      return items.map((i) => i * 10);
    }, { maxBatch: 3 });
    const first = b.add(1);
    const rest = [2, 3, 4, 5, 6].map((i) => b.add(i));
    expect(await first).toBe(10);
    expect(await Promise.all(rest)).toEqual([20, 30, 40, 50, 60]);
    expect(batches).toEqual([[1], [2, 3, 4], [5, 6]]);
  });

  it("rejects every call of a failed batch and goes on with the next", async () => {
    let calls = 0;
    const b = new Batcher<string, string>(async (items) => {
      calls++;
      await tick();
      if (items.includes("bad")) throw new Error("boom");
      return items.map((s) => s.toUpperCase());
    }, { maxBatch: 10 });
    const lone = b.add("ok");
    const results = await Promise.allSettled([b.add("x"), b.add("bad")]);
    expect(await lone).toBe("OK");
    expect(results.map((r) => r.status)).toEqual(["rejected", "rejected"]);
    expect(await b.add("y")).toBe("Y");
    expect(calls).toBe(3);
  });

  it("keeps at most maxInFlight batches running", async () => {
    let running = 0;
    let most = 0;
    const b = new Batcher<number, number>(async (items) => {
      most = Math.max(most, ++running);
      await tick();
      running--;
      return items;
    }, { maxBatch: 1, maxInFlight: 2 });
    await Promise.all(Array.from({ length: 8 }, (_, i) => b.add(i)));
    expect(most).toBe(2);
  });

  it("with startNextTurn, gathers the calls of every callback of this turn into one batch", async () => {
    const batches: number[][] = [];
    const b = new Batcher<number, number>(async (items) => {
      batches.push(items);
      return items.map((i) => i + 1);
    }, { maxBatch: 10, startNextTurn: true });
    // three immediates run in one check phase, each followed by a microtask checkpoint (three timers
    // of 1 ms were not always due in the same timers phase on a loaded machine)
    const got = await new Promise<number[]>((resolve) => {
      const calls: Promise<number>[] = [];
      for (const i of [1, 2, 3]) setImmediate(() => void calls.push(b.add(i)));
      setTimeout(() => void Promise.all(calls).then(resolve), 20);
    });
    expect(got).toEqual([2, 3, 4]);
    expect(batches).toEqual([[1, 2, 3]]);
  });

  it("with lingerMs, gathers a trickle of calls into one batch, and starts a full batch at once", async () => {
    const batches: number[][] = [];
    const b = new Batcher<number, number>(async (items) => {
      batches.push(items);
      return items;
    }, { maxBatch: 4, lingerMs: 400 });
    const trickle = [1, 2, 3].map((i) => new Promise<number>((r) => setTimeout(() => void b.add(i).then(r), i * 10)));
    const started = Date.now();
    expect(await Promise.all(trickle)).toEqual([1, 2, 3]);
    expect(batches).toEqual([[1, 2, 3]]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(395);

    // a linger long enough that a loaded machine's delays never pass for it
    const full = Date.now();
    expect(await Promise.all([4, 5, 6, 7].map((i) => b.add(i)))).toEqual([4, 5, 6, 7]);
    expect(batches.at(-1)).toEqual([4, 5, 6, 7]);
    expect(Date.now() - full).toBeLessThan(300);
  });

  it("with lingerMs, a call made while a batch is in flight waits for its own linger, not for that batch's end", async () => {
    const batches: number[][] = [];
    let finishFirst!: () => void;
    const firstDone = new Promise<void>((r) => (finishFirst = r));
    const b = new Batcher<number, number>(async (items) => {
      batches.push(items);
      if (batches.length === 1) await firstDone;
      return items;
    }, { maxBatch: 10, lingerMs: 40 });
    const first = b.add(1);
    await new Promise((r) => setTimeout(r, 50)); // the first batch is in flight
    const second = b.add(2);
    finishFirst();
    await first;
    await new Promise((r) => setImmediate(r)); // past the first batch's end
    const third = b.add(3);
    expect(await Promise.all([second, third])).toEqual([2, 3]);
    // 2 was not sent alone when the first batch ended: it lingered and took 3 with it
    expect(batches).toEqual([[1], [2, 3]]);
  });

  it("with splitOnError, retries a failed batch item by item so only the bad item fails", async () => {
    const batches: string[][] = [];
    const b = new Batcher<string, string>(async (items) => {
      batches.push(items);
      await tick();
      if (items.includes("bad")) throw new Error("boom");
      return items.map((s) => s.toUpperCase());
    }, { maxBatch: 10, startNextTurn: true, splitOnError: true });
    const results = await Promise.allSettled(["x", "bad", "z"].map((s) => b.add(s)));
    expect(results.map((r) => (r.status === "fulfilled" ? r.value : (r.reason as Error).message))).toEqual(["X", "boom", "Z"]);
    expect(batches[0]).toEqual(["x", "bad", "z"]);
    expect(batches.slice(1).sort()).toEqual([["bad"], ["x"], ["z"]]);
    // a lone failing item is not run twice
    await expect(b.add("bad")).rejects.toThrow("boom");
    expect(batches.length).toBe(5);
  });
});
