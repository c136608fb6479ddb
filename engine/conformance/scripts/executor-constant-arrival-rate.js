// Doc: "Constant arrival rate" (k6 docs, using-k6/scenarios/executors/constant-arrival-rate):
// `rate` iterations start each `timeUnit`, for `duration`, independently of iteration time.
// Expect: 10 iterations/s for 2s = 20 iterations (19..21), none dropped (5 VUs are plenty).
import http from "k6/http";

export const options = {
  scenarios: {
    arrivals: {
      executor: "constant-arrival-rate",
      rate: 10,
      timeUnit: "1s",
      duration: "2s",
      preAllocatedVUs: 5,
    },
  },
};

export default function () {
  http.get(`${__ENV.BASE_URL}/ok`);
}
