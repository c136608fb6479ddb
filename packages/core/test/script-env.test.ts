// A run's script environment (issue 37): the keys a run may set, the masking of secret values, and the instance's
// cap on a script's files, whose refusal names the file, its size and the cap.
import { describe, expect, it } from "vitest";
import { bundleOverCap, maskSecrets, scriptEnvSchema, scriptSecretNames, shownScriptEnv } from "../src";

const b64 = (bytes: number) => Buffer.alloc(bytes, "x").toString("base64");

describe("script env", () => {
  it("takes __ENV keys, refuses opsbench's own and malformed ones with a message naming the rule", () => {
    expect(scriptEnvSchema.parse({ TENANT: "acme", _X1: "" })).toEqual({ TENANT: "acme", _X1: "" });
    for (const key of ["OPSBENCH_BASE_URL", "K6_VUS", "lower", "1ABC", "A-B"]) {
      const r = scriptEnvSchema.safeParse({ [key]: "v" });
      expect(r.success, key).toBe(false);
    }
    expect(scriptEnvSchema.safeParse({ OPSBENCH_BASE_URL: "x" }).error?.issues[0]?.message).toContain("opsbench sets OPSBENCH_*");
    expect(scriptSecretNames.safeParse(["A", "A"]).error?.issues[0]?.message).toBe("a secret is named twice");
  });

  it("shows --env values and masks secrets, sorted by key", () => {
    expect(shownScriptEnv({ B: "2" }, ["A"])).toEqual([
      { key: "A", value: "***", secret: true },
      { key: "B", value: "2", secret: false },
    ]);
  });

  it("masks every secret value in a text, a longer value whole before a shorter one it holds", () => {
    expect(maskSecrets("token abc123 and abc and abc123", ["abc", "abc123"])).toBe("token *** and *** and ***");
    expect(maskSecrets("nothing here", ["abc"])).toBe("nothing here");
    expect(maskSecrets("x", [""])).toBe("x");
  });

  it("bundleOverCap names the largest file, its size, the total and the cap; null within it", () => {
    expect(bundleOverCap({ "a.csv": b64(10) }, 10)).toBeNull();
    expect(bundleOverCap(undefined, 1)).toBeNull();
    const over = bundleOverCap({ "lib/x.js": b64(1_000), "data/users.csv": b64(1_200_000) }, 1_000_000);
    expect(over).toBe(
      "\"data/users.csv\" (1,200,000 bytes) takes the script's files to 1,201,000 bytes, over this instance's cap of 1,000,000 bytes (OPSBENCH_MAX_SCRIPT_FILES_BYTES, set by its admin)",
    );
  });
});
