ALTER TABLE "campaign_pending" ADD COLUMN "due_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "campaigns" ADD COLUMN "deliver_at" jsonb;--> statement-breakpoint
ALTER TABLE "campaigns" ADD COLUMN "hold_until" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "campaigns" ADD COLUMN "waiting" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX "campaigns_hold_idx" ON "campaigns" USING btree ("hold_until") WHERE status = 'SENDING' and hold_until is not null;