// Child process for the SIGKILL test: commits outbox rows one transaction at a time and relays
// them concurrently, printing how many transactions have committed, until it is killed. Both paths
// run: each commit's rows are published directly, and a fast poll with a short age races them.
import { connect } from "@nats-io/transport-node";
import { jetstream } from "@nats-io/jetstream";
import { wireNames } from "@mailroom/contracts";
import { createLogger, createMetrics, enqueue, eventMessage, newId, openDatabase, OutboxRelay } from "@mailroom/kit";

const names = wireNames(process.env.OUTBOX_PREFIX);
const sql = openDatabase(process.env.OUTBOX_DB, { max: 4 });
const nc = await connect({ servers: process.env.NATS_URL });
const relay = new OutboxRelay(sql, jetstream(nc), createLogger("writer", "silent"), createMetrics("writer"), { intervalMs: 5, leftoverAgeMs: 20 });
relay.start();
for (let i = 1; ; i++) {
  const e = { id: newId(), projectId: newId(), name: "tick", family: "custom", contactId: null, email: null, data: { i }, occurredAt: new Date().toISOString() };
  relay.kick(await sql.begin((tx) => enqueue(tx, [eventMessage(names, e)])));
  process.stdout.write(`${i}\n`);
}
