// A GitHub REST API stand-in on loopback: the issue comments of acme/shop, answered as GitHub documents them
// (fixtures/github/: the shapes, a 401 for a token it does not take, a 500 when told to fail), lists paged with a
// Link header. The pull-request comment's tests (pr-comment.test.ts) and the Action's (packed-cli.test.ts) post to it.
import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";

export interface Seen {
  method: string;
  path: string;
  query: URLSearchParams;
  authorization: string | undefined;
  body: { body?: string } | null;
}

const fixture = (name: string) => JSON.parse(readFileSync(path.join(import.meta.dirname, "fixtures/github", name), "utf8"));

const readBody = (req: IncomingMessage) =>
  new Promise<string>((resolve) => {
    let text = "";
    req.on("data", (d) => (text += d));
    req.on("end", () => resolve(text));
  });

const NOT_FOUND = { message: "Not Found", documentation_url: "https://docs.github.com/rest", status: "404" };

/**
 * Starts the stand-in. `token`: the one token it takes (Bearer). `pageSize`: its list pages' length (small, so a
 * pull request with a few comments is paged as a long one is on GitHub).
 */
export async function startGitHubStandIn({ token, pageSize = 2 }: { token: string; pageSize?: number }) {
  const seen: Seen[] = [];
  const comments = new Map<number, Array<Record<string, unknown>>>(); // by pull request number
  let nextId = 1_000_000;
  const state = { failing: false };

  function comment(pr: number, body: string, login: string): Record<string, unknown> {
    const id = nextId++;
    const base = fixture("issue-comment.json");
    const now = new Date().toISOString().replace(/\.\d+Z$/, "Z");
    return {
      ...base,
      id,
      node_id: Buffer.from(`IssueComment${id}`).toString("base64"),
      url: `https://api.github.com/repos/acme/shop/issues/comments/${id}`,
      html_url: `https://github.com/acme/shop/pull/${pr}#issuecomment-${id}`,
      body,
      user: { ...base.user, login },
      created_at: now,
      updated_at: now,
      issue_url: `https://api.github.com/repos/acme/shop/issues/${pr}`,
    };
  }

  const server = createServer(async (req, res) => {
    const url = new URL(req.url!, "http://stand-in");
    const text = await readBody(req);
    seen.push({
      method: req.method!,
      path: url.pathname,
      query: url.searchParams,
      authorization: req.headers.authorization,
      body: text ? JSON.parse(text) : null,
    });
    const send = (status: number, json: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { "content-type": "application/json; charset=utf-8", ...headers });
      res.end(JSON.stringify(json));
    };
    if (req.headers.authorization !== `Bearer ${token}`) return send(401, fixture("bad-credentials.json"));
    if (state.failing) return send(500, fixture("server-error.json"));
    const list = /^\/repos\/acme\/shop\/issues\/(\d+)\/comments$/.exec(url.pathname);
    const one = /^\/repos\/acme\/shop\/issues\/comments\/(\d+)$/.exec(url.pathname);
    if (list && req.method === "GET") {
      const all = comments.get(Number(list[1])) ?? [];
      const page = Number(url.searchParams.get("page") ?? 1);
      const last = Math.max(1, Math.ceil(all.length / pageSize));
      const at = (p: number) => {
        const u = new URL(`http://${req.headers.host}${url.pathname}`);
        u.searchParams.set("per_page", url.searchParams.get("per_page") ?? "30");
        u.searchParams.set("page", String(p));
        return u.toString();
      };
      const links = [
        ...(page < last ? [`<${at(page + 1)}>; rel="next"`, `<${at(last)}>; rel="last"`] : []),
        ...(page > 1 ? [`<${at(1)}>; rel="first"`, `<${at(page - 1)}>; rel="prev"`] : []),
      ];
      return send(200, all.slice((page - 1) * pageSize, page * pageSize), links.length ? { link: links.join(", ") } : {});
    }
    if (list && req.method === "POST") {
      const pr = Number(list[1]);
      const made = comment(pr, JSON.parse(text).body, "github-actions[bot]");
      comments.set(pr, [...(comments.get(pr) ?? []), made]);
      return send(201, made, { location: made.url as string });
    }
    if (one && req.method === "PATCH") {
      for (const all of comments.values()) {
        const c = all.find((x) => x.id === Number(one[1]));
        if (c) {
          c.body = JSON.parse(text).body;
          c.updated_at = new Date().toISOString().replace(/\.\d+Z$/, "Z");
          return send(200, c);
        }
      }
    }
    return send(404, NOT_FOUND);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    comments,
    comment,
    /** While true, every request with the right token is answered 500. */
    state,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
