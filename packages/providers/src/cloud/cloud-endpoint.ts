// Where a cloud kind's load goes (aws-asg, aws-lambda, gcp-cloud-run): always outside this machine, so the
// worker's host policy is asked; before the deploy when the spec names the address (endpointUrl), else right
// after it, when the platform has answered its own address (named by the cloud for what the run made: admitted as
// created by the run).
export const cloudEndpoint = {
  outsideEndpoint: () => true,
  platformNamesEndpoint: true,
  knownEndpoint: (spec: { endpointUrl?: string }) => spec.endpointUrl ?? null,
};
