ALTER TABLE "usage_journal" ADD COLUMN "budget_usd_period" text;--> statement-breakpoint
ALTER TABLE "usage_journal" ADD COLUMN "prompt_rate" bigint;--> statement-breakpoint
ALTER TABLE "usage_journal" ADD COLUMN "completion_rate" bigint;