// opsbench-engine refuses modules it does not implement: k6/experimental/* (k6 docs:
// "k6/experimental") fail at init, naming the module on stderr, exit 107.
import { Client } from "k6/experimental/redis";

export default function () {
  new Client("redis://127.0.0.1:1");
}
