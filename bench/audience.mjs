// npm run bench -- audience
// CSV import and export of BENCH_ROWS contacts (default 1,000,000): email plus three data columns,
// 5% of the addresses already contacts, a tracked segment on one column. Import rows/s (from the
// first byte of the upload to COMPLETED) beside two COPYs in the same run: `psql \copy` of the same
// file into a bare table, and `psql \copy` of the same rows, already made into contact rows, into a
// table shaped and indexed like `contacts` (its trigram index included), the comparable baseline;
// the load phase's own rows/s (from the import's phase turning `loading` to its rows staged, read
// from contact_imports); then the export of the same project streamed back (rows/s, time to first byte).
// Memory: peak RSS of the gateway and contacts after a warm-up import of a tenth of the rows and
// after the full file, and their largest resident size sampled during each phase: flat means the
// full file costs no more than the tenth.
import http from "node:http";
import { createReadStream, createWriteStream, mkdirSync, statSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { Platform } from "@mailroom/testkit";
import { newId } from "@mailroom/kit";
import { BENCH_ENV, peakRssMb, profiled, serviceDb, writeResult, size } from "./lib.mjs";

const ROWS = size("BENCH_ROWS", 1_000_000, 2000);
const WARM_ROWS = Math.max(1000, Math.floor(ROWS / 10));
const EXISTING_EVERY = 20; // 5%
const PLANS = ["free", "pro", "team", "enterprise"];
const dir = ".mailroom/bench";
mkdirSync(dir, { recursive: true });

/**
 * The same rows as contact rows (COPY text: id, project, email, subscribed, data, created, updated),
 * as the import writes them: every column but email in `data`, as text.
 */
async function writeContactRows(path, rows, domain, projectId) {
  const out = createWriteStream(path);
  const now = new Date().toISOString();
  let buf = "";
  for (let i = 0; i < rows; i++) {
    const data = JSON.stringify({ plan: PLANS[i % 4], city: `City ${i % 997}`, score: String(i % 1000) });
    buf += `${newId()}\t${projectId}\tu${i}@${domain}\tt\t${data}\t${now}\t${now}\n`;
    if (buf.length > 1 << 20) {
      if (!out.write(buf)) await once(out, "drain");
      buf = "";
    }
  }
  out.end(buf);
  await once(out, "finish");
}

/** The benchmark's CSV: `u<i>@<domain>`, plan (the tracked segment's column), city, score. */
async function writeCsv(path, rows, domain) {
  const out = createWriteStream(path);
  let buf = "email,plan,city,score\n";
  for (let i = 0; i < rows; i++) {
    buf += `u${i}@${domain},${PLANS[i % 4]},City ${i % 997},${i % 1000}\n`;
    if (buf.length > 1 << 20) {
      if (!out.write(buf)) await once(out, "drain");
      buf = "";
    }
  }
  out.end(buf);
  await once(out, "finish");
}

const currentRssMb = (pid) => {
  try {
    return Math.round(Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) / 1024);
  } catch {
    return null;
  }
};

/**
 * Largest resident size of each process while `fn` runs (sampled every 250 ms), in all and per
 * quarter of the run: a process whose memory grows with the file shows it quarter after quarter.
 */
async function sampledRss(pids, fn) {
  const samples = [];
  const started = performance.now();
  const timer = setInterval(() => {
    samples.push({ t: performance.now() - started, ...Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, currentRssMb(pid) ?? 0])) });
  }, 250);
  try {
    const result = await fn();
    const total = performance.now() - started;
    const rssMb = {};
    const quartersMb = {};
    for (const k of Object.keys(pids)) {
      rssMb[k] = Math.max(0, ...samples.map((x) => x[k]));
      quartersMb[k] = [0, 1, 2, 3].map((q) => Math.max(0, ...samples.filter((x) => x.t >= (q * total) / 4 && x.t < ((q + 1) * total) / 4).map((x) => x[k])));
    }
    return { result, rssMb, quartersMb };
  } finally {
    clearInterval(timer);
  }
}

