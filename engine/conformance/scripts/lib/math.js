// A local ES module imported by modules-local.js (named exports).
import { twice } from "./util/helper.js";

export function add(a, b) {
  return a + b;
}

export const quadruple = (n) => twice(twice(n));
