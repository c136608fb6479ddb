// The egress rule for the server's own requests (webhooks, SMTP; core load-hosts/outbound-hosts.ts) and the bodies
// each channel sends (notifications/notification-events.ts).
import { describe, expect, it } from "vitest";
import {
  emailOf,
  ipv4MappedAddress,
  type NotificationEvent,
  notificationEventSchema,
  outboundAddressRefusal,
  outboundRefusalAtSave,
  parseLoadHostAllowlist,
  parsePrivateRanges,
  retryDelayMs,
  smtpServerUrl,
  webhookBody,
} from "../src";

const policy = {
  allowlist: parseLoadHostAllowlist("127.0.0.1:9000-9100,hooks.internal.example,10.9.0.0/16"),
  privateRanges: parsePrivateRanges("172.20.0.0/16"),
  protectedPorts: [
    { host: "127.0.0.1", port: 5432, service: "Postgres" },
    { host: "127.0.0.1", port: 6379, service: "Redis" },
    { host: "127.0.0.1", port: 9050, service: "the web app" },
  ],
};

describe("webhook and SMTP egress (the load-target rule)", () => {
  it.each([
    ["http://10.0.0.5/hook", "10.0.0.5 is a private address (10.0.0.0/8)"],
    ["https://192.168.1.1/hook", "192.168.1.1 is a private address (192.168.0.0/16)"],
    ["http://169.254.169.254/latest/meta-data", "169.254.169.254 is in 169.254.0.0/16 (the metadata services, link-local)"],
    ["http://[fd00:ec2::254]/", "is in fd00:ec2::254/128"],
    ["http://127.0.0.1:8080/hook", "127.0.0.1 is a loopback address"],
    ["http://localhost:8080/hook", "loopback address"],
    ["http://127.0.0.1:9050/hook", "the port of one of opsbench's own services"],
    ["http://127.0.0.1:5432/", "the port of one of opsbench's own services"],
    // IPv4-mapped IPv6 addresses reach the IPv4 address: judged as it (the URL parser writes ::ffff:a00:5).
    ["http://[::ffff:10.0.0.5]/hook", "10.0.0.5 is a private address (10.0.0.0/8)"],
    ["http://[::ffff:169.254.169.254]/", "169.254.169.254 is in 169.254.0.0/16"],
    ["http://[::ffff:127.0.0.1]:8080/", "127.0.0.1 is a loopback address"],
    ["http://[::]:8080/hook", "the unspecified address"],
    ["http://0.0.0.0:8080/hook", "0.0.0.0 is in 0.0.0.0/8"],
    ["http://[fd12::1]/hook", "is a private address (fc00::/7)"],
  ])("refuses %s when it is saved, naming why", (url, why) => {
    const refusal = outboundRefusalAtSave("webhook", url, policy);
    expect(refusal).toContain(why);
    expect(refusal).toMatch(/^webhook to /);
  });

  it("says how the admin admits a private host", () => {
    expect(outboundRefusalAtSave("webhook", "http://10.0.0.5/hook", policy)).toContain(
      "webhooks go only to public hosts unless the admin lists the host (and, for a loopback address, its port) in OPSBENCH_LOAD_ALLOWED_HOSTS",
    );
  });

  it.each([
    "https://hooks.slack.com/services/T/B/X",
    "https://203.0.113.7/hook",
    "http://127.0.0.1:9001/hook", // loopback on the admin's host:port entry
    "http://10.9.1.2/hook", // a private address inside the allowlist's CIDR
    "http://172.20.3.4/hook", // an opened private range
    "https://anything.example.org/hook", // a name: judged on its address at each send
  ])("lets %s be saved", (url) => {
    expect(outboundRefusalAtSave("webhook", url, policy)).toBeNull();
  });

  it("judges the address a name resolved to at send time (DNS rebinding)", () => {
    const url = "https://rebind.example.org/hook";
    expect(outboundAddressRefusal("webhook", url, "203.0.113.9", policy)).toBeNull();
    expect(outboundAddressRefusal("webhook", url, "10.1.2.3", policy)).toContain("rebind.example.org (10.1.2.3) port 443 refused");
    expect(outboundAddressRefusal("webhook", url, "127.0.0.1", policy)).toContain("loopback");
    expect(outboundAddressRefusal("webhook", url, "169.254.169.254", policy)).toContain("metadata");
    // The allowlist names the host: its private address is the admin's choice.
    expect(outboundAddressRefusal("webhook", "https://hooks.internal.example/x", "10.200.0.1", policy)).toBeNull();
    // A name on the allowlist that resolves to loopback still does not reach it.
    expect(outboundAddressRefusal("webhook", "https://hooks.internal.example/x", "127.0.0.1", policy)).toContain("loopback");
    // This machine's own addresses are refused unless listed.
    expect(outboundAddressRefusal("webhook", url, "198.51.100.3", { ...policy, ownAddresses: ["198.51.100.3"] })).toContain(
      "an address of this machine",
    );
  });

  it("reads an IPv4-mapped IPv6 address, written either way, as its IPv4 address", () => {
    expect(ipv4MappedAddress("::ffff:a00:5")).toBe("10.0.0.5");
    expect(ipv4MappedAddress("[::ffff:10.0.0.5]")).toBe("10.0.0.5");
    expect(ipv4MappedAddress("0:0:0:0:0:ffff:c0a8:101")).toBe("192.168.1.1");
    expect(ipv4MappedAddress("2001:db8::1")).toBeNull();
    expect(outboundAddressRefusal("webhook", "https://x.example.org/", "::ffff:c0a8:101", policy)).toContain(
      "192.168.1.1 is a private address",
    );
  });

  it("words an SMTP server's refusal as e-mail", () => {
    const refusal = outboundRefusalAtSave("SMTP server", smtpServerUrl("192.168.1.1", 587), policy);
    expect(refusal).toContain("SMTP server to 192.168.1.1 port 587 refused");
    expect(refusal).toContain("e-mail goes only to public hosts");
    expect(outboundRefusalAtSave("SMTP server", smtpServerUrl("smtp.example.com", 587), policy)).toBeNull();
  });
});

