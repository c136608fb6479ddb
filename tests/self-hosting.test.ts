// docker compose cannot run here (no Docker engine), so this checks the compose
// file and Dockerfiles for what self-hosting relies on.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { parse } from "yaml";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "..");
const compose = parse(readFileSync(path.join(root, "docker-compose.yml"), "utf8"));
// biome-ignore lint/suspicious/noExplicitAny: a compose file read loosely, its shape is what the assertions check
const services = compose.services as Record<string, any>;

describe("docker-compose.yml", () => {
  it("has postgres, redis, a one-shot migrate, web and worker", () => {
    expect(Object.keys(services).sort()).toEqual(["migrate", "postgres", "redis", "web", "worker"]);
    expect(services.migrate.restart).toBe("no");
  });

  it("health-checks every long-running service and starts dependants only when they are healthy", () => {
    for (const name of ["postgres", "redis", "web", "worker"]) expect(services[name].healthcheck?.test, name).toBeDefined();
    expect(services.migrate.depends_on.postgres.condition).toBe("service_healthy");
    for (const name of ["web", "worker"]) {
      expect(services[name].depends_on.migrate.condition).toBe("service_completed_successfully");
      expect(services[name].depends_on.redis.condition).toBe("service_healthy");
    }
  });

  it("runs Redis with noeviction and requires the database password", () => {
    expect(services.redis.command.join(" ")).toContain("--maxmemory-policy noeviction");
    expect(readFileSync(path.join(root, "docker-compose.yml"), "utf8")).toContain("${POSTGRES_PASSWORD:?");
    expect(services.postgres.environment.POSTGRES_PASSWORD).toMatch(/^\$\{POSTGRES_PASSWORD:\?/);
  });

  it("builds from Dockerfiles whose COPY sources exist", () => {
    for (const [name, svc] of Object.entries(services)) {
      if (!svc.build) continue;
      const dockerfile = path.join(root, svc.build.context, svc.build.dockerfile);
      expect(existsSync(dockerfile), `${name}: ${dockerfile}`).toBe(true);
      for (const line of readFileSync(dockerfile, "utf8").split("\n")) {
        const m = /^COPY\s+(?!--from)(.+)\s+\S+$/.exec(line.trim());
        if (!m) continue;
        for (const src of m[1]!.split(/\s+/).filter((s) => !s.startsWith("--"))) {
          expect(existsSync(path.join(root, svc.build.context, src)), `${name}: COPY ${src}`).toBe(true);
        }
      }
    }
  });
});
