import { describe, expect, it } from "vitest";
import {
  EMPTY_LOAD_HOST_ALLOWLIST,
  isLoopbackAddress,
  loadAllowedHostsSetting,
  loadHostVerdict,
  opsbenchServicePorts,
  parseBlockedPorts,
  parseLoadHostAllowlist,
  protectedPortVerdict,
} from "../src";

const allowed = (url: string, list = EMPTY_LOAD_HOST_ALLOWLIST) => loadHostVerdict(url, list).allowed;

describe("the load host policy for endpoints opsbench did not start", () => {
  it("refuses loopback (where opsbench's own services listen) unless the allowlist names that address and port", () => {
    for (const url of [
      "http://127.0.0.1:8080",
      "http://127.9.8.7/",
      "http://localhost:3000",
      "http://[::1]:9/",
      "http://[::ffff:127.0.0.1]/",
    ])
      expect(loadHostVerdict(url, EMPTY_LOAD_HOST_ALLOWLIST)).toMatchObject({ allowed: false });
    expect(loadHostVerdict("http://127.0.0.1:8080/x", EMPTY_LOAD_HOST_ALLOWLIST)).toMatchObject({
      message: expect.stringContaining('allow it as "127.0.0.1:8080"'),
    });
    const list = parseLoadHostAllowlist("127.0.0.1:8080, localhost:3000-3009, [::1]:9, 0.0.0.0/0");
    expect(allowed("http://127.0.0.1:8080/", list)).toBe(true);
    expect(allowed("http://127.0.0.1:8081/", list)).toBe(false);
    expect(allowed("http://127.0.0.2:8080/", list)).toBe(false);
    expect(allowed("http://localhost:3005/", list)).toBe(true);
    expect(allowed("http://localhost:3010/", list)).toBe(false);
    expect(allowed("http://[::1]:9/", list)).toBe(true);
    // A CIDR covering loopback does not open it: only host:port entries do.
    expect(allowed("http://127.0.0.1:9999/", list)).toBe(false);
    expect(allowed("http://10.0.0.1:9999/", list)).toBe(true);
    // Entries with a port work for other hosts too, on those ports only.
    expect(allowed("https://bench.example.com/", parseLoadHostAllowlist("bench.example.com:443"))).toBe(true);
    expect(allowed("http://bench.example.com/", parseLoadHostAllowlist("bench.example.com:443"))).toBe(false);
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
    expect(() => parseLoadHostAllowlist("127.0.0.1")).toThrow(/is a loopback address.*name the address and its port/);
    expect(() => parseLoadHostAllowlist("localhost")).toThrow(/is a loopback address/);
    expect(() => parseLoadHostAllowlist("127.0.0.1:0")).toThrow(/bad port or port range/);
    expect(() => parseLoadHostAllowlist("127.0.0.1:9-8")).toThrow(/bad port or port range/);
    expect(loadAllowedHostsSetting.parse(undefined)).toEqual(EMPTY_LOAD_HOST_ALLOWLIST);
  });
});

describe("opsbench's own ports are never a load target", () => {
  const own = opsbenchServicePorts({
    databaseUrl: "postgresql://opsbench@127.0.0.1:55432/opsbench",
    redisUrl: "redis://:pw@localhost:56379/0",
    webPort: 3210,
    extra: parseBlockedPorts("10.0.0.5:9090"),
  });

  it("refuses them through any loopback address, naming the port and the service", () => {
    expect(protectedPortVerdict("http://127.0.0.1:55432/", own)?.message).toContain("the target's port 55432 is Postgres's");
    expect(protectedPortVerdict("http://localhost:56379", own)?.message).toContain("the target's port 56379 is Redis's");
    expect(protectedPortVerdict("http://127.0.0.2:3210/api/v1/runs/x/ingest", own)?.message).toContain("is the web app's");
    expect(protectedPortVerdict("http://[::1]:55432/", own)).not.toBeNull();
    expect(protectedPortVerdict("http://10.0.0.5:9090/", own)?.message).toContain("a service the admin protects");
  });

  it("lets other ports and other hosts' same ports through", () => {
    expect(protectedPortVerdict("http://127.0.0.1:8080/", own)).toBeNull();
    expect(protectedPortVerdict("http://10.0.0.9:55432/", own)).toBeNull();
    expect(protectedPortVerdict("http://10.0.0.5:9091/", own)).toBeNull();
    // A service on another host (compose's "postgres") is refused by name, not on loopback.
    const compose = opsbenchServicePorts({ databaseUrl: "postgresql://u:p@postgres:5432/db", redisUrl: "redis://redis:6379" });
    expect(protectedPortVerdict("http://postgres:5432/", compose)).not.toBeNull();
    expect(protectedPortVerdict("http://127.0.0.1:5432/", compose)).toBeNull();
    expect(() => parseBlockedPorts("nonsense")).toThrow(/OPSBENCH_LOAD_BLOCKED_PORTS: "nonsense" is not host:port/);
  });
});
