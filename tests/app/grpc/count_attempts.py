"""Counts how often a real gRPC client tries a call under a service config.

A gRPC server on 127.0.0.1 answers every call of /retrylab.Test/Call with
UNAVAILABLE and counts them; a channel made with the service config given on
the command line (as `grpc.service_config`, retries on) calls it once. Prints
{"attempts": N, "code": "UNAVAILABLE"} as JSON.
Usage: count_attempts.py SERVICE_CONFIG.json
"""
import json
import sys
import threading
from concurrent import futures

import grpc

attempts = 0
lock = threading.Lock()


def call(request, context):
    global attempts
    with lock:
        attempts += 1
    context.abort(grpc.StatusCode.UNAVAILABLE, "retrylab test: unavailable")


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        config = f.read()
    json.loads(config)  # a config gRPC would refuse quietly fails here loudly
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    handler = grpc.method_handlers_generic_handler(
        "retrylab.Test",
        {"Call": grpc.unary_unary_rpc_method_handler(call, request_deserializer=None, response_serializer=None)},
    )
    server.add_generic_rpc_handlers((handler,))
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    channel = grpc.insecure_channel(
        "127.0.0.1:%d" % port,
        options=[("grpc.service_config", config), ("grpc.enable_retries", 1)],
    )
    code = "OK"
    try:
        channel.unary_unary("/retrylab.Test/Call")(b"x", timeout=60)
    except grpc.RpcError as e:
        code = e.code().name
    channel.close()
    server.stop(None)
    print(json.dumps({"attempts": attempts, "code": code}))


if __name__ == "__main__":
    main()
