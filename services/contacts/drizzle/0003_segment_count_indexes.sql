DROP INDEX "contact_events_project_name_idx";--> statement-breakpoint
CREATE INDEX "contact_events_project_name_at_idx" ON "contact_events" USING btree ("project_id","name","created_at","contact_id");--> statement-breakpoint
CREATE INDEX "email_activity_project_kind_at_idx" ON "email_activity" USING btree ("project_id","kind","occurred_at","contact_id");