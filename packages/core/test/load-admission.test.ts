// How a run's load host was admitted, in words (core load-hosts/load-admission.ts), and the address checks the worker makes
// before any proof is asked (load-host-policy.ts addressInCidr).
import { describe, expect, it } from "vitest";
import { addressInCidr, ALWAYS_BLOCKED_RANGES, describeLoadAdmission, howToAdmit, isIpAddress, typedEndpointOf } from "../src";

describe("load admission", () => {
  it("says how the host was admitted, where load goes, and that a name's other addresses are not loaded", () => {
    expect(
      describeLoadAdmission({
        how: "dns-txt",
        host: "shop.example.com",
        address: "10.0.0.5",
        addresses: ["10.0.0.5", "10.0.0.6"],
        detail: "TXT",
      }),
    ).toBe(
      "load host shop.example.com (10.0.0.5) admitted: its owner published the workspace's token in a DNS TXT record (TXT); " +
        "the name has 2 addresses (10.0.0.5, 10.0.0.6): load goes to the first, 10.0.0.5, only",
    );
    expect(
      describeLoadAdmission({ how: "created-by-run", host: "10.0.0.5", address: "10.0.0.5", addresses: ["10.0.0.5"], detail: "d" }),
    ).toBe("load host 10.0.0.5 admitted: opsbench created it for this run (d)");
  });

  it("tells how to admit a host: the token's URL on the target's own origin, the TXT record, the API, the allowlist", () => {
    const text = howToAdmit(new URL("https://shop.example.com:8443/api"), "abc", "t-1");
    expect(text).toContain(
      "serve https://shop.example.com:8443/.well-known/opsbench-verify/abc answering 200 with the token abc as its body",
    );
    expect(text).toContain('publish a DNS TXT record "opsbench-verify=abc" on shop.example.com');
    expect(text).toContain("GET /api/v1/targets/t-1/verification");
    expect(text).toContain("OPSBENCH_LOAD_ALLOWED_HOSTS");
  });

  it("finds the address a spec names itself, whichever field the kind uses", () => {
    expect(typedEndpointOf({ url: "http://a:1" })).toBe("http://a:1");
    expect(typedEndpointOf({ endpointUrl: "http://b" })).toBe("http://b");
    expect(typedEndpointOf({ endpoint: "http://c" })).toBe("http://c");
    expect(typedEndpointOf({ region: "x" })).toBeNull();
    expect(typedEndpointOf(null)).toBeNull();
  });

  it("matches addresses against ranges, v4 and v6, and never a name", () => {
    expect(addressInCidr("169.254.169.254", "169.254.0.0/16")).toBe(true);
    expect(addressInCidr("10.231.4.2", "169.254.0.0/16")).toBe(false);
    expect(addressInCidr("fd00:ec2::254", "fd00:ec2::254/128")).toBe(true);
    expect(addressInCidr("10.0.0.1", "fe80::/10")).toBe(false);
    expect(addressInCidr("metadata.google.internal", "169.254.0.0/16")).toBe(false);
    expect(ALWAYS_BLOCKED_RANGES.some((r) => addressInCidr("100.100.100.200", r))).toBe(true);
    expect(isIpAddress("[::1]")).toBe(true);
    expect(isIpAddress("shop.example.com")).toBe(false);
  });
});
