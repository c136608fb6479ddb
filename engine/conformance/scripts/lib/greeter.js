// A local ES module imported by modules-local.js (a default export and a re-export).
import { twice } from "./util/helper.js";

export default function greet(name) {
  return `hello ${name}`;
}

export { twice };
