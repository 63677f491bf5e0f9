ALTER TABLE "project_settings" ADD COLUMN "double_opt_in" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "project_settings" ADD COLUMN "double_opt_in_template_id" uuid;--> statement-breakpoint
ALTER TABLE "emails" ADD COLUMN "topic_id" uuid;
