// Doc: "SharedArray" (k6 docs, javascript-api/k6-data/sharedarray): built once in the init
// context from a function returning an array; supports `length`, index access and for-of, and
// "when a script requests an element, k6 gives a copy of that element" and "once constructed, a
// SharedArray is read-only". The JSON comes from
// "open( filePath, [mode] )" (k6 docs, javascript-api/init-context/open).
// Expect: 2 VUs x 2 iterations, 5 passing checks each: checks 20 passes, 0 fails.
import { check } from "k6";
import { SharedArray } from "k6/data";

const users = new SharedArray("users", () => JSON.parse(open("./data/users.json")));

export const options = {
  scenarios: { each: { executor: "per-vu-iterations", vus: 2, iterations: 2 } },
};

export default function () {
  let ages = 0;
  for (const u of users) ages += u.age;
  const first = users[0];
  try {
    first.name = "changed";
  } catch (_) {
    // A read-only element may refuse the write; either way the array must not change.
  }
  check(users, {
    "length is 4": (a) => a.length === 4,
    "index access": (a) => a[1].name === "grace",
    "for-of sums ages": () => ages === 135,
    "array is read-only": (a) => a[0].name === "ada",
    "last element": (a) => a[a.length - 1].name === "margaret",
  });
}
