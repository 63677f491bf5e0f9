CREATE TABLE "campaign_pending" (
	"campaign_id" uuid NOT NULL,
	"contact_id" text NOT NULL,
	"email" text NOT NULL,
	"data" jsonb NOT NULL,
	CONSTRAINT "campaign_pending_campaign_id_contact_id_pk" PRIMARY KEY("campaign_id","contact_id")
);
--> statement-breakpoint
CREATE TABLE "campaigns" (
	"id" uuid PRIMARY KEY NOT NULL,
	"project_id" uuid NOT NULL,
	"name" text NOT NULL,
	"description" text,
	"subject" text NOT NULL,
	"body" text NOT NULL,
	"from_email" text NOT NULL,
	"from_name" text,
	"reply_to" text,
	"audience_type" text NOT NULL,
	"segment_id" text,
	"audience_filter" jsonb,
	"status" text NOT NULL,
	"scheduled_at" timestamp with time zone,
	"sent_at" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	"started_at" timestamp with time zone,
	"last_contact_id" text,
	"audience_done" boolean DEFAULT false NOT NULL,
	"fanout_done_at" timestamp with time zone,
	"lease_owner" text,
	"lease_until" timestamp with time zone,
	"recipients" integer DEFAULT 0 NOT NULL,
	"sent" integer DEFAULT 0 NOT NULL,
	"delivered" integer DEFAULT 0 NOT NULL,
	"opened" integer DEFAULT 0 NOT NULL,
	"clicked" integer DEFAULT 0 NOT NULL,
	"bounced" integer DEFAULT 0 NOT NULL,
	"complained" integer DEFAULT 0 NOT NULL,
	"unsubscribed" integer DEFAULT 0 NOT NULL,
	"failed" integer DEFAULT 0 NOT NULL,
	"ended" integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE "counted_email_events" (
	"email_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"counted_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "counted_email_events_email_id_kind_pk" PRIMARY KEY("email_id","kind")
);
--> statement-breakpoint
CREATE TABLE "outbox" (
	"id" uuid PRIMARY KEY NOT NULL,
	"subject" text NOT NULL,
	"payload" jsonb NOT NULL,
	"headers" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "campaign_pending" ADD CONSTRAINT "campaign_pending_campaign_id_campaigns_id_fk" FOREIGN KEY ("campaign_id") REFERENCES "public"."campaigns"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "campaigns_project_created_idx" ON "campaigns" USING btree ("project_id","created_at");--> statement-breakpoint
CREATE INDEX "campaigns_due_idx" ON "campaigns" USING btree ("scheduled_at") WHERE status = 'SCHEDULED';--> statement-breakpoint
CREATE INDEX "campaigns_sending_idx" ON "campaigns" USING btree ("started_at") WHERE status = 'SENDING';--> statement-breakpoint
CREATE INDEX "counted_email_events_at_idx" ON "counted_email_events" USING btree ("counted_at");--> statement-breakpoint
CREATE INDEX "outbox_created_at_idx" ON "outbox" USING btree ("created_at");