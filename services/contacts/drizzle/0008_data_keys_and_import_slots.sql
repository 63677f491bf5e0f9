CREATE TABLE "data_keys" (
	"project_id" uuid NOT NULL,
	"key" text NOT NULL,
	"position" integer NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "data_keys_project_id_key_pk" PRIMARY KEY("project_id","key")
);
--> statement-breakpoint
CREATE TABLE "import_slots" (
	"id" uuid PRIMARY KEY NOT NULL,
	"project_id" uuid NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "data_keys_position_uq" ON "data_keys" USING btree ("project_id","position");--> statement-breakpoint
CREATE INDEX "import_slots_project_idx" ON "import_slots" USING btree ("project_id");--> statement-breakpoint
-- The keys contacts hold already, registered once (a key counts from its first write on).
INSERT INTO "data_keys" ("project_id", "key", "position", "created_at")
SELECT "project_id", "key", row_number() OVER (PARTITION BY "project_id" ORDER BY "key"), now()
FROM (SELECT DISTINCT c."project_id", k."key" FROM "contacts" c, jsonb_object_keys(c."data") AS k("key")) AS held;
