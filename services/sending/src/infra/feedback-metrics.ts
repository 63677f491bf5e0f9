import { Counter, type Registry } from "prom-client";

/**
 * Feedback and inbound mail refused before it changed anything, on the service's /metrics. Names are a
 * contract with dashboards and alerts: add, do not rename.
 */
export function createFeedbackMetrics(registry: Registry) {
  return {
    /** A DSN or ARF report whose VERP tag was missing or wrong, or whose ids disagreed (`reason`). */
    rejected: new Counter({
      name: "mailroom_feedback_rejected_total",
      help: "Delivery reports and SNS messages refused as unauthenticated, by source and reason",
      labelNames: ["source", "reason"],
      registers: [registry],
    }),
    /** Inbound messages answered 4xx because the inbound buffer budget was spent, or kept only in part. */
    inbound: new Counter({
      name: "mailroom_inbound_messages_total",
      help: "Inbound SMTP messages by outcome (accepted, truncated, deferred_memory, too_big)",
      labelNames: ["outcome"],
      registers: [registry],
    }),
  };
}
export type FeedbackMetrics = ReturnType<typeof createFeedbackMetrics>;
