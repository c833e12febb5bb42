CREATE TABLE "capture_bodies" (
	"tenant_id" text NOT NULL,
	"session_id" text NOT NULL,
	"occurrence_key" text NOT NULL,
	"part" integer NOT NULL,
	"start_char" integer NOT NULL,
	"chars" integer NOT NULL,
	"text" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "capture_bodies_tenant_id_session_id_occurrence_key_part_pk" PRIMARY KEY("tenant_id","session_id","occurrence_key","part")
);
--> statement-breakpoint
ALTER TABLE "captures" ADD COLUMN "body_parts" integer;--> statement-breakpoint
ALTER TABLE "tool_call_records" ADD COLUMN "stored_parts" integer;--> statement-breakpoint
ALTER TABLE "tool_call_records" ADD COLUMN "stored_chars" integer;--> statement-breakpoint
ALTER TABLE "capture_bodies" ADD CONSTRAINT "capture_bodies_session_fk" FOREIGN KEY ("tenant_id","session_id") REFERENCES "public"."sessions"("tenant_id","session_id") ON DELETE cascade ON UPDATE no action;