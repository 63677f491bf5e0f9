import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Q } from "./db.js";
import { type ClaimingLeaseStore, Lease, LeaseLost, LeaseSet, type LeaseSetStore } from "./lease.js";

/** Leases in memory, as a repository keeps them in a row: a holder token and an expiry. */
function memoryStore() {
  const rows = new Map<string, { token: string | null; until: number }>([["a", { token: null, until: 0 }]]);
  const calls: string[] = [];
  const store: ClaimingLeaseStore<{ id: string }> = {
    async claim(_q, token, ms) {
      for (const [id, row] of rows) {
        if (row.token === null || row.until < Date.now()) {
          rows.set(id, { token, until: Date.now() + ms });
          return { id };
        }
      }
      return null;
    },
    async renew(_q, key, token, ms) {
      calls.push(`renew ${token}`);
      const row = rows.get(key)!;
      if (row.token !== token) return false;
      row.until = Date.now() + ms;
      return true;
    },
    async release(_q, key, token) {
      calls.push(`release ${token}`);
      const row = rows.get(key)!;
      if (row.token === token) rows.set(key, { token: null, until: 0 });
    },
  };
  return { store, rows, calls };
}

const q = {} as Q;
const opts = () => ({ name: "test", ms: 300, log: { warn: vi.fn() } });

describe("Lease", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("claims under a fresh token each time and renews every third of its length while held", async () => {
    const { store, calls } = memoryStore();
    const first = (await Lease.claim(q, store, opts()))!;
    expect(first.row).toEqual({ id: "a" });
    expect(await Lease.claim(q, store, opts())).toBeNull();
    await vi.advanceTimersByTimeAsync(1000);
    expect(calls).toEqual(Array(10).fill(`renew ${first.lease.token}`));
    expect(first.lease.lost).toBe(false);
    await first.lease.release();
    const second = (await Lease.claim(q, store, opts()))!;
    expect(second.lease.token).not.toBe(first.lease.token);
    await second.lease.end();
  });

  it("a holder that stalled past its expiry learns at its next renewal that another took over, and stops", async () => {
    const { store, rows, calls } = memoryStore();
    const stalled = (await Lease.claim(q, store, opts()))!.lease;
    // the stall: no renewal reaches the store while the lease runs out and another holder claims it
    rows.get("a")!.until = Date.now() - 1;
    const successor = (await Lease.claim(q, store, opts()))!.lease;
    expect(stalled.lost).toBe(false);
    const stopped = vi.fn();
    stalled.signal.addEventListener("abort", stopped);
    await vi.advanceTimersByTimeAsync(100);
    expect(stalled.lost).toBe(true);
    expect(stopped).toHaveBeenCalledOnce();
    expect(() => stalled.check()).toThrow(LeaseLost);
    // no renewal after the loss, and no release of what is now the successor's
    await vi.advanceTimersByTimeAsync(1000);
    await stalled.release();
    expect(calls.filter((c) => c.endsWith(stalled.token))).toEqual([`renew ${stalled.token}`]);
    expect(rows.get("a")!.token).toBe(successor.token);
    expect(await successor.renew()).toBe("held");
    await successor.release();
  });

  it("a renewal that fails is warned of and tried again; the lease stays held", async () => {
    const { store } = memoryStore();
    const renew = store.renew;
    let failures = 2;
    store.renew = (...args) => (failures-- > 0 ? Promise.reject(new Error("database away")) : renew(...args));
    const o = opts();
    const { lease } = (await Lease.claim(q, store, o))!;
    await vi.advanceTimersByTimeAsync(300);
    expect(o.log.warn).toHaveBeenCalledOnce();
    expect(lease.lost).toBe(false);
    expect(await lease.renew()).toBe("held");
    await lease.end();
  });

  it("release waits for a renewal in flight, then gives the lease back", async () => {
    const { store, rows, calls } = memoryStore();
    const renew = store.renew;
    let finish!: () => void;
    store.renew = async (...args) => {
      await new Promise<void>((r) => (finish = r));
      return renew(...args);
    };
    const { lease } = (await Lease.claim(q, store, opts()))!;
    await vi.advanceTimersByTimeAsync(100);
    const released = lease.release();
    await vi.advanceTimersByTimeAsync(0);
    expect(calls).toEqual([]);
    finish();
    await released;
    expect(calls).toEqual([`renew ${lease.token}`, `release ${lease.token}`]);
    expect(rows.get("a")!.token).toBeNull();
  });

  it("lose() records what a token-checked write found: check throws and nothing is given back", async () => {
    const { store, calls } = memoryStore();
    const { lease } = (await Lease.claim(q, store, opts()))!;
    lease.lose();
    expect(() => lease.check()).toThrow(/test a: the lease was lost/);
    await vi.advanceTimersByTimeAsync(1000);
    await lease.release();
    expect(calls).toEqual([]);
  });
});

