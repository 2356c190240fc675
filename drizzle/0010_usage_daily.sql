CREATE TABLE "usage_daily" (
	"dimension" text NOT NULL,
	"key" text NOT NULL,
	"day" date NOT NULL,
	"requests" bigint NOT NULL,
	"prompt_tokens" bigint NOT NULL,
	"completion_tokens" bigint NOT NULL,
	"cached_tokens" bigint NOT NULL,
	"reasoning_tokens" bigint NOT NULL,
	"errors" bigint NOT NULL,
	"cost_micros" bigint NOT NULL,
	CONSTRAINT "usage_daily_dimension_key_day_pk" PRIMARY KEY("dimension","key","day")
);
--> statement-breakpoint
-- What the ledger already holds, so the console's charts start complete. Each row counts once per dimension: for its
-- model, its owner and its token.
INSERT INTO "usage_daily"
SELECT k."dimension", k."key", (r."at" AT TIME ZONE 'UTC')::date, count(*), sum(r."prompt_tokens"), sum(r."completion_tokens"),
	sum(r."cached_tokens"), sum(r."reasoning_tokens"), count(*) FILTER (WHERE r."status" >= 400 OR r."error_code" IS NOT NULL),
	sum(r."cost_micros")
FROM "usage_records" r
CROSS JOIN LATERAL (VALUES ('model', r."model"), ('owner', r."owner"), ('token', r."token_id")) k("dimension", "key")
GROUP BY 1, 2, 3 ORDER BY 1, 2, 3;
--> statement-breakpoint
-- One upsert per written batch (statement-level, reading the batch's rows as a transition table), in key order so
-- that two replicas writing the same day of a model, owner or token lock its rows in the same order and never deadlock.
CREATE FUNCTION "usage_daily_add"() RETURNS trigger LANGUAGE plpgsql AS $$
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
	RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "usage_daily_add" AFTER INSERT ON "usage_records" REFERENCING NEW TABLE AS "added"
	FOR EACH STATEMENT EXECUTE FUNCTION "usage_daily_add"();
