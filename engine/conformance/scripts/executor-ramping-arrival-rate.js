// Doc: "Ramping arrival rate" (k6 docs, using-k6/scenarios/executors/ramping-arrival-rate):
// the iteration start rate ramps linearly between stage targets (per `timeUnit`).
// Expect: 0 -> 20/s over 1s (10 iterations) then 20/s for 1s (20 iterations): 30 in total (27..32).
export const options = {
  scenarios: {
    ramp: {
      executor: "ramping-arrival-rate",
      startRate: 0,
      timeUnit: "1s",
      preAllocatedVUs: 3,
      stages: [
        { duration: "1s", target: 20 },
        { duration: "1s", target: 20 },
      ],
    },
  },
};

export default function () {}
