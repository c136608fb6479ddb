// "Modules" (k6 docs, using-k6/modules): built-in modules are the k6/* modules documented in the
// JavaScript API. An unknown one is a script error at init: the module is named on stderr and
// k6 exits with 107.
import nothing from "k6/no-such-module";

export default function () {
  nothing();
}
