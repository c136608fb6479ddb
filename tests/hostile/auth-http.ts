// HTTP as a stranger, a viewer or an invitee would send it to the auth endpoints: JSON, the app's own Origin (Better
// Auth refuses cookie requests from other origins), and the session cookie a sign-up or sign-in set.
export interface Answer {
  status: number;
  text: string;
  json: unknown;
  headers: Headers;
  /** `name=value` of the cookies the answer set (a session). */
  cookie: string;
}

export async function call(
  web: string,
  method: string,
  path: string,
  { body, cookie, headers = {} }: { body?: unknown; cookie?: string; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const res = await fetch(`${web}${path}`, {
    method,
    headers: {
      origin: web,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
      ...(cookie ? { cookie } : {}),
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let json: unknown = null;
  try {
    json = JSON.parse(text);
  } catch {}
  const setCookies = res.headers.getSetCookie().map((c) => c.split(";")[0] ?? "");
  return { status: res.status, text, json, headers: res.headers, cookie: setCookies.filter(Boolean).join("; ") };
}

export const account = (email: string) => ({ email, password: "hostile-password-1", name: email.split("@")[0] });
