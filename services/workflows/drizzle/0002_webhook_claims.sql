DROP INDEX "webhook_deliveries_created_idx";--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD COLUMN "lease_until" timestamp with time zone;--> statement-breakpoint
-- Room on each page for a row's claim to be a HOT update (no new index entries; its answer leaves
-- the due index, so that one cannot be). Applies to pages written from now on.
ALTER TABLE "webhook_deliveries" SET (fillfactor = 70);
