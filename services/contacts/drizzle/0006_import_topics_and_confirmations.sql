ALTER TABLE "contact_imports" ADD COLUMN "topics" text[] DEFAULT '{}' NOT NULL;--> statement-breakpoint
ALTER TABLE "contact_imports" ADD COLUMN "double_opt_in" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "contact_imports" ADD COLUMN "awaiting_confirmation" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE TABLE "pending_confirmations" (
	"idempotency_key" text PRIMARY KEY NOT NULL,
	"project_id" uuid NOT NULL,
	"contact_id" uuid NOT NULL,
	"email" text NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"not_before" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE INDEX "pending_confirmations_due_idx" ON "pending_confirmations" USING btree ("not_before");
