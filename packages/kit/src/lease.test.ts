import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Q } from "./db.js";
import { type ClaimingLeaseStore, Lease, LeaseLost } from "./lease.js";

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