const event: NotificationEvent = notificationEventSchema.parse({
  id: "5f0e2a34-7a51-4c43-9d1e-2f5b7a1c9e01",
  event: "run.failed",
  workspace: { id: "0b9d8a3e-4f0c-4a35-8b4a-6f1d2e3c4b5a", slug: "default", name: "Shop <team> & co" },
  runId: "8a7b6c5d-4e3f-4a1b-9c8d-7e6f5a4b3c2d",
  studyId: null,
  text: "Run 8a7b6c5d (shop x ramp) failed: deploy timed out",
  path: "/runs/8a7b6c5d-4e3f-4a1b-9c8d-7e6f5a4b3c2d",
  occurredAt: "2026-11-29T18:00:00.000Z",
  detail: { error: "deploy timed out" },
});

describe("notification bodies", () => {
  it("sends the event and its absolute link as JSON", () => {
    const body = JSON.parse(webhookBody(event, "json", "https://bench.example.com/"));
    expect(body).toMatchObject({ event: "run.failed", runId: event.runId, url: `https://bench.example.com${event.path}` });
    expect(JSON.parse(webhookBody(event, "json", undefined)).url).toBeNull();
  });

  it("sends Slack an incoming-webhook body: one text field, mrkdwn escaped, the link as <url|label>", () => {
    const body = JSON.parse(webhookBody(event, "slack", "https://bench.example.com"));
    expect(Object.keys(body)).toEqual(["text"]);
    expect(body.text).toBe(
      `*opsbench* (Shop <team> & co): Run 8a7b6c5d (shop x ramp) failed: deploy timed out <https://bench.example.com${event.path}|Open in opsbench>`,
    );
    expect(JSON.parse(webhookBody({ ...event, text: "a <b> & c" }, "slack", undefined)).text).toContain("a &lt;b&gt; &amp; c");
  });

  it("writes an e-mail's subject and text", () => {
    const mail = emailOf(event, "https://bench.example.com");
    expect(mail.subject).toBe("[opsbench] Run failed: Run 8a7b6c5d (shop x ramp) failed: deploy timed out");
    expect(mail.text).toContain(`Open: https://bench.example.com${event.path}`);
  });

  it("retries after 10 s, 20 s, 40 s, 80 s", () => {
    expect([1, 2, 3, 4].map((a) => retryDelayMs(a))).toEqual([10_000, 20_000, 40_000, 80_000]);
  });
});
