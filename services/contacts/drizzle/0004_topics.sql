CREATE TABLE "topics" (
	"id" uuid PRIMARY KEY NOT NULL,
	"project_id" uuid NOT NULL,
	"name" text NOT NULL,
	"description" text,
	"default_subscribed" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE INDEX "topics_project_idx" ON "topics" USING btree ("project_id","id");--> statement-breakpoint
ALTER TABLE "contacts" ADD COLUMN "topics" jsonb DEFAULT '{}'::jsonb NOT NULL;
