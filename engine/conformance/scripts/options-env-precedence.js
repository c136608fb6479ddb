// Doc: "How to use options" (k6 docs, using-k6/k6-options/how-to), "Order of precedence":
// defaults < config file < script options < environment variables < CLI flags; "Options
// reference": K6_ITERATIONS and K6_VUS are the environment forms of iterations and vus.
// Expect: the script asks for 2 iterations but K6_ITERATIONS=5 and K6_VUS=2 win: 5 iterations,
// 5 GET /ok.
import http from "k6/http";

export const options = { vus: 1, iterations: 2 };

export default function () {
  http.get(`${__ENV.BASE_URL}/ok`);
}
