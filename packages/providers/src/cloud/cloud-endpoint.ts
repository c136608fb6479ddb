// Where a cloud kind's load goes (aws-asg, aws-lambda, gcp-cloud-run): always outside this machine, so the
// worker's host policy is asked; before the deploy when the spec names the address (endpointUrl), else right
// after it, when the platform has answered its own address.
export const cloudEndpoint = {
  outsideEndpoint: () => true,
  knownEndpoint: (spec: { endpointUrl?: string }) => spec.endpointUrl ?? null,
};
