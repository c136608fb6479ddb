// Before each file of the services and own-process projects: its own database and Redis key prefix (a worker only
// when the file asks: openTestStack or useWorker); a file in `webFiles` (vitest.config.ts) also gets a worker and a
// web server bound to them (testWebUrl()) before it begins, with sign-in required for one in `signedInWebFiles`.
import { afterAll } from "vitest";
import { closeFileServices, fileWebAuth, openFileServices, useWeb, waitForWebBuild } from "../file-services";

await openFileServices();
// Registered first, so it runs after the file's own afterAll hooks have closed their connections.
afterAll(closeFileServices);
const auth = fileWebAuth();
if (auth) {
  await waitForWebBuild();
  await useWeb({ auth });
}
