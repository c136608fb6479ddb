// The echo function of study 001 as a Lambda handler behind a function URL:
// "Hello, input was: X" for GET /?input=X or a POST body, like ../node and ../go.
export const handler = async (event) => {
  const http = event.requestContext?.http ?? {};
  if (http.path === "/healthz") return { statusCode: 200, headers: { "content-type": "text/plain" }, body: "ok" };
  const body = event.body ? (event.isBase64Encoded ? Buffer.from(event.body, "base64").toString("utf8") : event.body) : "";
  const input = http.method === "POST" ? body : (event.queryStringParameters?.input ?? "");
  return { statusCode: 200, headers: { "content-type": "text/plain; charset=utf-8" }, body: `Hello, input was: ${input}` };
};
