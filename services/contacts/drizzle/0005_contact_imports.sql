CREATE TABLE "contact_imports" (
	"id" uuid PRIMARY KEY NOT NULL,
	"project_id" uuid NOT NULL,
	"status" text NOT NULL,
	"phase" text NOT NULL,
	"blob" text NOT NULL,
	"bytes" bigint NOT NULL,
	"rows" integer DEFAULT 0 NOT NULL,
	"created" integer DEFAULT 0 NOT NULL,
	"updated" integer DEFAULT 0 NOT NULL,
	"failed" integer DEFAULT 0 NOT NULL,
	"errors" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"applied_row" integer DEFAULT 0 NOT NULL,
	"heartbeat_at" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL,
	"finished_at" timestamp with time zone
);
--> statement-breakpoint
CREATE INDEX "contact_imports_running_idx" ON "contact_imports" USING btree ("created_at") WHERE status = 'RUNNING';--> statement-breakpoint
CREATE INDEX "contact_imports_project_idx" ON "contact_imports" USING btree ("project_id");