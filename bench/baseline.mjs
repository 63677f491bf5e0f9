// A benchmark's baseline route, in a process of its own: `node bench/baseline.mjs <kind>` prints its
// port and serves until SIGTERM. lib.mjs startBaseline() runs it.
//
// Why a process of its own: the load generator (autocannon) runs in the bench process. A baseline
// route served from there shares one event loop with the load generator, while the path measured
// against it gets processes of its own; on this machine that held a bare fastify route to about half
// of what it serves alone (30,000 against 60,000 req/s), and every ratio looked twice as good.
//
// Kinds (each does in-process what the measured path does over NATS):
//   json      GET /contacts answers an empty page (bench/gateway.mjs)
//   redirect  GET /t/c/:token answers the 302 (bench/engagement.mjs)
//   track     POST /track upserts a contact and inserts its event (bench/contacts.mjs);
//             BASELINE_DATABASE_URL, BASELINE_PROJECT_ID
//   send      POST /send inserts the body and publishes a job on JetStream (bench/send.mjs);
//             DATABASE_URL, NATS_URL, BASELINE_PREFIX
import Fastify from "fastify";

const kind = process.argv[2];
const app = Fastify({ logger: false });
const cleanups = [];

if (kind === "json") {
  app.get("/contacts", async () => ({ data: [], cursor: null, hasMore: false, total: 0 }));
} else if (kind === "redirect") {
  app.get("/t/c/:token", async (_req, reply) => reply.code(302).header("location", "https://shop.example/p?id=1").send());
} else if (kind === "track") {
  const { default: postgres } = await import("postgres");
  const { v7 } = await import("uuid");
  const sql = postgres(process.env.BASELINE_DATABASE_URL, { max: 20, onnotice: () => undefined });
  cleanups.push(() => sql.end());
  const project = process.env.BASELINE_PROJECT_ID;
  app.post("/track", async (req) => {
    const { email, event, data } = req.body;
    const now = new Date().toISOString();
    const [c] = await sql`
      insert into contacts (id, project_id, email, subscribed, data, created_at, updated_at)
      values (${v7()}, ${project}, ${email}, true, ${sql.json(data)}, ${now}, ${now})
      on conflict (project_id, lower(email)) do update set data = contacts.data || excluded.data, updated_at = excluded.updated_at
      returning id`;
    const id = v7();
    await sql`insert into contact_events (id, project_id, contact_id, name, data, created_at) values (${id}, ${project}, ${c.id}, ${event}, ${sql.json(data)}, ${now})`;
    return { success: true, data: { contact: c.id, event: id, timestamp: now } };
  });
} else if (kind === "send") {
  const { default: postgres } = await import("postgres");
  const { connect } = await import("@nats-io/transport-node");
  const { jetstream, jetstreamManager } = await import("@nats-io/jetstream");
  const prefix = process.env.BASELINE_PREFIX;
  const table = `${prefix}_bench`;
  const sql = postgres(process.env.DATABASE_URL, { max: 10, onnotice: () => undefined });
  await sql.unsafe(`create table if not exists ${table} (id uuid primary key, body jsonb not null)`);
  const nc = await connect({ servers: process.env.NATS_URL });
  const jsm = await jetstreamManager(nc);
  const stream = `${prefix.toUpperCase()}_BENCH`;
  await jsm.streams.add({ name: stream, subjects: [`${prefix}.bench.>`], retention: "workqueue" });
  const js = jetstream(nc);
  cleanups.push(async () => {
    await jsm.streams.delete(stream).catch(() => undefined);
    await sql.unsafe(`drop table if exists ${table}`);
    await sql.end();
    await nc.close();
  });
  app.post("/send", async (req) => {
    const id = crypto.randomUUID();
    await sql`insert into ${sql(table)} (id, body) values (${id}, ${JSON.stringify(req.body)}::text::jsonb)`;
    await js.publish(`${prefix}.bench.job`, JSON.stringify({ id }), { msgID: id });
    return { id };
  });
} else {
  console.error(`baseline.mjs: unknown kind ${kind} (json, redirect, track, send)`);
  process.exit(2);
}

await app.listen({ port: 0, host: "127.0.0.1" });
process.stdout.write(`${app.server.address().port}\n`);
process.on("SIGTERM", async () => {
  await app.close();
  for (const cleanup of cleanups) await cleanup();
  process.exit(0);
});
