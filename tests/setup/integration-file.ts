// Before each file of the integration project: its own database and Redis key
// prefix (a worker only when the file asks: openTestStack or useWorker).
import { afterAll } from "vitest";
import { closeFileServices, openFileServices } from "../file-services";

await openFileServices();
// Registered first, so it runs after the file's own afterAll hooks have closed their connections.
afterAll(closeFileServices);
