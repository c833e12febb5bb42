CREATE TABLE "api_keys" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" text NOT NULL,
	"key_hash" text NOT NULL,
	"prefix" text NOT NULL,
	"label" text DEFAULT '' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"revoked_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "tenants" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"disabled_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "sessions" (
	"tenant_id" text NOT NULL,
	"session_id" text NOT NULL,
	"next_ref" integer DEFAULT 1 NOT NULL,
	"next_block" integer DEFAULT 1 NOT NULL,
	"version" bigint DEFAULT 0 NOT NULL,
	"settings" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"stats" jsonb NOT NULL,
	"stats_version" bigint DEFAULT 0 NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"last_capture_at" timestamp (3) with time zone,
	"last_flush_at" timestamp (3) with time zone,
	CONSTRAINT "sessions_tenant_id_session_id_pk" PRIMARY KEY("tenant_id","session_id")
);
--> statement-breakpoint
CREATE TABLE "captures" (
	"seq" bigserial PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"session_id" text NOT NULL,
	"occurrence_key" text NOT NULL,
	"capture_id" text NOT NULL,
	"batch_index" integer NOT NULL,
	"call_index" integer NOT NULL,
	"tool_call_id" text NOT NULL,
	"tool_name" text NOT NULL,
	"args" jsonb NOT NULL,
	"result_text" text NOT NULL,
	"is_error" boolean DEFAULT false NOT NULL,
	"result_timestamp" bigint,
	"content_hash" text,
	"turn_index" integer NOT NULL,
	"batch_timestamp" bigint NOT NULL,
	"assistant_text" text DEFAULT '' NOT NULL,
	"user_turn_group" integer,
	"status" text DEFAULT 'pending' NOT NULL,
	"status_reason" text,
	"settled_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "chains" (
	"tenant_id" text NOT NULL,
	"session_id" text NOT NULL,
	"block_id" text NOT NULL,
	"start_user_timestamp" bigint NOT NULL,
	"final_assistant_timestamp" bigint,
	"dropped_tool_call_ids" jsonb NOT NULL,
	"dropped_occurrence_keys" jsonb,
	"protected_tool_call_ids" jsonb,
	"tool_refs" jsonb NOT NULL,
	"compressed_at" bigint NOT NULL,
	"range_summary_text" text,
	"body_source" text,
	"seq" bigserial NOT NULL,
	"version" bigint NOT NULL,
	"flush_request_id" uuid,
	CONSTRAINT "chains_tenant_id_session_id_start_user_timestamp_pk" PRIMARY KEY("tenant_id","session_id","start_user_timestamp")
);
--> statement-breakpoint
CREATE TABLE "dedup_aliases" (
	"tenant_id" text NOT NULL,
	"session_id" text NOT NULL,
	"key" text NOT NULL,
	"tool_call_id" text NOT NULL,
	"original_key" text NOT NULL,
	"seq" bigserial NOT NULL,
	"version" bigint NOT NULL,
	"flush_request_id" uuid,
	CONSTRAINT "dedup_aliases_tenant_id_session_id_key_pk" PRIMARY KEY("tenant_id","session_id","key")
);
--> statement-breakpoint
CREATE TABLE "frontiers" (
	"tenant_id" text NOT NULL,
	"session_id" text NOT NULL,
	"last_attempted_tool_call_id" text NOT NULL,
	"last_attempted_tool_name" text NOT NULL,
	"last_attempted_turn_index" integer NOT NULL,
	"last_attempted_timestamp" bigint NOT NULL,
	"attempted_batch_count" integer NOT NULL,
	"attempted_tool_call_count" integer NOT NULL,
	"raw_char_count" integer NOT NULL,
	"summary_char_count" integer NOT NULL,
	"outcome" text NOT NULL,
	"version" bigint NOT NULL,
	CONSTRAINT "frontiers_tenant_id_session_id_pk" PRIMARY KEY("tenant_id","session_id")
);
--> statement-breakpoint
CREATE TABLE "summaries" (
	"tenant_id" text NOT NULL,
	"session_id" text NOT NULL,
	"id" text NOT NULL,
	"seq" bigserial NOT NULL,
	"text" text NOT NULL,
	"refs" jsonb NOT NULL,
	"coverage" jsonb NOT NULL,
	"tool_names" jsonb NOT NULL,
	"turn_index" integer NOT NULL,
	"timestamp" bigint NOT NULL,
	"version" bigint NOT NULL,
	"flush_request_id" uuid,
	CONSTRAINT "summaries_tenant_id_session_id_id_pk" PRIMARY KEY("tenant_id","session_id","id")
);
--> statement-breakpoint
CREATE TABLE "tool_call_records" (
	"tenant_id" text NOT NULL,
	"session_id" text NOT NULL,
	"key" text NOT NULL,
	"seq" bigserial NOT NULL,
	"tool_call_id" text NOT NULL,
	"tool_name" text NOT NULL,
	"args" jsonb NOT NULL,
	"result_text" text NOT NULL,
	"is_error" boolean DEFAULT false NOT NULL,
	"turn_index" integer NOT NULL,
	"batch_timestamp" bigint NOT NULL,
	"result_timestamp" bigint,
	"short_ref" text,
	"content_hash" text,
	"stored_bytes" integer,
	"stored_preview" text,
	"stored_body" text,
	"summary_id" text,
	"backfilled" boolean DEFAULT false NOT NULL,
	"version" bigint NOT NULL,
	"flush_request_id" uuid,
	CONSTRAINT "tool_call_records_tenant_id_session_id_key_pk" PRIMARY KEY("tenant_id","session_id","key")
);
--> statement-breakpoint
CREATE TABLE "flush_metrics" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"session_id" text NOT NULL,
	"flush_request_id" uuid NOT NULL,
	"attempt" integer NOT NULL,
	"trigger" text NOT NULL,
	"outcome" text NOT NULL,
	"reason" text,
	"captured_batches" integer DEFAULT 0 NOT NULL,
	"processed_batches" integer DEFAULT 0 NOT NULL,
	"attempted_calls" integer DEFAULT 0 NOT NULL,
	"dedup_hits" integer DEFAULT 0 NOT NULL,
	"raw_chars" integer DEFAULT 0 NOT NULL,
	"summary_chars" integer DEFAULT 0 NOT NULL,
	"metrics" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"queue_wait_ms" integer,
	"run_ms" integer,
	"model" text,
	"body_source" text,
	"input_tokens" integer DEFAULT 0 NOT NULL,
	"output_tokens" integer DEFAULT 0 NOT NULL,
	"cost" double precision DEFAULT 0 NOT NULL,
	"fidelity_score" double precision,
	"worker_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "flush_requests" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" text NOT NULL,
	"session_id" text NOT NULL,
	"trigger" text NOT NULL,
	"metrics" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"chains" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"settings" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"cursor" bigint DEFAULT 0 NOT NULL,
	"status" text DEFAULT 'queued' NOT NULL,
	"requested_at" timestamp with time zone DEFAULT now() NOT NULL,
	"completed_at" timestamp with time zone,
	"committed_version" bigint,
	"result" jsonb,
	"chains_result" jsonb,
	"coalesced_into" uuid
);
--> statement-breakpoint
CREATE TABLE "diagnostics" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"session_id" text NOT NULL,
	"kind" text NOT NULL,
	"dedup_key" text NOT NULL,
	"detail" text DEFAULT '' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "recoveries" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"session_id" text NOT NULL,
	"query" text NOT NULL,
	"tool_name" text NOT NULL,
	"key" text NOT NULL,
	"ref" text,
	"at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "captures" ADD CONSTRAINT "captures_session_fk" FOREIGN KEY ("tenant_id","session_id") REFERENCES "public"."sessions"("tenant_id","session_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "chains" ADD CONSTRAINT "chains_session_fk" FOREIGN KEY ("tenant_id","session_id") REFERENCES "public"."sessions"("tenant_id","session_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "dedup_aliases" ADD CONSTRAINT "dedup_aliases_session_fk" FOREIGN KEY ("tenant_id","session_id") REFERENCES "public"."sessions"("tenant_id","session_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "frontiers" ADD CONSTRAINT "frontiers_session_fk" FOREIGN KEY ("tenant_id","session_id") REFERENCES "public"."sessions"("tenant_id","session_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "summaries" ADD CONSTRAINT "summaries_session_fk" FOREIGN KEY ("tenant_id","session_id") REFERENCES "public"."sessions"("tenant_id","session_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tool_call_records" ADD CONSTRAINT "tool_call_records_session_fk" FOREIGN KEY ("tenant_id","session_id") REFERENCES "public"."sessions"("tenant_id","session_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "flush_requests" ADD CONSTRAINT "flush_requests_session_fk" FOREIGN KEY ("tenant_id","session_id") REFERENCES "public"."sessions"("tenant_id","session_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "diagnostics" ADD CONSTRAINT "diagnostics_session_fk" FOREIGN KEY ("tenant_id","session_id") REFERENCES "public"."sessions"("tenant_id","session_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "recoveries" ADD CONSTRAINT "recoveries_session_fk" FOREIGN KEY ("tenant_id","session_id") REFERENCES "public"."sessions"("tenant_id","session_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "api_keys_key_hash_uq" ON "api_keys" USING btree ("key_hash");--> statement-breakpoint
CREATE INDEX "api_keys_tenant_idx" ON "api_keys" USING btree ("tenant_id");--> statement-breakpoint
CREATE INDEX "sessions_tenant_updated_idx" ON "sessions" USING btree ("tenant_id","updated_at","session_id");--> statement-breakpoint
CREATE UNIQUE INDEX "captures_occurrence_uq" ON "captures" USING btree ("tenant_id","session_id","occurrence_key");--> statement-breakpoint
CREATE INDEX "captures_pending_idx" ON "captures" USING btree ("tenant_id","session_id","seq") WHERE "captures"."status" = 'pending';--> statement-breakpoint
CREATE INDEX "captures_capture_id_idx" ON "captures" USING btree ("tenant_id","session_id","capture_id");--> statement-breakpoint
CREATE UNIQUE INDEX "chains_block_uq" ON "chains" USING btree ("tenant_id","session_id","block_id");--> statement-breakpoint
CREATE INDEX "chains_version_idx" ON "chains" USING btree ("tenant_id","session_id","version");--> statement-breakpoint
CREATE INDEX "dedup_aliases_version_idx" ON "dedup_aliases" USING btree ("tenant_id","session_id","version");--> statement-breakpoint
CREATE INDEX "dedup_aliases_bare_id_idx" ON "dedup_aliases" USING btree ("tenant_id","session_id","tool_call_id");--> statement-breakpoint
CREATE INDEX "summaries_version_idx" ON "summaries" USING btree ("tenant_id","session_id","version");--> statement-breakpoint
CREATE UNIQUE INDEX "tool_call_records_ref_uq" ON "tool_call_records" USING btree ("tenant_id","session_id","short_ref") WHERE "tool_call_records"."short_ref" is not null;--> statement-breakpoint
CREATE INDEX "tool_call_records_version_idx" ON "tool_call_records" USING btree ("tenant_id","session_id","version");--> statement-breakpoint
CREATE INDEX "tool_call_records_bare_id_idx" ON "tool_call_records" USING btree ("tenant_id","session_id","tool_call_id");--> statement-breakpoint
CREATE INDEX "tool_call_records_session_hash_idx" ON "tool_call_records" USING btree ("tenant_id","session_id","content_hash") WHERE "tool_call_records"."content_hash" is not null and not "tool_call_records"."backfilled";--> statement-breakpoint
CREATE INDEX "tool_call_records_tenant_hash_idx" ON "tool_call_records" USING btree ("tenant_id","content_hash","seq") WHERE "tool_call_records"."content_hash" is not null and not "tool_call_records"."backfilled";--> statement-breakpoint
CREATE UNIQUE INDEX "flush_metrics_attempt_uq" ON "flush_metrics" USING btree ("flush_request_id","attempt");--> statement-breakpoint
CREATE INDEX "flush_metrics_created_idx" ON "flush_metrics" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "flush_metrics_tenant_created_idx" ON "flush_metrics" USING btree ("tenant_id","created_at");--> statement-breakpoint
CREATE INDEX "flush_metrics_session_idx" ON "flush_metrics" USING btree ("tenant_id","session_id","created_at");--> statement-breakpoint
CREATE INDEX "flush_requests_session_idx" ON "flush_requests" USING btree ("tenant_id","session_id","requested_at");--> statement-breakpoint
CREATE INDEX "flush_requests_queued_idx" ON "flush_requests" USING btree ("tenant_id","session_id") WHERE "flush_requests"."status" = 'queued';--> statement-breakpoint
CREATE UNIQUE INDEX "diagnostics_once_uq" ON "diagnostics" USING btree ("tenant_id","session_id","kind","dedup_key");--> statement-breakpoint
CREATE INDEX "diagnostics_tenant_created_idx" ON "diagnostics" USING btree ("tenant_id","created_at");--> statement-breakpoint
CREATE INDEX "recoveries_session_idx" ON "recoveries" USING btree ("tenant_id","session_id","at");--> statement-breakpoint
CREATE INDEX "recoveries_tenant_at_idx" ON "recoveries" USING btree ("tenant_id","at");