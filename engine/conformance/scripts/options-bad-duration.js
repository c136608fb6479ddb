// Doc: "Options reference" (k6 docs, using-k6/k6-options/reference), Duration: "A string
// specifying the total duration" such as "30s". A duration that does not parse is invalid
// configuration: exit 104.
export const options = { vus: 1, duration: "ten seconds" };

export default function () {}
