// npm run bench -- email-activity
// The contacts service's share of a campaign: N seeded contacts get an email.sent and an
// email.delivery each (2N events, as the sending service emits them) published straight onto the
// EVENTS stream; the bench waits until the email_activity projection holds all of them and the
// contact changes they emitted were consumed by the segment tracker, and reports the contacts
// process's CPU per email (two events), with the part spent until the projection was complete (the
// rest is the tracker working through the contact changes). BENCH_RECIPIENTS sets N.
import { randomUUID } from "node:crypto";
import postgres from "postgres";
import { connect } from "@nats-io/transport-node";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { wireNames } from "@mailroom/contracts";
import { DATABASE_URL, NATS_URL, Platform } from "@mailroom/testkit";
import { BENCH_ENV, cpuSeconds, machine, writeResult, profiled, size } from "./lib.mjs";

const N = size("BENCH_RECIPIENTS", 5000, 200);
const platform = new Platform({ services: ["contacts"], env: { ...BENCH_ENV }, serviceEnv: profiled() });

async function seed(sql, projectId) {
  const now = new Date().toISOString();
  const ids = Array.from({ length: N }, () => randomUUID());
  const writable = await sql`copy contacts (id, project_id, email, subscribed, data, created_at, updated_at) from stdin`.writable();
  const done = new Promise((resolve, reject) => writable.on("finish", resolve).on("error", reject));
  for (const [i, id] of ids.entries()) writable.write(`${id}\t${projectId}\tr${i}@bench.example.com\tt\t{"firstName":"Ann${i}"}\t${now}\t${now}\n`);
  writable.end();
  await done;
  await sql`analyze contacts`;
  return ids;
}

function envelope(projectId, contactId, emailId, name) {
  return {
    id: randomUUID(),
    projectId,
    name,
    family: "email",
    contactId,
    email: null,
    data: { emailId, subject: "Hi", from: "a@b.co", fromName: "", messageId: "m", templateId: null, campaignId: null, sourceType: "CAMPAIGN" },
    occurredAt: new Date().toISOString(),
  };
}

async function until(what, check, timeoutMs = 600_000) {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

await platform.start();
const nc = await connect({ servers: NATS_URL });
const url = new URL(DATABASE_URL);
url.pathname = `/${platform.prefix}_contacts`;
const sql = postgres(url.toString(), { max: 2, onnotice: () => undefined });
try {
  const names = wireNames(platform.prefix);
  const js = jetstream(nc);
  const jsm = await jetstreamManager(nc);
  const projectId = randomUUID();
  const contacts = await seed(sql, projectId);
  const events = contacts.flatMap((c) => {
    const emailId = randomUUID();
    return [envelope(projectId, c, emailId, "email.sent"), envelope(projectId, c, emailId, "email.delivery")];
  });
  const pid = platform.procs.get("contacts")[0].child.pid;
  const cpuBefore = cpuSeconds(pid);
  const started = Date.now();
  const subject = names.subjects.event("email", projectId);
  for (let i = 0; i < events.length; i += 500) {
    await Promise.all(events.slice(i, i + 500).map((e) => js.publish(subject, JSON.stringify(e), { msgID: e.id })));
  }
  await until("the activity rows", async () => (await sql`select count(*)::int as n from email_activity`)[0].n >= events.length);
  const projected = Date.now();
  const projectionCpu = cpuSeconds(pid) - cpuBefore;
  await until("the tracker to drain", async () => {
    const [{ n }] = await sql`select count(*)::int as n from outbox`;
    const i = await jsm.consumers.info(names.streams.contactChanges.name, names.consumers.segmentsChanges);
    return n === 0 && i.num_pending === 0 && i.num_ack_pending === 0;
  });
  const drained = Date.now();
  const cpu = cpuSeconds(pid) - cpuBefore;
  const result = {
    recipients: N,
    events: events.length,
    projectSeconds: (projected - started) / 1000,
    drainSeconds: (drained - started) / 1000,
    contactsCpuSeconds: +cpu.toFixed(2),
    projectionCpuSeconds: +projectionCpu.toFixed(2),
    cpuMsPerEmail: +((cpu * 1000) / N).toFixed(3),
    cpuMsPerEvent: +((cpu * 1000) / events.length).toFixed(3),
  };
  const md = [
    `${N} seeded contacts, one email.sent and one email.delivery each (${events.length} events) published onto EVENTS;`,
    "measured until the email_activity projection held them all and the segment tracker consumed every contact change.",
    "",
    "| events | projected in s | events/s | CPU s until projected | drained in s | contacts CPU s | CPU ms / email | CPU ms / event |",
    "|---|---|---|---|---|---|---|---|",
    `| ${events.length} | ${result.projectSeconds} | ${Math.round(events.length / result.projectSeconds)} | ${result.projectionCpuSeconds} | ${result.drainSeconds} | ${result.contactsCpuSeconds} | ${result.cpuMsPerEmail} | ${result.cpuMsPerEvent} |`,
    "",
    machine(),
  ].join("\n");
  writeResult("email-activity", result, md);
} finally {
  await sql.end({ timeout: 1 });
  await nc.close();
  await platform.destroy();
}
process.exit(0);
