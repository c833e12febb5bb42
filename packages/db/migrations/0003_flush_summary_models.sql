ALTER TABLE "flush_metrics" ADD COLUMN "summary_models" jsonb;--> statement-breakpoint
ALTER TABLE "flush_metrics" ADD COLUMN "summarizer_source" text;--> statement-breakpoint
ALTER TABLE "flush_metrics" ADD COLUMN "summarizer_notice" text;