-- GET /emails?to= matches a substring of the address with ILIKE; pg_trgm's GIN index serves it.
create extension if not exists pg_trgm;--> statement-breakpoint
CREATE TABLE "email_events" (
	"id" uuid PRIMARY KEY NOT NULL,
	"project_id" uuid NOT NULL,
	"email_id" uuid NOT NULL,
	"campaign_id" uuid,
	"type" text NOT NULL,
	"counter" text,
	"occurred_at" timestamp with time zone NOT NULL,
	"details" jsonb DEFAULT '{}'::jsonb NOT NULL
);
--> statement-breakpoint
CREATE TABLE "email_stats_hourly" (
	"project_id" uuid NOT NULL,
	"campaign_id" uuid,
	"hour" timestamp with time zone NOT NULL,
	"sent" integer DEFAULT 0 NOT NULL,
	"delivered" integer DEFAULT 0 NOT NULL,
	"opened" integer DEFAULT 0 NOT NULL,
	"clicked" integer DEFAULT 0 NOT NULL,
	"bounced" integer DEFAULT 0 NOT NULL,
	"complained" integer DEFAULT 0 NOT NULL,
	"unsubscribed" integer DEFAULT 0 NOT NULL,
	"failed" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "email_stats_hourly_bucket_uq" UNIQUE NULLS NOT DISTINCT("project_id","hour","campaign_id")
);
--> statement-breakpoint
CREATE INDEX "email_events_email_idx" ON "email_events" USING btree ("email_id","occurred_at");--> statement-breakpoint
CREATE INDEX "email_stats_hourly_campaign_idx" ON "email_stats_hourly" USING btree ("project_id","campaign_id","hour");--> statement-breakpoint
CREATE INDEX "emails_to_trgm_idx" ON "emails" USING gin ("to_email" gin_trgm_ops);