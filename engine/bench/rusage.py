# Runs a command and writes the CPU time and peak memory of it and its children (getrusage) as JSON to the file
# named by RUSAGE_OUT: how bench:engine measures each load tool the same way, whatever the tool reports itself.
import json, os, resource, subprocess, sys

code = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL if os.environ.get("RUSAGE_QUIET") else None).returncode
r = resource.getrusage(resource.RUSAGE_CHILDREN)
with open(os.environ["RUSAGE_OUT"], "w") as f:
    json.dump({"code": code, "cpuSeconds": r.ru_utime + r.ru_stime, "maxRssKb": r.ru_maxrss}, f)
sys.exit(code)
