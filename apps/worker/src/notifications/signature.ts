// The webhook signature (docs/notifications.md "Verifying a delivery"): HMAC-SHA256 with the endpoint's secret over
// "<timestamp>.<body>", hex, sent as `X-Opsbench-Signature: sha256=<hex>` beside `X-Opsbench-Timestamp: <unix seconds>`.
// The timestamp is signed so a receiver can refuse an old delivery replayed to it.
import { createHmac } from "node:crypto";

export const SIGNATURE_HEADER = "x-opsbench-signature";
export const TIMESTAMP_HEADER = "x-opsbench-timestamp";

export function webhookSignature(secret: string, timestamp: number, body: string): string {
  return `sha256=${createHmac("sha256", secret).update(`${timestamp}.${body}`).digest("hex")}`;
}
