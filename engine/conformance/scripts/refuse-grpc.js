// opsbench-engine refuses modules it does not implement: k6/net/grpc (k6 docs: "k6/net/grpc")
// fails at init, naming the module on stderr, exit 107.
import grpc from "k6/net/grpc";

const client = new grpc.Client();

export default function () {
  client.close();
}
