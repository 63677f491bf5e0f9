CREATE TABLE "entries" (
	"workflow_id" uuid NOT NULL,
	"contact_id" uuid NOT NULL,
	CONSTRAINT "entries_workflow_id_contact_id_pk" PRIMARY KEY("workflow_id","contact_id")
);
--> statement-breakpoint
CREATE TABLE "executions" (
	"id" uuid PRIMARY KEY NOT NULL,
	"project_id" uuid NOT NULL,
	"workflow_id" uuid NOT NULL,
	"contact_id" uuid NOT NULL,
	"status" text NOT NULL,
	"exit_reason" text,
	"context" jsonb NOT NULL,
	"current_step_id" uuid,
	"wait_event" text,
	"wait_since" timestamp with time zone,
	"trigger_key" text,
	"lease_token" uuid,
	"lease_until" timestamp with time zone,
	"started_at" timestamp with time zone NOT NULL,
	"finished_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "outbox" (
	"id" uuid PRIMARY KEY NOT NULL,
	"subject" text NOT NULL,
	"payload" jsonb NOT NULL,
	"headers" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "schedule_ticks" (
	"workflow_id" uuid NOT NULL,
	"tick_at" timestamp with time zone NOT NULL,
	CONSTRAINT "schedule_ticks_workflow_id_tick_at_pk" PRIMARY KEY("workflow_id","tick_at")
);
--> statement-breakpoint
CREATE TABLE "step_runs" (
	"id" uuid PRIMARY KEY NOT NULL,
	"execution_id" uuid NOT NULL,
	"step_id" uuid NOT NULL,
	"status" text NOT NULL,
	"error" text,
	"effect_at" timestamp with time zone,
	"started_at" timestamp with time zone NOT NULL,
	"finished_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "steps" (
	"id" uuid PRIMARY KEY NOT NULL,
	"workflow_id" uuid NOT NULL,
	"type" text NOT NULL,
	"name" text NOT NULL,
	"config" jsonb NOT NULL,
	"position" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "timers" (
	"execution_id" uuid PRIMARY KEY NOT NULL,
	"step_id" uuid NOT NULL,
	"due_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "transitions" (
	"id" uuid PRIMARY KEY NOT NULL,
	"workflow_id" uuid NOT NULL,
	"from_step_id" uuid NOT NULL,
	"to_step_id" uuid NOT NULL,
	"branch" text,
	"wait_outcome" text
);
--> statement-breakpoint
CREATE TABLE "workflows" (
	"id" uuid PRIMARY KEY NOT NULL,
	"project_id" uuid NOT NULL,
	"name" text NOT NULL,
	"description" text,
	"enabled" boolean DEFAULT false NOT NULL,
	"allow_reentry" boolean DEFAULT false NOT NULL,
	"trigger_type" text NOT NULL,
	"trigger_config" jsonb NOT NULL,
	"trigger_event" text,
	"enabled_at" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "entries" ADD CONSTRAINT "entries_workflow_id_workflows_id_fk" FOREIGN KEY ("workflow_id") REFERENCES "public"."workflows"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "executions" ADD CONSTRAINT "executions_workflow_id_workflows_id_fk" FOREIGN KEY ("workflow_id") REFERENCES "public"."workflows"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "schedule_ticks" ADD CONSTRAINT "schedule_ticks_workflow_id_workflows_id_fk" FOREIGN KEY ("workflow_id") REFERENCES "public"."workflows"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "step_runs" ADD CONSTRAINT "step_runs_execution_id_executions_id_fk" FOREIGN KEY ("execution_id") REFERENCES "public"."executions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "steps" ADD CONSTRAINT "steps_workflow_id_workflows_id_fk" FOREIGN KEY ("workflow_id") REFERENCES "public"."workflows"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "timers" ADD CONSTRAINT "timers_execution_id_executions_id_fk" FOREIGN KEY ("execution_id") REFERENCES "public"."executions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "transitions" ADD CONSTRAINT "transitions_workflow_id_workflows_id_fk" FOREIGN KEY ("workflow_id") REFERENCES "public"."workflows"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "transitions" ADD CONSTRAINT "transitions_from_step_id_steps_id_fk" FOREIGN KEY ("from_step_id") REFERENCES "public"."steps"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "transitions" ADD CONSTRAINT "transitions_to_step_id_steps_id_fk" FOREIGN KEY ("to_step_id") REFERENCES "public"."steps"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "executions_workflow_idx" ON "executions" USING btree ("workflow_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "executions_one_active_uq" ON "executions" USING btree ("workflow_id","contact_id") WHERE status in ('RUNNING', 'WAITING');--> statement-breakpoint
CREATE UNIQUE INDEX "executions_trigger_uq" ON "executions" USING btree ("workflow_id","contact_id","trigger_key");--> statement-breakpoint
CREATE INDEX "executions_waiting_event_idx" ON "executions" USING btree ("project_id","contact_id","wait_event") WHERE status = 'WAITING' and wait_event is not null;--> statement-breakpoint
CREATE INDEX "executions_runnable_idx" ON "executions" USING btree ("lease_until") WHERE status = 'RUNNING';--> statement-breakpoint
CREATE INDEX "outbox_created_at_idx" ON "outbox" USING btree ("created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "step_runs_execution_step_uq" ON "step_runs" USING btree ("execution_id","step_id");--> statement-breakpoint
CREATE INDEX "steps_workflow_idx" ON "steps" USING btree ("workflow_id");--> statement-breakpoint
CREATE INDEX "timers_due_idx" ON "timers" USING btree ("due_at");--> statement-breakpoint
CREATE INDEX "transitions_workflow_idx" ON "transitions" USING btree ("workflow_id");--> statement-breakpoint
CREATE INDEX "workflows_project_idx" ON "workflows" USING btree ("project_id","created_at");--> statement-breakpoint
CREATE INDEX "workflows_event_idx" ON "workflows" USING btree ("project_id","trigger_event") WHERE enabled and trigger_type = 'EVENT';--> statement-breakpoint
CREATE INDEX "workflows_schedule_idx" ON "workflows" USING btree ("trigger_type") WHERE enabled and trigger_type = 'SCHEDULE';