"""Serves the repository root on localhost (index.html, www/, pkg/) and prints the URL."""
import functools
import http.server
import os
import sys

port = int(sys.argv[1]) if len(sys.argv) > 1 else 8080
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=root)
handler.func.extensions_map[".wasm"] = "application/wasm"
handler.func.extensions_map[".js"] = "text/javascript"
with http.server.ThreadingHTTPServer(("127.0.0.1", port), handler) as server:
    print(f"texla is served at http://127.0.0.1:{port}/  (Ctrl+C to stop)", flush=True)
    server.serve_forever()
