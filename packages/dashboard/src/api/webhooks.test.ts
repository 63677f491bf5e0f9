import type { WebhookDelivery } from "@mailroom/contracts";
import { describe, expect, it } from "vitest";
import { deliveryPollMs } from "./webhooks";

const NOW = Date.parse("2026-01-01T12:00:00Z");
const delivery = (status: WebhookDelivery["status"], nextInMs: number | null) =>
  ({ status, nextAttemptAt: nextInMs === null ? null : new Date(NOW + nextInMs).toISOString() }) as WebhookDelivery;

describe("how often the deliveries log refreshes", () => {
  it("does not poll once every shown delivery has settled", () => {
    expect(deliveryPollMs([], NOW)).toBe(false);
    expect(deliveryPollMs([delivery("SUCCEEDED", null), delivery("FAILED", null)], NOW)).toBe(false);
  });

  it("polls every 2 s while a delivery is about to be attempted, every 30 s while one waits for hours", () => {
    expect(deliveryPollMs([delivery("SUCCEEDED", null), delivery("PENDING", 5_000)], NOW)).toBe(2000);
    expect(deliveryPollMs([delivery("PENDING", -1_000)], NOW)).toBe(2000);
    expect(deliveryPollMs([delivery("PENDING", 5 * 60_000)], NOW)).toBe(30_000);
  });
});
