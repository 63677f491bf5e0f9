CREATE TABLE "attachments" (
	"id" uuid PRIMARY KEY NOT NULL,
	"project_id" uuid NOT NULL,
	"filename" text NOT NULL,
	"content_type" text NOT NULL,
	"content_id" text,
	"disposition" text NOT NULL,
	"content" "bytea" NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "domains" (
	"id" uuid PRIMARY KEY NOT NULL,
	"project_id" uuid NOT NULL,
	"domain" text NOT NULL,
	"status" text NOT NULL,
	"selector" text NOT NULL,
	"private_key" text NOT NULL,
	"records" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"verified_at" timestamp with time zone,
	"checked_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "emails" (
	"id" uuid PRIMARY KEY NOT NULL,
	"project_id" uuid NOT NULL,
	"contact_id" uuid,
	"to_email" text NOT NULL,
	"to_name" text,
	"from_email" text NOT NULL,
	"from_name" text,
	"reply_to" text,
	"subject" text NOT NULL,
	"html" text NOT NULL,
	"headers" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"attachment_ids" uuid[] DEFAULT '{}' NOT NULL,
	"template_id" uuid,
	"campaign_id" uuid,
	"workflow_id" uuid,
	"execution_id" uuid,
	"source_type" text NOT NULL,
	"marketing" boolean DEFAULT false NOT NULL,
	"idempotency_key" text,
	"status" text NOT NULL,
	"message_id" text NOT NULL,
	"locked_until" timestamp with time zone,
	"attempts" integer DEFAULT 0 NOT NULL,
	"last_error" text,
	"sent_at" timestamp with time zone,
	"delivered_at" timestamp with time zone,
	"opened_at" timestamp with time zone,
	"clicked_at" timestamp with time zone,
	"bounced_at" timestamp with time zone,
	"complained_at" timestamp with time zone,
	"opens" integer DEFAULT 0 NOT NULL,
	"clicks" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
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
CREATE TABLE "templates" (
	"id" uuid PRIMARY KEY NOT NULL,
	"project_id" uuid NOT NULL,
	"name" text NOT NULL,
	"subject" text NOT NULL,
	"body" text NOT NULL,
	"type" text NOT NULL,
	"from_email" text,
	"from_name" text,
	"reply_to" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "domains_project_domain_uq" ON "domains" USING btree ("project_id","domain");--> statement-breakpoint
CREATE INDEX "domains_pending_idx" ON "domains" USING btree ("status","checked_at");--> statement-breakpoint
CREATE UNIQUE INDEX "emails_project_idempotency_uq" ON "emails" USING btree ("project_id","idempotency_key");--> statement-breakpoint
CREATE INDEX "emails_project_contact_idx" ON "emails" USING btree ("project_id","contact_id","id");--> statement-breakpoint
CREATE INDEX "emails_project_campaign_idx" ON "emails" USING btree ("project_id","campaign_id","id");--> statement-breakpoint
CREATE INDEX "emails_project_id_idx" ON "emails" USING btree ("project_id","id");--> statement-breakpoint
CREATE INDEX "outbox_created_at_idx" ON "outbox" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "templates_project_created_idx" ON "templates" USING btree ("project_id","created_at");