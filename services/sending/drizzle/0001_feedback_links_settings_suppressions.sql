CREATE TABLE "feedback_receipts" (
	"key" text PRIMARY KEY NOT NULL,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "project_settings" (
	"project_id" uuid PRIMARY KEY NOT NULL,
	"tracking" boolean DEFAULT true NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "suppressions" (
	"project_id" uuid NOT NULL,
	"email" text NOT NULL,
	"reason" text NOT NULL,
	"email_id" uuid NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "suppressions_project_id_email_reason_pk" PRIMARY KEY("project_id","email","reason")
);
--> statement-breakpoint
ALTER TABLE "emails" ADD COLUMN "links" text[] DEFAULT '{}' NOT NULL;--> statement-breakpoint
ALTER TABLE "emails" ADD COLUMN "provider_message_id" text;--> statement-breakpoint
CREATE INDEX "feedback_receipts_received_idx" ON "feedback_receipts" USING btree ("received_at");--> statement-breakpoint
CREATE INDEX "emails_provider_message_id_idx" ON "emails" USING btree ("provider_message_id");