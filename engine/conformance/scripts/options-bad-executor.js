// Doc: "Scenarios" (k6 docs, using-k6/scenarios): executor is required and must be "one of
// the predefined executor names". An unknown executor is invalid configuration: exit 104.
export const options = {
  scenarios: {
    broken: { executor: "no-such-executor", vus: 1, iterations: 1 },
  },
};

export default function () {}
