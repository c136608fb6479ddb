// How a run's load host was admitted, in words (core load-hosts/load-admission.ts), and the address checks the worker makes
// before any proof is asked (load-host-policy.ts addressInCidr).
import { describe, expect, it } from "vitest";
import {
  addressInCidr,
  ALWAYS_BLOCKED_RANGES,
  describeLoadAdmission,
  howToAdmit,
  isIpAddress,
  parsePrivateRanges,
  privateRangeOf,
  typedEndpointOf,
} from "../src";

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
      "load host shop.example.com (10.0.0.5) admitted: the address's owner published the workspace's token in a DNS TXT record on its reverse name (TXT); " +
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
    expect(text).toContain('publish a DNS TXT record "opsbench-verify=abc" on the address\'s reverse name');
    expect(text).toContain("GET /api/v1/targets/t-1/verification");
    expect(text).toContain("OPSBENCH_LOAD_ALLOWED_HOSTS");
    // Once the address is known, the record's place is named: the reverse name of that address, not the host name.
    expect(howToAdmit(new URL("https://shop.example.com:8443/api"), "abc", "t-1", "203.0.113.7")).toContain(
      'publish a DNS TXT record "opsbench-verify=abc" on 7.113.0.203.in-addr.arpa (the reverse name of 203.0.113.7, the address load goes to)',
    );
  });

  it("knows the private and shared ranges, and reads the admin's opened ones", () => {
    expect(["10.1.2.3", "172.20.0.1", "192.168.1.1", "100.64.0.9", "198.18.0.1", "fd00::1"].map(privateRangeOf)).toEqual([
      "10.0.0.0/8",
      "172.16.0.0/12",
      "192.168.0.0/16",
      "100.64.0.0/10",
      "198.18.0.0/15",
      "fc00::/7",
    ]);
    expect(privateRangeOf("203.0.113.7")).toBeNull();
    expect(privateRangeOf("172.32.0.1")).toBeNull();
    expect(parsePrivateRanges(" 10.231.0.0/16, 192.168.5.5 ,")).toEqual(["10.231.0.0/16", "192.168.5.5/32"]);
    expect(() => parsePrivateRanges("10.0.0.0/33")).toThrow('OPSBENCH_LOAD_PRIVATE_RANGES: "10.0.0.0/33" is not an IP address or CIDR');
    expect(() => parsePrivateRanges("intranet.example")).toThrow(/"intranet.example" is not an IP address or CIDR/);
  });

  it("finds the address a spec names itself, whichever field the kind uses", () => {
    expect(typedEndpointOf({ url: "http://a:1" })).toBe("http://a:1");
    expect(typedEndpointOf({ endpointUrl: "http://b" })).toBe("http://b");
    expect(typedEndpointOf({ endpoint: "http://c" })).toBe("http://c");
    expect(typedEndpointOf({ flavour: "openfaas-function", openfaas: { gateway: "http://gw:8080" } })).toBe("http://gw:8080");
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
