CREATE TABLE "segment_due" (
	"segment_id" uuid NOT NULL,
	"contact_id" uuid NOT NULL,
	"project_id" uuid NOT NULL,
	"due_at" timestamp with time zone NOT NULL,
	CONSTRAINT "segment_due_segment_id_contact_id_pk" PRIMARY KEY("segment_id","contact_id")
);
--> statement-breakpoint
ALTER TABLE "segment_due" ADD CONSTRAINT "segment_due_segment_id_segments_id_fk" FOREIGN KEY ("segment_id") REFERENCES "public"."segments"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "segment_due" ADD CONSTRAINT "segment_due_contact_id_contacts_id_fk" FOREIGN KEY ("contact_id") REFERENCES "public"."contacts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "segment_due_at_idx" ON "segment_due" USING btree ("due_at");--> statement-breakpoint
CREATE INDEX "segment_due_contact_idx" ON "segment_due" USING btree ("contact_id");