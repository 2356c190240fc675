-- The rollups' trigger function of 0011, the same totals in the same lock order (daily rows, then monthly, each in key
-- order), with each upsert grouping the batch once by model, owner, token and day (or month) before spreading the
-- groups over the three dimensions, rather than spreading every row three ways and grouping that: a ledger batch is a
-- few groups of many rows. A third to a half of the trigger's time on PGlite (bench/ledger-write.ts, BENCHMARKS.md
-- "Governance on ÷ off (#31)"). Sums of the groups' sums and counts are the rows' own: exact as before.
CREATE OR REPLACE FUNCTION "usage_daily_add"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO "usage_daily" AS d
	SELECT k."dimension", k."key", g."day", sum(g."requests"), sum(g."prompt_tokens"), sum(g."completion_tokens"),
		sum(g."cached_tokens"), sum(g."reasoning_tokens"), sum(g."errors"), sum(g."cost_micros")
	FROM (
		SELECT r."model", r."owner", r."token_id", (r."at" AT TIME ZONE 'UTC')::date AS "day", count(*) AS "requests",
			sum(r."prompt_tokens") AS "prompt_tokens", sum(r."completion_tokens") AS "completion_tokens",
			sum(r."cached_tokens") AS "cached_tokens", sum(r."reasoning_tokens") AS "reasoning_tokens",
			count(*) FILTER (WHERE r."status" >= 400 OR r."error_code" IS NOT NULL) AS "errors", sum(r."cost_micros") AS "cost_micros"
		FROM "added" r
		GROUP BY 1, 2, 3, 4
	) g
	CROSS JOIN LATERAL (VALUES ('model', g."model"), ('owner', g."owner"), ('token', g."token_id")) k("dimension", "key")
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
	SELECT k."dimension", k."key", g."month", sum(g."requests"), sum(g."prompt_tokens"), sum(g."completion_tokens"),
		sum(g."cached_tokens"), sum(g."reasoning_tokens"), sum(g."errors"), sum(g."cost_micros")
	FROM (
		SELECT r."model", r."owner", r."token_id", date_trunc('month', r."at" AT TIME ZONE 'UTC')::date AS "month", count(*) AS "requests",
			sum(r."prompt_tokens") AS "prompt_tokens", sum(r."completion_tokens") AS "completion_tokens",
			sum(r."cached_tokens") AS "cached_tokens", sum(r."reasoning_tokens") AS "reasoning_tokens",
			count(*) FILTER (WHERE r."status" >= 400 OR r."error_code" IS NOT NULL) AS "errors", sum(r."cost_micros") AS "cost_micros"
		FROM "added" r
		GROUP BY 1, 2, 3, 4
	) g
	CROSS JOIN LATERAL (VALUES ('model', g."model"), ('owner', g."owner"), ('token', g."token_id")) k("dimension", "key")
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
