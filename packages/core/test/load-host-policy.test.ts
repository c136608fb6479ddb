import { describe, expect, it } from "vitest";
import { EMPTY_LOAD_HOST_ALLOWLIST, isLoopbackAddress, loadAllowedHostsSetting, loadHostVerdict, parseLoadHostAllowlist } from "../src";

const allowed = (url: string, list = EMPTY_LOAD_HOST_ALLOWLIST) => loadHostVerdict(url, list).allowed;

describe("the load host policy for endpoints opsbench did not start", () => {
  it("always lets loopback through (local stand-ins), whatever the allowlist", () => {
    for (const url of [
      "http://127.0.0.1:8080",
      "http://127.9.8.7/",
      "http://localhost:3000",
      "http://[::1]:9/",
      "http://[::ffff:127.0.0.1]/",
    ])
      expect(loadHostVerdict(url, EMPTY_LOAD_HOST_ALLOWLIST)).toMatchObject({ allowed: true, reason: "loopback" });
    expect(isLoopbackAddress("128.0.0.1")).toBe(false);
    expect(isLoopbackAddress("[::2]")).toBe(false);
    expect(isLoopbackAddress("localhost.example.com")).toBe(false);
  });

  it("refuses any other host when the allowlist is empty, naming the host and the setting", () => {
    const v = loadHostVerdict("http://10.1.2.3:9/path", EMPTY_LOAD_HOST_ALLOWLIST);
    expect(v).toEqual({
      allowed: false,
      host: "10.1.2.3",
      message: expect.stringMatching(
        /^load to 10\.1\.2\.3 refused: .*not on the admin's allowlist \(OPSBENCH_LOAD_ALLOWED_HOSTS .*now empty/,
      ),
    });
    for (const url of [
      "http://169.254.169.254/",
      "https://opsbench-abc.lambda-url.us-east-1.on.aws/",
      "http://[fd00::1]/",
      "http://0.0.0.0/",
    ])
      expect(allowed(url)).toBe(false);
  });

  it("lets through exact names, *.domain subdomains, IPv4 and IPv6 CIDRs and single addresses on the allowlist", () => {
    const list = parseLoadHostAllowlist(" Bench.Example.com , *.on.aws, 10.1.0.0/16, 192.0.2.7, 2001:db8::/32 ,");
    expect(list.entries).toEqual(["bench.example.com", "*.on.aws", "10.1.0.0/16", "192.0.2.7", "2001:db8::/32"]);
    expect(loadHostVerdict("https://bench.example.com./x", list)).toMatchObject({ allowed: true, reason: "allowlist" });
    expect(allowed("https://opsbench-abc.lambda-url.us-east-1.on.aws/", list)).toBe(true);
    expect(allowed("https://on.aws/", list)).toBe(false); // *.domain: subdomains only
    expect(allowed("https://other.example.com/", list)).toBe(false);
    expect(allowed("https://bench.example.com.evil.net/", list)).toBe(false);
    expect(allowed("http://10.1.2.3:9/", list)).toBe(true);
    expect(allowed("http://10.2.0.1/", list)).toBe(false);
    expect(allowed("http://192.0.2.7/", list)).toBe(true);
    expect(allowed("http://192.0.2.8/", list)).toBe(false);
    expect(allowed("http://[2001:db8:1::5]/", list)).toBe(true);
    expect(allowed("http://[2001:db9::5]/", list)).toBe(false);
    // An address is matched by CIDR only, never by a name entry (no resolving either way).
    expect(allowed("http://10.1.2.3/", parseLoadHostAllowlist("bench.example.com"))).toBe(false);
    expect(loadHostVerdict("http://10.9.9.9/", list)).toMatchObject({
      allowed: false,
      message: expect.stringContaining("now: bench.example.com, *.on.aws"),
    });
  });

  it("refuses a bad entry when the worker's environment is parsed, naming it", () => {
    expect(() => parseLoadHostAllowlist("10.0.0.0/33")).toThrow(/"10\.0\.0\.0\/33" has a bad prefix length/);
    expect(() => parseLoadHostAllowlist("bench.example.com/8")).toThrow(/OPSBENCH_LOAD_ALLOWED_HOSTS: "bench\.example\.com\/8" is neither/);
    expect(() => parseLoadHostAllowlist("http://x")).toThrow(/is neither a host name/);
    expect(() => parseLoadHostAllowlist("2001:db8:::1")).toThrow(/is neither/);
    expect(loadAllowedHostsSetting.safeParse("*").success).toBe(false);
    expect(loadAllowedHostsSetting.parse(undefined)).toEqual(EMPTY_LOAD_HOST_ALLOWLIST);
  });
});
