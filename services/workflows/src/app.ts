import { Clock, type Deps, openDatabase, type ServiceApp } from "@mailroom/kit";
import type { WorkflowsEnv } from "./config.js";
import { Engine } from "./engine/engine.js";
import { Poller } from "./engine/poller.js";
import { Starter } from "./engine/starter.js";
import { registerWorkflowRoutes } from "./handlers/http.js";
import { triggersConsumer } from "./handlers/triggers.js";
import { registerTemplateInUse } from "./handlers/template-in-use.js";
import { webhookEventsConsumer } from "./handlers/webhook-events.js";
import { registerWebhookRoutes } from "./handlers/webhooks-http.js";
import { WebhookDispatcher } from "./engine/webhook-dispatcher.js";
import { WebhookFanOut } from "./usecases/webhook-events.js";
import { Webhooks } from "./usecases/webhooks.js";
import { createResolver } from "./infra/resolver.js";
import { Editor } from "./usecases/editor.js";
import { Executions } from "./usecases/executions.js";
import { Scheduler } from "./usecases/scheduler.js";
import { TriggerEvents } from "./usecases/triggers.js";

/** The spec's webhook limits (api-spec Limits): 10 s per request, up to 5 redirects, no retries. */
const WEBHOOK_TIMEOUT_MS = 10_000;
const WEBHOOK_MAX_REDIRECTS = 5;
/** Of the shutdown bound, what is kept for the writes after the last step and closing connections. */
const SHUTDOWN_MARGIN_MS = 3000;

/** Builds the workflows service from its deps; nothing listens or polls until the runtime starts it. */
export function buildApp(deps: Deps<typeof WorkflowsEnv.shape>): ServiceApp {
  const c = deps.config;
  const resolve = createResolver(c.DNS_SERVER);
  const allowedHosts = new Set(c.WEBHOOK_ALLOWED_HOSTS);
  const webhook = { resolve, allowedHosts, timeoutMs: WEBHOOK_TIMEOUT_MS, maxRedirects: WEBHOOK_MAX_REDIRECTS };
  const clock = new Clock(c.TEST_CLOCK_DIR);
  const engine = new Engine(deps.sql, { rpc: deps.rpc, webhook, timeScale: c.WORKFLOWS_TIME_SCALE, clock }, deps.log, deps.metrics, {
    leaseMs: c.WORKFLOWS_LEASE_MS,
    concurrency: c.WORKFLOWS_CONCURRENCY,
    stopGraceMs: Math.max(0, c.SHUTDOWN_TIMEOUT_MS - SHUTDOWN_MARGIN_MS),
  });
  const starter = new Starter(deps.sql, engine, deps.log, c.WORKFLOWS_LEASE_MS);
  const poller = new Poller(deps.sql, engine, deps.log, { intervalMs: c.WORKFLOWS_POLL_MS, leaseMs: c.WORKFLOWS_LEASE_MS });
  const scheduler = new Scheduler(deps.sql, deps.rpc, starter, deps.log, clock, { intervalMs: c.WORKFLOWS_SCHEDULE_POLL_MS });
  const editor = new Editor(deps.sql, { rpc: deps.rpc, resolve, allowedHosts });
  const executions = new Executions(deps.sql, deps.rpc, starter);
  const triggers = triggersConsumer(deps.names, new TriggerEvents(deps.sql, engine, c.WORKFLOWS_LEASE_MS), {
    concurrency: c.WORKFLOWS_TRIGGER_CONCURRENCY,
    batch: c.WORKFLOWS_TRIGGER_BATCH,
  });
  // The dispatcher's own few connections, each statement planned for the deliveries table as it is
  // now (openDatabase's customPlans); the engine keeps PostgreSQL's cached plans (15% more
  // transitions a second than with every statement planned).
  const dispatchSql = openDatabase(c.databaseUrl!, { max: 3, customPlans: true }); // set: deps.sql was opened from it
  const dispatcher = new WebhookDispatcher(dispatchSql, webhook, deps.log, {
    pollMs: c.WEBHOOKS_POLL_MS,
    concurrency: c.WEBHOOKS_CONCURRENCY,
    perEndpoint: c.WEBHOOKS_PER_ENDPOINT,
    timeScale: c.WEBHOOKS_TIME_SCALE,
    leaseMs: c.WEBHOOKS_LEASE_MS,
    stopGraceMs: Math.max(0, c.SHUTDOWN_TIMEOUT_MS - SHUTDOWN_MARGIN_MS),
  });
  const due = () => dispatcher.due();
  const webhooks = new Webhooks(deps.sql, { resolve, allowedHosts }, due);
  const webhookEvents = webhookEventsConsumer(deps.names, new WebhookFanOut(deps.sql, due));
  return {
    register(server) {
      registerWorkflowRoutes(server, editor, executions);
      registerTemplateInUse(server, editor);
      registerWebhookRoutes(server, webhooks);
    },
    // stopped by the runtime before `stop()`, so no trigger is handed to a stopping engine
    batchConsumers: [triggers, webhookEvents],
    async start() {
      poller.start();
      scheduler.start();
      dispatcher.start();
    },
    async stop() {
      await scheduler.stop();
      await poller.stop();
      await Promise.all([engine.stop(), dispatcher.stop()]);
      await dispatchSql.end({ timeout: 5 });
    },
  };
}
