// inOneRoundTrip: BEGIN, the statements and COMMIT in one socket write. What must hold: it is one
// write (the reason it exists), all of the statements commit or none does, the first failure is what
// the caller sees, and the connection goes back to the pool outside any transaction.
import { connect } from "node:net";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DATABASE_URL, dropDatabases, runPrefix, waitFor } from "@mailroom/testkit";
import { ensureDatabase, inOneRoundTrip, openDatabase } from "../src/index.js";
import { serviceDatabaseUrl } from "../src/config.js";

const prefix = runPrefix("onetrip");
const dbUrl = serviceDatabaseUrl(DATABASE_URL, prefix, "kit");
let sql: ReturnType<typeof openDatabase>;

beforeAll(async () => {
  await ensureDatabase(dbUrl);
  // one connection: every call below reuses the connection the previous one gave back
  sql = openDatabase(dbUrl, { max: 1 });
  await sql`create table notes (id int primary key, body text not null)`;
});
afterAll(async () => {
  await sql.end();
  await dropDatabases(DATABASE_URL, prefix);
});

const ids = async () => (await sql<{ id: number }[]>`select id from notes order by id`).map((r) => r.id);
// SAVEPOINT fails outside a transaction block; inside one (a connection left in a transaction) it works
const inTransaction = () => sql`savepoint probe`.then(() => true, () => false);

describe("inOneRoundTrip", () => {
  it("sends BEGIN, the statements and COMMIT in one socket write, where sql.begin needs three", async () => {
    let writes = 0;
    const { hostname, port } = new URL(dbUrl);
    // a client whose socket counts the driver's writes
    const counted = postgres(dbUrl, {
      max: 1,
      onnotice: () => undefined,
      socket: () => {
        const socket = connect(Number(port || 5432), hostname);
        const write = socket.write.bind(socket) as (...args: unknown[]) => boolean;
        socket.write = ((...args: unknown[]) => {
          writes++;
          return write(...args);
        }) as typeof socket.write;
        return socket;
      },
    });
    try {
      await counted`select 1`; // connected: the start-up and authentication writes are behind us
      writes = 0;
      const [one, two] = await inOneRoundTrip(counted, (tx) => [tx`select 1 as one`, tx`select 2 as two`] as const);
      expect([one[0]!.one, two[0]!.two]).toEqual([1, 2]);
      expect(writes).toBe(1);
      // the driver's own pipelined transaction waits for BEGIN, then for the statements, then COMMIT
      writes = 0;
      await counted.begin((tx) => [tx`select 1`, tx`select 2`]);
      expect(writes).toBe(3);
    } finally {
      await counted.end();
    }
  });

  it("commits every statement and answers each one's result in order", async () => {
    const [first, second] = await inOneRoundTrip(sql, (tx) => [
      tx`insert into notes values (1, 'a') returning id`,
      tx<{ n: number }[]>`select count(*)::int as n from notes`,
    ] as const);
    expect(first.map((r) => r.id)).toEqual([1]);
    // the second statement ran after the first, in its transaction
    expect(second[0]!.n).toBe(1);
    expect(await ids()).toEqual([1]);
    expect(await inTransaction()).toBe(false);
  });

  it("writes nothing when a later statement fails, and throws that failure", async () => {
    const attempt = inOneRoundTrip(sql, (tx) => [tx`insert into notes values (2, 'b')`, tx`insert into notes values (1, 'duplicate')`] as const);
    await expect(attempt).rejects.toMatchObject({ code: "23505" });
    expect(await ids()).toEqual([1]);
    expect(await inTransaction()).toBe(false);
  });

  it("refuses a statement started before it was handed over, and sends nothing", async () => {
    let early: Promise<unknown> | undefined;
    const attempt = inOneRoundTrip(sql, (tx) => {
      const q = tx`insert into notes values (8, 'h')`;
      early = q.execute();
      return [q] as const;
    });
    await expect(attempt).rejects.toThrow(/not yet started/);
    await early;
    expect(await inTransaction()).toBe(false);
    await sql`delete from notes where id = 8`;
  });

  it("throws the first failure, not the aborted statements after it", async () => {
    const attempt = inOneRoundTrip(sql, (tx) => [tx`insert into notes values (3, null)`, tx`insert into notes values (4, 'd')`] as const);
    await expect(attempt).rejects.toMatchObject({ code: "23502" });
    expect(await ids()).toEqual([1]);
  });

  it("sends nothing when building the statements throws", async () => {
    const attempt = inOneRoundTrip(sql, () => {
      throw new Error("bad input");
    });
    await expect(attempt).rejects.toThrow("bad input");
    expect(await inTransaction()).toBe(false);
    await inOneRoundTrip(sql, (tx) => [tx`insert into notes values (5, 'e')`] as const);
    expect(await ids()).toEqual([1, 5]);
  });

  it("holds a lock taken by its first statement until the commit", async () => {
    const other = openDatabase(dbUrl, { max: 1 });
    const gate = openDatabase(dbUrl, { max: 1 });
    const advisory = (key: number, granted: boolean) =>
      other`select 1 from pg_locks where locktype = 'advisory' and objid = ${key} and granted = ${granted}`.then((r) => r.length === 1);
    try {
      // The second statement waits for a lock the test holds, so the transaction stays open after its
      // first statement for as long as the test looks, with no time to guess.
      await gate`select pg_advisory_lock(43)`;
      const waiting = inOneRoundTrip(sql, (tx) => [tx`select pg_advisory_xact_lock(42)`, tx`select pg_advisory_xact_lock(43)`] as const);
      await waitFor(async () => (await advisory(43, false)) && (await advisory(42, true)), {
        timeoutMs: 5000,
        what: "the transaction holding its first lock, waiting at its second",
      });
      // the lock is held by the transaction while it runs: a try from elsewhere fails
      const [{ got }] = await other<{ got: boolean }[]>`select pg_try_advisory_xact_lock(42) as got`;
      expect(got).toBe(false);
      await gate`select pg_advisory_unlock(43)`;
      await waiting;
      const [{ got: after }] = await other<{ got: boolean }[]>`select pg_try_advisory_xact_lock(42) as got`;
      expect(after).toBe(true);
    } finally {
      await gate.end();
      await other.end();
    }
  });
});
