// Doc: "Tags and Groups" (k6 docs, using-k6/tags-and-groups): checks carry the system tags
// `check` (the check name) and `group` ("all wrapping group names separated by ::"), and
// "Checks" (k6 docs, using-k6/checks) feed the `checks` rate metric.
// Expect: group "login" has 2 passing checks, nested group "cart::pay" 1 pass and 1 fail,
// the check named "total is 3" fails once; checks overall 3 passes, 1 fail; exit 0.
import { check, group } from "k6";

export const options = {
  iterations: 1,
  thresholds: {
    "checks{group:::login}": ["rate==1"],
    "checks{group:::cart::pay}": ["rate==0.5"],
    "checks{check:total is 3}": ["rate==0"],
    checks: ["rate==0.75"],
  },
};

export default function () {
  group("login", () => {
    check(1, { "one is 1": (v) => v === 1 });
    check("a", { "a is a": (v) => v === "a" });
  });
  group("cart", () => {
    group("pay", () => {
      check(2, { "two is 2": (v) => v === 2 });
      check(2, { "total is 3": (v) => v === 3 });
    });
  });
}
