// The host policy as judged when a target is saved: each refused address names its rule; what a run may still admit
// (a host name a proof of ownership may admit, an allowlisted loopback port) is not refused.
import { describe, expect, it } from "vitest";
import { parseLoadHostAllowlist, parsePrivateRanges, refusalAtSave, typedEndpointField, typedEndpointOf } from "../src";

const policy = (allowed = "", ranges = "") => ({
  allowlist: parseLoadHostAllowlist(allowed),
  privateRanges: parsePrivateRanges(ranges),
  protectedPorts: [{ host: "127.0.0.1", port: 55432, service: "Postgres" }],
});

describe("refusalAtSave", () => {
  it("refuses loopback not on the allowlist, and admits the allowlisted port", () => {
    expect(refusalAtSave("http://127.0.0.1:80/", policy("127.0.0.1:1024-65535"))).toMatch(/^host policy, loopback: .*allowlist/);
    expect(refusalAtSave("http://localhost:8080/", policy())).toMatch(/^host policy, loopback/);
    expect(refusalAtSave("http://127.0.0.1:8080/", policy("127.0.0.1:1024-65535"))).toBeNull();
  });
  it("refuses opsbench's own ports whatever the allowlist says", () => {
    expect(refusalAtSave("http://127.0.0.1:55432/", policy("127.0.0.1:1024-65535"))).toMatch(/opsbench's own ports: .*Postgres/);
  });
  it("refuses the metadata range and a private address no range opens", () => {
    expect(refusalAtSave("http://169.254.169.254/latest", policy())).toMatch(/never-loaded ranges: .*169\.254\.0\.0\/16/);
    expect(refusalAtSave("http://10.1.2.3:8080/", policy())).toMatch(/private ranges: .*10\.0\.0\.0\/8/);
    expect(refusalAtSave("http://10.1.2.3:8080/", policy("", "10.0.0.0/8"))).toBeNull();
    expect(refusalAtSave("http://10.1.2.3:8080/", policy("10.1.2.3"))).toBeNull();
  });
  it("leaves a host name to the run (a proof of ownership may admit it)", () => {
    expect(refusalAtSave("https://bench.example.com/", policy())).toBeNull();
  });
});

describe("typedEndpointField", () => {
  it("names the spec field the address is at", () => {
    expect(typedEndpointField({ url: "http://a.example/" })).toEqual({ path: "url", url: "http://a.example/" });
    expect(typedEndpointField({ endpointUrl: "http://b.example/" })?.path).toBe("endpointUrl");
    expect(typedEndpointField({ flavour: "openfaas-function", openfaas: { gateway: "http://g.example:8080/" } })?.path).toBe(
      "openfaas.gateway",
    );
    expect(typedEndpointOf({ endpoint: "http://c.example/" })).toBe("http://c.example/");
    expect(typedEndpointField({ image: "nginx" })).toBeNull();
  });
});
