// Doc: "Modules" (k6 docs, using-k6/modules), "Local modules": "import ... from './lib/...'"
// loads files relative to the importing script, with named and default exports.
// Expect: every check passes (named, default and re-exported bindings from a folder of
// modules, the shared helper module evaluated once); 2 iterations: checks 10 passes.
import { check } from "k6";
import greet, { twice } from "./lib/greeter.js";
import { add, quadruple } from "./lib/math.js";
import { loads } from "./lib/util/helper.js";

export const options = { iterations: 2 };

export default function () {
  check(null, {
    "named export add": () => add(2, 3) === 5,
    "named export using a nested import": () => quadruple(3) === 12,
    "default export": () => greet("k6") === "hello k6",
    "re-export": () => twice(21) === 42,
    "shared module evaluated once": () => loads === 1,
  });
}
