// Before each file of the browser project: its own database and Redis key
// prefix, a worker and a web server bound to them (testWebUrl()).
import { afterAll } from "vitest";
import { closeFileServices, openFileServices, useWeb, waitForWebBuild } from "../file-services";

await openFileServices();
afterAll(closeFileServices);
await waitForWebBuild();
await useWeb();
