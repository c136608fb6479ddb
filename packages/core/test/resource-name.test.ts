import { describe, expect, it } from "vitest";
import { targetInput, workloadInput } from "../src/index";

const spec = { kind: "constant-vus", vus: 1, duration: "10s", requests: [{ name: "home", path: "/" }] };

describe("a target's or workload's name", () => {
  it("cannot be 'new', the address of the form that makes one", () => {
    const w = workloadInput.safeParse({ name: "new", spec });
    expect(w.success).toBe(false);
    expect(w.error?.issues[0]?.message).toMatch(/'new' is reserved/);
    const t = targetInput.safeParse({ name: "new", kind: "endpoint", spec: { url: "http://127.0.0.1:9009" } });
    expect(t.success).toBe(false);
    expect(JSON.stringify(t.error?.issues)).toMatch(/'new' is reserved/);
  });
  it("may contain 'new' and keeps the character rule", () => {
    expect(workloadInput.safeParse({ name: "new-ramp", spec }).success).toBe(true);
    expect(targetInput.safeParse({ name: "renew", kind: "endpoint", spec: { url: "http://127.0.0.1:9009" } }).success).toBe(true);
    expect(workloadInput.safeParse({ name: "New", spec }).success).toBe(false);
  });
});
