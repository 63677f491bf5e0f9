// A reserved connection whose server process dies: postgres.js 3.4.9 has two ways to lose it that hang
// callers for good. (1) Releasing the dead connection puts it back among the open ones, where the
// next queries go and are never answered (porsager/postgres#1199). (2) A reserve() waiting for a
// connection is handed to the reconnection of the one that died and dropped there: it never settles
// (#1195). After a PostgreSQL restart under load both left the contacts service answering nothing
// (packages/faults/test/postgres-restart.test.ts, 300 s). What must hold: every call settles, and
// the pool works again at once.
import { createServer, type Server, type Socket, connect } from "node:net";
import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DATABASE_URL, dropDatabases, runPrefix, sleep } from "@mailroom/testkit";
import { ensureDatabase, inOneRoundTrip, isConnectionError, openDatabase, withTimeout } from "../src/index.js";
import { serviceDatabaseUrl } from "../src/config.js";

const prefix = runPrefix("reserve");
const dbUrl = serviceDatabaseUrl(DATABASE_URL, prefix, "kit");
let admin: ReturnType<typeof openDatabase>;

beforeAll(async () => {
  await ensureDatabase(dbUrl);
  admin = openDatabase(dbUrl, { max: 1 });
});
afterAll(async () => {
  await admin.end();
  await dropDatabases(DATABASE_URL, prefix);
});

/** Settles within `ms` or fails the test with `what`: the failure these tests guard against is a hang. */
const within = <T>(ms: number, what: string, p: Promise<T>): Promise<T> =>
  withTimeout(p, ms, () => new Error(`${what} did not settle within ${ms} ms`));

const kill = (pid: number) => admin`select pg_terminate_backend(${pid})`;

/** The server process of a reserved connection, asked on that connection. */
async function pidOf(tx: postgres.ReservedSql): Promise<number> {
  const [row] = await tx<{ pid: number }[]>`select pg_backend_pid() as pid`;
  return row!.pid;
}

/**
 * Kills the reserved connection's server process and waits until the client has handled the close.
 * A query can fail first with the server's own 57P01 (or a write to the closing socket); only once
 * the client has run its close handling (the pool's bookkeeping included) does a query on the
 * connection fail as CONNECTION_CLOSED.
 */
async function killReserved(tx: postgres.ReservedSql): Promise<void> {
  await kill(await pidOf(tx));
  await within(5_000, "the client to handle the close", (async () => {
    for (;;) {
      const err = await tx`select 1`.then(() => null, (e: { code?: string }) => e);
      if (err?.code === "CONNECTION_CLOSED") return;
      await sleep(20);
    }
  })());
}

