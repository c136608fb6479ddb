// opsbench-engine refuses modules it does not implement (engine brief): importing k6/browser
// (k6 docs: "k6/browser") fails at init, naming the module on stderr, with k6's exit code for a
// script error at init, 107 (ScriptException).
import { browser } from "k6/browser";

export default function () {
  browser.newPage();
}
