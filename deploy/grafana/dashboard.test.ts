import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

const dashboard = JSON.parse(readFileSync(new URL("./mailroom-dashboard.json", import.meta.url), "utf8"));
const exprs: string[] = dashboard.panels.flatMap((p: { targets?: { expr: string }[] }) => (p.targets ?? []).map((t) => t.expr));

describe("Grafana dashboard", () => {
  // The metric names the services expose through prom-client; a rename must update the dashboard.
  it.each([
    "mailroom_http_requests_total",
    "mailroom_http_request_duration_seconds_bucket",
    "mailroom_rpc_requests_total",
    "mailroom_rpc_duration_seconds_bucket",
    "mailroom_jetstream_consumer_pending",
    "mailroom_jetstream_redeliveries_total",
    "mailroom_outbox_backlog",
    "mailroom_emails_total",
    "mailroom_workflow_executions_total",
    "mailroom_campaign_recipients_total",
  ])("charts %s", (metric) => {
    expect(exprs.some((e) => e.includes(metric))).toBe(true);
  });

  it("has unique panel ids and a stable uid for links and provisioning", () => {
    const ids = dashboard.panels.map((p: { id: number }) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(dashboard.uid).toBe("mailroom-overview");
  });
});
