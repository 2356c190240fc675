-- No ledger batch may land between the backfill below and the new trigger function (it would be in the daily rollup
-- and not the monthly one): SHARE waits for the batches being written and holds off new ones until this commits. First,
-- before anything here locks the rollup that such a batch's trigger writes.
LOCK TABLE "usage_records" IN SHARE MODE;
--> statement-breakpoint
CREATE TABLE "usage_monthly" (
	"dimension" text NOT NULL,
	"key" text NOT NULL,
	"month" date NOT NULL,
	"requests" bigint NOT NULL,
	"prompt_tokens" bigint NOT NULL,
	"completion_tokens" bigint NOT NULL,
	"cached_tokens" bigint NOT NULL,
	"reasoning_tokens" bigint NOT NULL,
	"errors" bigint NOT NULL,
	"cost_micros" bigint NOT NULL,
	CONSTRAINT "usage_monthly_dimension_key_month_pk" PRIMARY KEY("dimension","key","month")
);
--> statement-breakpoint
CREATE INDEX "usage_daily_dimension_day_idx" ON "usage_daily" USING btree ("dimension","day");
--> statement-breakpoint
-- What the daily rollup already holds, so the months start complete.
INSERT INTO "usage_monthly"
SELECT "dimension", "key", date_trunc('month', "day"::timestamp)::date, sum("requests"), sum("prompt_tokens"), sum("completion_tokens"),
	sum("cached_tokens"), sum("reasoning_tokens"), sum("errors"), sum("cost_micros")
FROM "usage_daily"
GROUP BY 1, 2, 3 ORDER BY 1, 2, 3;
--> statement-breakpoint
-- The daily upsert as in 0010, then the same batch by month. Every replica locks the daily rows first and the monthly
-- rows second, each in key order, so two replicas' batches still never deadlock.
CREATE OR REPLACE FUNCTION "usage_daily_add"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO "usage_daily" AS d
	SELECT k."dimension", k."key", (r."at" AT TIME ZONE 'UTC')::date, count(*), sum(r."prompt_tokens"), sum(r."completion_tokens"),
		sum(r."cached_tokens"), sum(r."reasoning_tokens"), count(*) FILTER (WHERE r."status" >= 400 OR r."error_code" IS NOT NULL),
		sum(r."cost_micros")
	FROM "added" r
	CROSS JOIN LATERAL (VALUES ('model', r."model"), ('owner', r."owner"), ('token', r."token_id")) k("dimension", "key")
	GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
	ON CONFLICT ("dimension", "key", "day") DO UPDATE SET
		"requests" = d."requests" + excluded."requests",
		"prompt_tokens" = d."prompt_tokens" + excluded."prompt_tokens",
		"completion_tokens" = d."completion_tokens" + excluded."completion_tokens",
		"cached_tokens" = d."cached_tokens" + excluded."cached_tokens",
		"reasoning_tokens" = d."reasoning_tokens" + excluded."reasoning_tokens",
		"errors" = d."errors" + excluded."errors",
		"cost_micros" = d."cost_micros" + excluded."cost_micros";
	INSERT INTO "usage_monthly" AS m
	SELECT k."dimension", k."key", date_trunc('month', r."at" AT TIME ZONE 'UTC')::date, count(*), sum(r."prompt_tokens"),
		sum(r."completion_tokens"), sum(r."cached_tokens"), sum(r."reasoning_tokens"),
		count(*) FILTER (WHERE r."status" >= 400 OR r."error_code" IS NOT NULL), sum(r."cost_micros")
	FROM "added" r
	CROSS JOIN LATERAL (VALUES ('model', r."model"), ('owner', r."owner"), ('token', r."token_id")) k("dimension", "key")
	GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
	ON CONFLICT ("dimension", "key", "month") DO UPDATE SET
		"requests" = m."requests" + excluded."requests",
		"prompt_tokens" = m."prompt_tokens" + excluded."prompt_tokens",
		"completion_tokens" = m."completion_tokens" + excluded."completion_tokens",
		"cached_tokens" = m."cached_tokens" + excluded."cached_tokens",
		"reasoning_tokens" = m."reasoning_tokens" + excluded."reasoning_tokens",
		"errors" = m."errors" + excluded."errors",
		"cost_micros" = m."cost_micros" + excluded."cost_micros";
	RETURN NULL;
END $$;
