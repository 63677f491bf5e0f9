/** Counters of a bucket of email_stats_hourly; email_events.counter names the one an event moved. */
export const STAT_COUNTERS = ["sent", "delivered", "opened", "clicked", "bounced", "complained", "unsubscribed", "failed"] as const;
