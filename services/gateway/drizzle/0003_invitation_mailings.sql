CREATE TABLE "invitation_mailings" (
	"project_id" uuid NOT NULL,
	"address" text NOT NULL,
	"sent_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "invitation_mailings_project_id_address_pk" PRIMARY KEY("project_id","address")
);
