ALTER TABLE "domains" ADD COLUMN "warmup" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "domains" ADD COLUMN "warmup_cap" integer;--> statement-breakpoint
ALTER TABLE "domains" ADD COLUMN "warmup_day" date;--> statement-breakpoint
ALTER TABLE "emails" ADD COLUMN "held_for" text;--> statement-breakpoint
CREATE INDEX "emails_held_idx" ON "emails" USING btree ("campaign_id","held_for") WHERE held_for is not null;