import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { startMailbox } from "@mailroom/devmailbox";
import { wireNames } from "@mailroom/contracts";
import { Drain, Platform, apiClient, waitFor } from "@mailroom/testkit";

interface SpanLine {
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  name: string;
  service: string;
}

let mailbox: Awaited<ReturnType<typeof startMailbox>>;
let platform: Platform;
let traceFile: string;
let drain: Drain;

beforeAll(async () => {
  mailbox = await startMailbox({ smtpPort: 0, httpPort: 0 });
  platform = new Platform({ services: ["gateway", "contacts", "sending"] });
  traceFile = join(platform.logDir, "spans.jsonl");
  Object.assign(platform.env, { MAILROOM_TRACE_FILE: traceFile, SMTP_URL: mailbox.smtpUrl });
  await platform.start();
  drain = await Drain.open(platform.env);
});
afterAll(async () => {
  await drain?.close();
  await platform?.destroy();
  await mailbox?.stop();
});

const spans = (): SpanLine[] =>
  existsSync(traceFile) ? readFileSync(traceFile, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l)) : [];

describe("tracing", () => {
  it("makes one trace of a /v1/send: gateway, contacts, sending and the delivery worker", async () => {
    const project = await platform.createProject("trace");
    await platform.verifyDomain(project.id, "trace.example");
    const traceId = randomBytes(16).toString("hex");
    const res = await apiClient(platform.url, project.secretKey).post(
      "/v1/send",
      { to: "reader@example.com", from: "hello@trace.example", subject: "Traced", body: "<p>hi</p>" },
      { traceparent: `00-${traceId}-${randomBytes(8).toString("hex")}-01` },
    );
    expect(res.status).toBe(200);
    // The consumer's span ends after the SMTP span (it closes once the record is marked sent), so wait for both.
    const ended = (name: string) => spans().some((s) => s.traceId === traceId && s.name === name);
    await waitFor(() => ended("smtp send") && ended("consume sending-transactional"), { timeoutMs: 20_000, what: "the delivery spans" });

    const trace = spans().filter((s) => s.traceId === traceId);
    const services = new Set(trace.map((s) => s.service));
    expect([...services].sort()).toEqual(["mailroom-contacts", "mailroom-gateway", "mailroom-sending"]);
    const names = trace.map((s) => s.name);
    expect(names).toContain("POST /v1/send");
    expect(names).toContain("rpc sending.send");
    expect(names).toContain("rpc contacts.upsertMany");
    expect(names).toContain("consume sending-transactional");
    expect(names.some((n) => n.startsWith("db ContactsRepo."))).toBe(true);
    expect(names.some((n) => n.startsWith("db EmailsRepo."))).toBe(true);
    // One tree: every span's parent is in the trace, except the caller's own root. Consumers of the
    // email events (contacts' activity projection) join the trace too and end last, each before it
    // acknowledges its message: once the delivery and then the events are acknowledged, every span
    // of the trace is in the file.
    const { consumers } = wireNames(platform.prefix);
    await drain.through(consumers.sendingDelivery, consumers.contactsEmailActivity);
    const all = spans().filter((s) => s.traceId === traceId);
    const ids = new Set(all.map((s) => s.spanId));
    expect(all.filter((s) => s.parentSpanId && !ids.has(s.parentSpanId)).map((s) => s.name)).toEqual(["POST /v1/send"]);
  });

  it("keeps each request's trace when concurrent requests share a NATS message", async () => {
    const project = await platform.createProject("trace-batch");
    const api = apiClient(platform.url, project.secretKey);
    const traceIds = Array.from({ length: 12 }, () => randomBytes(16).toString("hex"));
    const answers = await Promise.all(
      traceIds.map((t) => api.get("/contacts", { traceparent: `00-${t}-${randomBytes(8).toString("hex")}-01` })),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(12).fill(200));
    const served = (t: string) => spans().some((s) => s.traceId === t && s.name === "rpc contacts.list" && s.service === "mailroom-contacts");
    await waitFor(() => traceIds.every(served), { timeoutMs: 10_000, what: "a contacts span in every trace" });
    for (const t of traceIds) {
      const trace = spans().filter((s) => s.traceId === t);
      const ids = new Set(trace.map((s) => s.spanId));
      const server = trace.find((s) => s.name === "rpc contacts.list" && s.service === "mailroom-contacts")!;
      // its parent is the gateway's client span of this very request
      expect(ids.has(server.parentSpanId!)).toBe(true);
      expect(trace.find((s) => s.spanId === server.parentSpanId)?.service).toBe("mailroom-gateway");
    }
  });

  it("serves Prometheus metrics on every service's ops port", async () => {
    for (const [name, replicas] of platform.procs) {
      const text = await (await fetch(`http://127.0.0.1:${replicas[0]!.opsPort}/metrics`)).text();
      expect(text, name).toContain("mailroom_process_");
      expect(text, name).toContain("mailroom_rpc_requests_total");
      expect(text, name).toContain("mailroom_outbox_backlog");
    }
    const gateway = await (await fetch(`http://127.0.0.1:${platform.procs.get("gateway")![0]!.opsPort}/metrics`)).text();
    expect(gateway).toMatch(/mailroom_http_requests_total\{[^}]*route="\/v1\/send"/);
    const sending = await (await fetch(`http://127.0.0.1:${platform.procs.get("sending")![0]!.opsPort}/metrics`)).text();
    expect(sending).toContain("mailroom_jetstream_consumer_pending");
  });
});
