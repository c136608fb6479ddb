-- Which hosts may be loaded (issue 21): each workspace has a random key from which a host's proof-of-ownership token
-- is derived (HMAC-SHA256(key, host)), and a run records how its load host was admitted, with the pinned address.
ALTER TABLE "workspaces" ADD COLUMN "host_verification_key" UUID NOT NULL DEFAULT gen_random_uuid();
ALTER TABLE "runs" ADD COLUMN "load_admission" JSONB;
