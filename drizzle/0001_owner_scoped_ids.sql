ALTER TABLE "plants" DROP CONSTRAINT "plants_id_unique";--> statement-breakpoint
ALTER TABLE "plants" ADD CONSTRAINT "plants_owner_id_unique" UNIQUE("owner","id");