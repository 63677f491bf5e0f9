import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";

/**
 * One registry per process with the metric names the Grafana dashboard (deploy/grafana) reads.
 * Metric names are a contract with dashboards and alerts: add, do not rename.
 */
export function createMetrics(service: string) {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry, prefix: "mailroom_process_" });
  const seconds = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
  return {
    registry,
    httpRequests: new Counter({
      name: "mailroom_http_requests_total",
      help: "HTTP requests answered by the gateway",
      labelNames: ["route", "method", "status"],
      registers: [registry],
    }),
    httpDuration: new Histogram({
      name: "mailroom_http_request_duration_seconds",
      help: "HTTP request latency at the gateway",
      labelNames: ["route", "method"],
      buckets: seconds,
      registers: [registry],
    }),
    rpcRequests: new Counter({
      name: "mailroom_rpc_requests_total",
      help: "NATS request-reply operations handled",
      labelNames: ["operation", "outcome"],
      registers: [registry],
    }),
    rpcDuration: new Histogram({
      name: "mailroom_rpc_duration_seconds",
      help: "NATS request-reply handler latency",
      labelNames: ["operation"],
      buckets: seconds,
      registers: [registry],
    }),
    consumerPending: new Gauge({
      name: "mailroom_jetstream_consumer_pending",
      help: "Messages pending for a durable consumer",
      labelNames: ["consumer"],
      registers: [registry],
    }),
    redeliveries: new Counter({
      name: "mailroom_jetstream_redeliveries_total",
      help: "Messages received again after a failed or timed-out attempt",
      labelNames: ["consumer"],
      registers: [registry],
    }),
    deadLetters: new Counter({
      name: "mailroom_dead_letters_total",
      help: "Messages a durable consumer gave up on and put on its dead-letter subject",
      labelNames: ["consumer"],
      registers: [registry],
    }),
    emails: new Counter({
      name: "mailroom_emails_total",
      help: "Emails by outcome (sent, failed, bounced, delivered, complained) per project",
      labelNames: ["project", "status"],
      registers: [registry],
    }),
    workflowExecutions: new Counter({
      name: "mailroom_workflow_executions_total",
      help: "Workflow executions reaching a status",
      labelNames: ["status"],
      registers: [registry],
    }),
    campaignRecipients: new Counter({
      name: "mailroom_campaign_recipients_total",
      help: "Campaign recipients by fan-out and delivery progress",
      labelNames: ["status"],
      registers: [registry],
    }),
    /** Gateway: API key lookups that reached the database; a flood of unknown keys shows here. */
    keyLookups: new Counter({
      name: "mailroom_gateway_key_lookups_total",
      help: "API key lookups that reached the database, by result (found, unknown)",
      labelNames: ["result"],
      registers: [registry],
    }),
    /** Sending: a DSN, ARF report or SNS message refused as unauthenticated (bad VERP tag, topic…). */
    feedbackRejected: new Counter({
      name: "mailroom_feedback_rejected_total",
      help: "Delivery reports and SNS messages refused as unauthenticated, by source and reason",
      labelNames: ["source", "reason"],
      registers: [registry],
    }),
    /** Sending: inbound messages by outcome, including those deferred or cut for the byte budget. */
    inboundMessages: new Counter({
      name: "mailroom_inbound_messages_total",
      help: "Inbound SMTP messages by outcome (accepted, truncated, deferred_memory, too_big)",
      labelNames: ["outcome"],
      registers: [registry],
    }),
    /**
     * Sending: emails of a mailbox provider waiting for its limits (DELIVERY_LIMITS, warm-up) on this
     * replica. `provider`: a provider with a limit of its own, else "other" (the label stays bounded).
     */
    providerWaiting: new Gauge({
      name: "mailroom_delivery_provider_waiting",
      help: "Emails waiting on this replica for a mailbox provider's connections or rate",
      labelNames: ["provider"],
      registers: [registry],
    }),
    /** Sending: emails held back by a provider's limit, by reason (connections, rate, warmup). */
    providerThrottled: new Counter({
      name: "mailroom_delivery_provider_throttled_total",
      help: "Emails that had to wait for a mailbox provider's limit, by reason (connections, rate, warmup)",
      labelNames: ["provider", "reason"],
      registers: [registry],
    }),
    /** Sending: the share of its perMinute a provider gets after slowing down for deferrals (1: all). */
    providerRateFactor: new Gauge({
      name: "mailroom_delivery_provider_rate_factor",
      help: "Share of a mailbox provider's configured rate in force after deferrals slowed it (1 = full)",
      labelNames: ["provider"],
      registers: [registry],
    }),
    outboxBacklog: new Gauge({
      name: "mailroom_outbox_backlog",
      help: "Outbox rows not yet published",
      registers: [registry],
    }),
  };
}
export type Metrics = ReturnType<typeof createMetrics>;
