/**
 * Delivery lanes. Each lane has its own stream, durable consumer and handler slots, so mail someone
 * is waiting for (a password reset, a workflow step, a campaign's test copy) never queues behind a
 * campaign's recipients. Fairness between campaigns is the campaigns service's: it keeps only a
 * window of each campaign's recipients queued (services/campaigns README, "Sharing the lane").
 */
export type DeliveryLane = "bulk" | "transactional";

/** A campaign's recipients (the fan-out's emails carry the campaign id) are bulk; everything else is not. */
export function laneOf(email: { campaignId: string | null }): DeliveryLane {
  return email.campaignId ? "bulk" : "transactional";
}
