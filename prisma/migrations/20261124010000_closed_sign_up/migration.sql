-- Sign-up is closed by default (issue 20): new installs start closed, and existing ones are closed too (the old
-- default was open whether or not the admin chose it; an admin who wants it open opens it again in Settings,
-- where open sign-up now lands new accounts in no workspace instead of one of their own).
ALTER TABLE "instance_settings" ALTER COLUMN "open_sign_up" SET DEFAULT false;
UPDATE "instance_settings" SET "open_sign_up" = false;

-- The first account is made with a one-time setup link (its secret stored hashed), not by the first visitor.
ALTER TABLE "instance_settings" ADD COLUMN "setup_token_hash" TEXT,
ADD COLUMN "setup_email" TEXT,
ADD COLUMN "sign_up_workspace_id" UUID;

-- Invitations are accepted only with their link's secret (stored hashed). Pending invitations made before this
-- have none, so they cannot be accepted: the owner invites again to get a link.
ALTER TABLE "invitations" ADD COLUMN "secret_hash" TEXT;
CREATE UNIQUE INDEX "invitations_secret_hash_key" ON "invitations"("secret_hash");
