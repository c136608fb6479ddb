// This app's smoke test is the one both echo functions share.
import { runIfMain } from "../../smoke-lib.mjs";
import { smoke } from "../smoke.mjs";

export { smoke };
runIfMain(import.meta.url, smoke);
