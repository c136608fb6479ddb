// "Modules" (k6 docs, using-k6/modules), "Remote modules": k6 would fetch this over HTTPS.
// opsbench-engine does not load remote code (and the test machine has no internet): the init
// fails, naming the URL on stderr, exit 107.
import { randomIntBetween } from "https://jslib.k6.io/k6-utils/1.4.0/index.js";

export default function () {
  randomIntBetween(1, 2);
}
