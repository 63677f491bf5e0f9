ALTER TABLE "project_settings" ADD COLUMN "frequency_cap_max" integer;--> statement-breakpoint
ALTER TABLE "project_settings" ADD COLUMN "frequency_cap_days" integer;