# "Raupi" (study 002): Taewa's behaviour in Python, Flask served by Waitress
# (multi-threaded, unlike the Node apps). GET /?n=N multiplies N random numbers
# and answers the result trimmed to 44 characters (constant size).
import os
import random
import signal
import sys

from flask import Flask, request
from waitress import serve

DEFAULT_N = int(os.environ.get("RAUPI_DEFAULT_N", "20000"))
app = Flask(__name__)


def work(n: int) -> str:
    result = 1.0
    for _ in range(n):
        result *= random.random() + 0.5
    return str(result).ljust(44, "0")[:44]


def text(body: str, status: int = 200):
    return body, status, {"Content-Type": "text/plain"}


@app.get("/healthz")
def healthz():
    return text("ok")


@app.get("/")
def index():
    raw = request.args.get("n")
    try:
        n = DEFAULT_N if raw is None else int(raw)
    except ValueError:
        n = -1
    if n < 0 or n > 10_000_000:
        return text("n must be an integer from 0 to 10000000", 400)
    return text(work(n))


@app.errorhandler(404)
def not_found(_err):
    return text("not found", 404)


if __name__ == "__main__":
    host = os.environ.get("HOST", "127.0.0.1")
    port = int(os.environ.get("PORT", "8080"))
    # Waitress's own default is 4 threads; the study kept the default.
    threads = int(os.environ.get("RAUPI_THREADS", "4"))
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    print(f"raupi listening on http://{host}:{port}", flush=True)
    serve(app, host=host, port=port, threads=threads, ident=None)
