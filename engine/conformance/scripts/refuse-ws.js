// opsbench-engine refuses modules it does not implement: k6/ws (k6 docs: "k6/ws") fails at
// init, naming the module on stderr, exit 107.
import ws from "k6/ws";

export default function () {
  ws.connect("ws://127.0.0.1:1", {}, () => {});
}