describe("a reserved connection that dies", () => {
  it("once released, does not take the pool's next queries with it (#1199)", async () => {
    const sql = openDatabase(dbUrl, { max: 1 });
    try {
      const tx = await sql.reserve();
      await killReserved(tx);
      tx.release();
      expect(await within(10_000, "a query after the release", sql`select 1 as one`)).toEqual([{ one: 1 }]);
      const [rows] = await within(10_000, "a round trip after it", inOneRoundTrip(sql, (t) => [t`select 2 as two`] as const));
      expect(rows).toEqual([{ two: 2 }]);
    } finally {
      await sql.end({ timeout: 1 });
    }
  });

  it("does not strand a round trip that was waiting for the connection (#1195)", async () => {
    const sql = openDatabase(dbUrl, { max: 1 });
    try {
      const held = await sql.reserve();
      const pid = await pidOf(held);
      // the only connection is reserved: this round trip waits in the pool's queue for one
      const waiting = inOneRoundTrip(sql, (t) => [t`select 3 as three`] as const).then((r) => r, (e: unknown) => e);
      // Its reserve joins the pool's queue with no I/O before it: queued once this turn's callbacks ran.
      await new Promise((r) => setImmediate(r));
      await kill(pid);
      const result = await within(15_000, "the waiting round trip", waiting);
      // it ran on the connection made again, or it failed as "unreachable" (503): never a hang
      if (result instanceof Error) expect(isConnectionError(result), String(result)).toBe(true);
      else expect(result[0]).toEqual([{ three: 3 }]);
      expect(await within(10_000, "a query after it", sql`select 1 as one`)).toEqual([{ one: 1 }]);
    } finally {
      await sql.end({ timeout: 1 });
    }
  });

  it("fails the round trip in flight as unreachable, and the next one runs", async () => {
    const sql = openDatabase(dbUrl, { max: 1 });
    try {
      const marker = `pg_sleep(4.${Date.now() % 1000})`;
      const attempt = inOneRoundTrip(sql, (t) => [t.unsafe(`select ${marker}`)] as const).then((r) => r, (e: unknown) => e);
      const pid = await within(5_000, "the sleeping statement to start", (async () => {
        for (;;) {
          const [row] = await admin<{ pid: number }[]>`select pid from pg_stat_activity where query like ${`%${marker}%`} and pid <> pg_backend_pid()`;
          if (row) return row.pid;
          await sleep(20);
        }
      })());
      await kill(pid);
      const err = await within(10_000, "the round trip", attempt);
      expect(isConnectionError(err), String(err)).toBe(true);
      const [rows] = await within(10_000, "the next round trip", inOneRoundTrip(sql, (t) => [t`select 2 as two`] as const));
      expect(rows).toEqual([{ two: 2 }]);
      expect(await within(10_000, "a query after it", sql`select 1 as one`)).toEqual([{ one: 1 }]);
    } finally {
      await sql.end({ timeout: 1 });
    }
  });

  it("keeps the pool whole when round trips fail while PostgreSQL is unreachable, and works once it is back", async () => {
    const proxy = await startProxy(new URL(dbUrl));
    const url = new URL(dbUrl);
    url.port = String(proxy.port);
    const sql = openDatabase(url.toString(), { max: 1 });
    try {
      expect(await sql`select 1 as one`).toEqual([{ one: 1 }]);
      await proxy.down();
      // each fails fast as unreachable (a reserve whose connection cannot be made)
      for (let i = 0; i < 3; i++) {
        const err = await within(5_000, "a round trip while down", inOneRoundTrip(sql, (t) => [t`select 4`] as const).then((r) => r, (e: unknown) => e));
        expect(isConnectionError(err), String(err)).toBe(true);
      }
      await proxy.up();
      // A failed reserve left in the pool's queue would be handed the first connection made now and keep it.
      const [rows] = await within(10_000, "a round trip once back", inOneRoundTrip(sql, (t) => [t`select 5 as five`] as const));
      expect(rows).toEqual([{ five: 5 }]);
      for (let i = 0; i < 3; i++) expect(await within(5_000, "a query once back", sql`select ${i}::int as i`)).toEqual([{ i }]);
    } finally {
      await sql.end({ timeout: 1 });
      await proxy.down();
    }
  });
});

/** A TCP proxy to PostgreSQL that can refuse connections (and cut the open ones) and accept them again. */
async function startProxy(target: URL): Promise<{ port: number; down(): Promise<void>; up(): Promise<void> }> {
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  let port = 0;
  const listen = () =>
    new Promise<void>((resolve) => {
      server = createServer((client) => {
        const upstream = connect(Number(target.port || 5432), target.hostname);
        for (const s of [client, upstream]) {
          sockets.add(s);
          s.on("close", () => sockets.delete(s));
          s.on("error", () => undefined);
        }
        client.pipe(upstream).pipe(client);
      });
      server.listen(port, "127.0.0.1", () => {
        port = (server!.address() as { port: number }).port;
        resolve();
      });
    });
  await listen();
  return {
    get port() {
      return port;
    },
    down: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        if (!server?.listening) return resolve();
        server.close(() => resolve());
      }),
    up: listen,
  };
}


describe("isConnectionError", () => {
  const coded = (code: string) => Object.assign(new Error(code), { code });
  it("knows the ways a connection ends, also inside drizzle's wrapper, and nothing a query itself did", () => {
    for (const code of ["ECONNREFUSED", "ECONNRESET", "EPIPE", "CONNECTION_CLOSED", "CONNECT_TIMEOUT", "08006", "57P01", "57P02", "57P03"]) {
      expect(isConnectionError(coded(code)), code).toBe(true);
      expect(isConnectionError(Object.assign(new Error("wrapped"), { cause: coded(code) })), `wrapped ${code}`).toBe(true);
    }
    for (const code of ["23505", "42P01", "57014", "22P02", ""]) expect(isConnectionError(coded(code)), code || "no code").toBe(false);
    expect(isConnectionError(undefined)).toBe(false);
  });
});