function request(method, url, key, { body, headers = {} } = {}) {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers: { authorization: `Bearer ${key}`, ...headers } }, (res) => resolve(res));
    req.on("error", reject);
    if (body) body.pipe(req);
    else req.end();
  });
}
async function json(res) {
  let text = "";
  for await (const d of res) text += d;
  return JSON.parse(text);
}

/**
 * Uploads `path`, waits for COMPLETED; times from the first byte sent. `phase(id)` reads the import's
 * phase from the database: when loading started and when its rows were staged (50 ms resolution).
 */
async function importFile(base, key, path, phase) {
  const started = performance.now();
  const res = await request("POST", `${base}/contacts/imports`, key, {
    body: createReadStream(path, { highWaterMark: 256 * 1024 }),
    headers: { "content-type": "text/csv", "content-length": String(statSync(path).size) },
  });
  const accepted = await json(res);
  if (res.statusCode !== 202) throw new Error(`import: ${res.statusCode} ${JSON.stringify(accepted)}`);
  const acceptedMs = performance.now() - started;
  // the first answer with a contact written: loading (parse + COPY into staging) is over
  let applyFromMs = null;
  let loadingFromMs = null;
  let stagedMs = null;
  for (;;) {
    const now = await phase(accepted.id);
    const at = performance.now() - started;
    if (loadingFromMs === null && now !== "queued") loadingFromMs = at;
    if (stagedMs === null && (now === "applying" || now === "done")) stagedMs = at;
    const r = await request("GET", `${base}/contacts/imports/${accepted.id}`, key);
    const body = await json(r);
    if (applyFromMs === null && body.created + body.updated > 0) applyFromMs = performance.now() - started;
    if (body.status !== "RUNNING") return { ...body, acceptedMs, applyFromMs, loadingFromMs, stagedMs, totalMs: performance.now() - started };
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Streams the export and counts its rows; time to first byte and in all. */
async function exportAll(base, key) {
  const started = performance.now();
  const res = await request("GET", `${base}/contacts/export`, key);
  if (res.statusCode !== 200) throw new Error(`export: ${res.statusCode}`);
  let firstByteMs = null;
  let lines = 0;
  let bytes = 0;
  for await (const chunk of res) {
    firstByteMs ??= performance.now() - started;
    bytes += chunk.length;
    for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
  }
  return { rows: lines - 1, bytes, firstByteMs, totalMs: performance.now() - started };
}

// BENCH_IMPORT_BATCH sets the contacts service's IMPORT_BATCH_ROWS (default 5000), for comparing.
const batchEnv = process.env.BENCH_IMPORT_BATCH ? { IMPORT_BATCH_ROWS: process.env.BENCH_IMPORT_BATCH } : {};
const serviceEnv = profiled({ contacts: batchEnv });
// sending answers the import's question of whether double opt-in is on (it sends nothing here)
const platform = new Platform({ services: ["gateway", "contacts", "sending"], env: { ...BENCH_ENV, SMTP_URL: "smtp://127.0.0.1:9" }, serviceEnv });
await platform.start();
const sql = serviceDb(platform, "contacts");
try {
  const pids = { gateway: platform.procs.get("gateway")[0].child.pid, contacts: platform.procs.get("contacts")[0].child.pid };
  const peaks = () => Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, peakRssMb(pid)]));
  const file = `${dir}/audience-${ROWS}.csv`;
  const warmFile = `${dir}/audience-warm-${WARM_ROWS}.csv`;
  console.log(`writing ${ROWS} rows…`);
  await writeCsv(file, ROWS, "bench.example");
  await writeCsv(warmFile, WARM_ROWS, "warm.example");
  const fileMb = +(statSync(file).size / 2 ** 20).toFixed(1);

  const project = await platform.createProject("bench-audience");
  const key = JSON.parse(await platform.cli(["keys", "create", "--project", project.id, "--kind", "secret", "--rate-limit", "1000000", "--json"])).key;
  // 5% of the file's addresses exist already (with other data): the import updates those
  const now = new Date().toISOString();
  const seed = await sql`copy contacts (id, project_id, email, subscribed, data, created_at, updated_at) from stdin`.writable();
  for (let i = 0; i < ROWS; i += EXISTING_EVERY) seed.write(`${newId()}\t${project.id}\tu${i}@bench.example\tt\t{"plan":"free","origin":"crm"}\t${now}\t${now}\n`);
  seed.end();
  await once(seed, "finish");
  await sql`analyze contacts`;
  const segment = { name: "Pro plan", trackMembership: true, filters: { logic: "AND", groups: [{ filters: [{ field: "data.plan", operator: "equals", value: "pro" }] }] } };
  const segRes = await fetch(`${platform.url}/segments`, { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: JSON.stringify(segment) });
  if (segRes.status !== 201) throw new Error(`segment: ${segRes.status} ${await segRes.text()}`);

  // Baseline: psql \copy of the same file into a bare table of the same database, same run.
  await sql`create table if not exists bench_copy (email text, plan text, city text, score text)`;
  const dbUrl = new URL(platform.env.DATABASE_URL);
  dbUrl.pathname = `/${platform.prefix}_contacts`;
  const copyStarted = performance.now();
  execFileSync("psql", [dbUrl.toString(), "-q", "-c", `\\copy bench_copy from '${file}' with (format csv, header true)`]);
  const copyMs = performance.now() - copyStarted;
  const bareRowsPerSec = Math.round(ROWS / (copyMs / 1000));
  await sql`drop table bench_copy`;
  // The comparable baseline: the same rows as contact rows, COPYed into a table with contacts'
  // columns, constraints and indexes (`like … including all`: the unique address, the trigram index).
  const shapedFile = `${dir}/audience-${ROWS}-contacts.tsv`;
  await writeContactRows(shapedFile, ROWS, "bench.example", project.id);
  await sql`create table bench_contacts (like contacts including all)`;
  const shapedStarted = performance.now();
  execFileSync("psql", [dbUrl.toString(), "-q", "-c", `\\copy bench_contacts (id, project_id, email, subscribed, data, created_at, updated_at) from '${shapedFile}'`]);
  const shapedMs = performance.now() - shapedStarted;
  const shapedRowsPerSec = Math.round(ROWS / (shapedMs / 1000));
  await sql`drop table bench_contacts`;

  // Warm-up: a tenth of the rows into a project of its own; the peaks after it are the reference.
  const warmProject = await platform.createProject("bench-audience-warm");
  const warmKey = JSON.parse(await platform.cli(["keys", "create", "--project", warmProject.id, "--kind", "secret", "--rate-limit", "1000000", "--json"])).key;
  const phase = async (id) => (await sql`select phase from contact_imports where id = ${id}`)[0]?.phase;
  const warm = await sampledRss(pids, () => importFile(platform.url, warmKey, warmFile, phase));
  const peaksWarm = peaks();
  console.log("warm-up", warm.result.totalMs.toFixed(0), "ms", peaksWarm);

  const imp = await sampledRss(pids, () => importFile(platform.url, key, file, phase));
  const peaksImport = peaks();
  if (imp.result.status !== "COMPLETED") throw new Error(`import ended ${JSON.stringify(imp.result)}`);
  const importRowsPerSec = Math.round(ROWS / (imp.result.totalMs / 1000));
  const [{ members }] = await sql`select count(*)::int as members from segment_members m join segments s on s.id = m.segment_id where s.project_id = ${project.id}`;
  const [{ backlog }] = await sql`select count(*)::int as backlog from outbox`;
  console.log("import", imp.result, importRowsPerSec, "rows/s", peaksImport);

  const exp = await sampledRss(pids, () => exportAll(platform.url, key));
  const peaksExport = peaks();
  const exportRowsPerSec = Math.round(exp.result.rows / (exp.result.totalMs / 1000));

  const ratio = importRowsPerSec / bareRowsPerSec;
  const shapedRatio = importRowsPerSec / shapedRowsPerSec;
  const r = imp.result;
  const loadMs = r.stagedMs - r.loadingFromMs;
  const loadRowsPerSec = Math.round(ROWS / (loadMs / 1000));
  const loadRatio = loadRowsPerSec / bareRowsPerSec;
  const md = [
    `### CSV import of ${ROWS.toLocaleString("en")} rows (${fileMb} MB: email + plan, city, score; 5% existing contacts; a tracked segment on plan)`,
    "",
    "| path | rows/s | time | note |",
    "|---|---|---|---|",
    `| \`psql \\copy\` of the same file into a bare table | ${bareRowsPerSec} | ${(copyMs / 1000).toFixed(1)} s | four text columns, no index |`,
    `| \`psql \\copy\` of the same rows as contact rows into a table shaped and indexed like \`contacts\` (baseline) | ${shapedRowsPerSec} | ${(shapedMs / 1000).toFixed(1)} s | primary key, unique address, (project, id), trigram index; no existing contacts, no segment, no events |`,
    `| POST /contacts/imports → COMPLETED (end to end) | ${importRowsPerSec} | ${(r.totalMs / 1000).toFixed(1)} s | upload stored and 202 in ${(r.acceptedMs / 1000).toFixed(1)} s, loading from ${(r.loadingFromMs / 1000).toFixed(1)} s, staged by ${(r.stagedMs / 1000).toFixed(1)} s, then applied; created ${r.created}, updated ${r.updated}, failed ${r.failed}; ${members} segment members |`,
    `| its load phase alone: the upload read, parsed and staged (phase \`loading\` → staged) | ${loadRowsPerSec} | ${(loadMs / 1000).toFixed(1)} s | the file into the import's staging table, indexed; no contact written yet |`,
    "",
    `End-to-end import ratio **${shapedRatio.toFixed(2)}** of the COPY into a contacts-shaped table (target ≥ 0.5), ${ratio.toFixed(3)} of the bare COPY; **${importRowsPerSec}** rows/s (target ≥ 20,000). Load phase alone: ratio ${loadRatio.toFixed(2)} of the bare COPY (${loadRowsPerSec} rows/s). Outbox rows still waiting for the relay at COMPLETED: ${backlog} (subscription and segment events; published after, by the relay's poll).`,
    "",
    `### CSV export of the same project (${exp.result.rows.toLocaleString("en")} rows, ${(exp.result.bytes / 2 ** 20).toFixed(1)} MB)`,
    "",
    `**${exportRowsPerSec}** rows/s, first byte after ${exp.result.firstByteMs.toFixed(0)} ms, all in ${(exp.result.totalMs / 1000).toFixed(1)} s.`,
    "",
    "### Memory (MB)",
    "",
    "| process | peak after a warm-up import of a tenth of the rows | peak after the full import | peak after the export | largest RSS sampled: warm-up / import / export |",
    "|---|---|---|---|---|",
    ...Object.keys(pids).map((k) => `| ${k} | ${peaksWarm[k]} | ${peaksImport[k]} | ${peaksExport[k]} | ${warm.rssMb[k]} / ${imp.rssMb[k]} / ${exp.rssMb[k]} |`),
    "",
    "Largest RSS sampled in each quarter of the full import and of the export (MB): " +
      Object.keys(pids).map((k) => `${k} import ${imp.quartersMb[k].join(", ")}; export ${exp.quartersMb[k].join(", ")}`).join("; ") + ".",
  ].join("\n");
  writeResult(
    "audience",
    { rows: ROWS, fileMb, bareRowsPerSec, copyMs, shapedRowsPerSec, shapedMs, import: { ...r, rowsPerSec: importRowsPerSec, ratio, shapedRatio, members, backlog, load: { ms: loadMs, rowsPerSec: loadRowsPerSec, ratio: loadRatio } }, export: { ...exp.result, rowsPerSec: exportRowsPerSec }, rss: { peaksWarm, peaksImport, peaksExport, sampled: { warm: warm.rssMb, import: imp.rssMb, export: exp.rssMb }, quarters: { import: imp.quartersMb, export: exp.quartersMb } } },
    md,
  );
} finally {
  await sql.end();
  await platform.destroy();
}
