// Password hashes with scrypt (node:crypto). Sign-in costs CPU on purpose, as the
// study's did (bcrypt): it was the slowest endpoint, 350-520 ms on average.
import { randomBytes, scrypt, timingSafeEqual } from "node:crypto";

function derive(password, salt, cost) {
  return new Promise((resolve, reject) =>
    scrypt(password, salt, 32, { N: cost, r: 8, p: 1, maxmem: 256 * cost * 8 + 1024 * 1024 }, (err, key) =>
      err ? reject(err) : resolve(key),
    ),
  );
}

/** "scrypt$<cost>$<salt>$<hash>", the cost kept with the hash so it can change later. */
export async function hashPassword(password, cost) {
  const salt = randomBytes(16);
  return `scrypt$${cost}$${salt.toString("base64url")}$${(await derive(password, salt, cost)).toString("base64url")}`;
}

export async function checkPassword(password, stored) {
  const [kind, cost, salt, hash] = String(stored).split("$");
  if (kind !== "scrypt") return false;
  const want = Buffer.from(hash, "base64url");
  const got = await derive(password, Buffer.from(salt, "base64url"), Number(cost));
  return got.length === want.length && timingSafeEqual(got, want);
}
