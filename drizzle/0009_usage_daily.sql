CREATE TABLE "usage_daily" (
	"day" date NOT NULL,
	"token_id" text NOT NULL,
	"model" text NOT NULL,
	"owner" text NOT NULL,
	"requests" bigint NOT NULL,
	"prompt_tokens" bigint NOT NULL,
	"completion_tokens" bigint NOT NULL,
	"cached_tokens" bigint NOT NULL,
	"reasoning_tokens" bigint NOT NULL,
	"errors" bigint NOT NULL,
	"cost_micros" bigint NOT NULL,
	CONSTRAINT "usage_daily_day_token_id_model_owner_pk" PRIMARY KEY("day","token_id","model","owner")
);
--> statement-breakpoint
-- What the ledger already holds, so the console's charts start complete.
INSERT INTO "usage_daily"
SELECT ("at" AT TIME ZONE 'UTC')::date, "token_id", "model", "owner", count(*), sum("prompt_tokens"), sum("completion_tokens"),
	sum("cached_tokens"), sum("reasoning_tokens"), count(*) FILTER (WHERE "status" >= 400 OR "error_code" IS NOT NULL),
	sum("cost_micros")
FROM "usage_records" GROUP BY 1, 2, 3, 4;
--> statement-breakpoint
-- One upsert per written batch (statement-level, reading the batch's rows as a transition table), in key order so
-- that two replicas writing the same token's day lock its row in the same order and never deadlock.
CREATE FUNCTION "usage_daily_add"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO "usage_daily" AS d
	SELECT ("at" AT TIME ZONE 'UTC')::date, "token_id", "model", "owner", count(*), sum("prompt_tokens"), sum("completion_tokens"),
		sum("cached_tokens"), sum("reasoning_tokens"), count(*) FILTER (WHERE "status" >= 400 OR "error_code" IS NOT NULL),
		sum("cost_micros")
	FROM "added" GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
	ON CONFLICT ("day", "token_id", "model", "owner") DO UPDATE SET
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
