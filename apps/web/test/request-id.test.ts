// Every /api/v1 answer carries an X-Request-Id, the one its log lines carry: the
// caller's (e.g. a proxy's) when it is a sane token, a new one otherwise.
import { describe, expect, it } from "vitest";
import { testWebUrl } from "../../../tests/helpers";

const web = testWebUrl();

describe("X-Request-Id on /api/v1", () => {
  it("echoes a caller's id, on success and on an error answer", async () => {
    const ok = await fetch(`${web}/api/v1/runs`, { headers: { "x-request-id": "proxy-1234.abc" } });
    expect(ok.status).toBe(200);
    expect(ok.headers.get("x-request-id")).toBe("proxy-1234.abc");
    const missing = await fetch(`${web}/api/v1/runs/00000000-0000-0000-0000-000000000000`, { headers: { "x-request-id": "proxy-5678" } });
    expect(missing.status).toBe(404);
    expect(missing.headers.get("x-request-id")).toBe("proxy-5678");
  });

  it("makes a new id when none or a malformed one is given", async () => {
    const none = await fetch(`${web}/api/v1/runs`);
    expect(none.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    const odd = await fetch(`${web}/api/v1/runs`, { headers: { "x-request-id": 'a b\\c"}{' } });
    expect(odd.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  });
});