/** Many leases in memory, a row per key as a repository keeps them; `gate` holds renewals back, as a stalled process would. */
function memorySetStore(keys: string[]) {
  const rows = new Map(keys.map((k) => [k, { token: null as string | null, until: 0 }]));
  const renewals: string[][] = [];
  let gate: Promise<void> | undefined;
  const store: LeaseSetStore = {
    async renew(_q, keys, token, ms) {
      await gate;
      renewals.push([...keys]);
      const held = keys.filter((k) => rows.get(k)!.token === token);
      for (const k of held) rows.get(k)!.until = Date.now() + ms;
      return held;
    },
    async release(_q, key, token) {
      const row = rows.get(key)!;
      if (row.token === token) rows.set(key, { token: null, until: 0 });
    },
  };
  /** The claiming statement: every free (or expired) key of `keys`, for `token`. */
  const claim = (keys: string[], token: string, ms: number) =>
    keys.filter((k) => {
      const row = rows.get(k)!;
      if (row.token !== null && row.until >= Date.now()) return false;
      rows.set(k, { token, until: Date.now() + ms });
      return true;
    });
  const stall = () => {
    let resume!: () => void;
    gate = new Promise<void>((r) => (resume = r));
    return () => {
      gate = undefined;
      resume();
    };
  };
  return { store, rows, renewals, claim, stall };
}

describe("LeaseSet", () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date", "performance"] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("renews every key it holds in one statement a beat, under one token, and none once none is held", async () => {
    const { store, renewals, claim, rows } = memorySetStore(["a", "b", "c"]);
    const set = new LeaseSet(q, store, opts());
    const [a, b] = claim(["a", "b"], set.token, 300).map((k) => set.hold(k));
    await vi.advanceTimersByTimeAsync(100);
    expect(renewals).toEqual([["a", "b"]]);
    await a!.end();
    await vi.advanceTimersByTimeAsync(100);
    expect(renewals).toEqual([["a", "b"], ["b"]]);
    await b!.release();
    expect(rows.get("b")!.token).toBeNull();
    await vi.advanceTimersByTimeAsync(1000);
    expect(renewals).toHaveLength(2);
    await set.stop();
  });

  it("a key another holder took is lost alone: its signal aborts, the others stay held", async () => {
    const { store, rows, claim } = memorySetStore(["a", "b"]);
    const o = opts();
    const set = new LeaseSet(q, store, o);
    const [a, b] = claim(["a", "b"], set.token, 300).map((k) => set.hold(k));
    rows.set("b", { token: "successor", until: Date.now() + 10_000 });
    const stopped = vi.fn();
    b!.signal.addEventListener("abort", stopped);
    await vi.advanceTimersByTimeAsync(100);
    expect(stopped).toHaveBeenCalledOnce();
    expect(() => b!.check()).toThrow(LeaseLost);
    expect(a!.lost).toBe(false);
    expect(set.size).toBe(1);
    expect(o.log.warn).toHaveBeenCalledWith({ lost: 1 }, "test leases lost; another holder has taken them over");
    // the lost lease gives back nothing that is now the successor's
    await b!.release();
    expect(rows.get("b")!.token).toBe("successor");
    await a!.end();
    await set.stop();
  });

  it("held() answers from a recent renewal with no round trip; a holder that stalled past its expiry renews first and learns it lost", async () => {
    const { store, rows, renewals, claim, stall } = memorySetStore(["a"]);
    const set = new LeaseSet(q, store, opts());
    const [a] = claim(["a"], set.token, 300).map((k) => set.hold(k));
    expect(await a!.held()).toBe(true);
    await vi.advanceTimersByTimeAsync(150);
    expect(await a!.held()).toBe(true);
    expect(renewals).toEqual([["a"]]);
    // the stall: renewals reach the store no more while the lease runs out and another holder claims it
    const resume = stall();
    await vi.advanceTimersByTimeAsync(400);
    expect(claim(["a"], "successor", 300)).toEqual(["a"]);
    const answer = a!.held();
    resume();
    expect(await answer).toBe(false);
    expect(a!.lost).toBe(true);
    expect(rows.get("a")!.token).toBe("successor");
    await set.stop();
  });

  it("held() is false while the store cannot say, and true again once a renewal gets through", async () => {
    const { store, claim } = memorySetStore(["a"]);
    const renew = store.renew;
    let away = true;
    store.renew = (...args) => (away ? Promise.reject(new Error("database away")) : renew(...args));
    const set = new LeaseSet(q, store, opts());
    const [a] = claim(["a"], set.token, 300).map((k) => set.hold(k));
    await vi.advanceTimersByTimeAsync(250);
    expect(await a!.held()).toBe(false);
    expect(a!.lost).toBe(false);
    away = false;
    expect(await a!.held()).toBe(true);
    await set.stop();
  });

  it("a key claimed again while an earlier holding of it is still in the set loses the earlier one", async () => {
    const { store, claim } = memorySetStore(["a"]);
    const set = new LeaseSet(q, store, opts());
    const [first] = claim(["a"], set.token, 300).map((k) => set.hold(k));
    const again = set.hold("a");
    expect(first!.lost).toBe(true);
    expect(again.lost).toBe(false);
    // the earlier holding's end leaves the later one in the set
    await first!.end();
    expect(set.size).toBe(1);
    expect(await again.renew()).toBe("held");
    await set.stop();
  });
});
